/// SHA-1 (FIPS 180-4) over bytes: what a WebSocket handshake's `Sec-WebSocket-Accept` needs (RFC 6455 §4.2.2),
/// and nothing else (it is no protection against an adversary, and the handshake asks none of it). Checked
/// against the standard's test vectors and RFC 6455's example key.
package enum SHA1 {
    /// The 20-byte digest of `message`.
    package static func digest(_ message: [UInt8]) -> [UInt8] {
        var state: [UInt32] = [0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0]
        let padded = padded(message)
        var w = [UInt32](repeating: 0, count: 80)
        for block in stride(from: 0, to: padded.count, by: 64) {
            for t in 0..<16 {
                w[t] = padded[(block + t * 4)..<(block + t * 4 + 4)].reduce(0) { $0 << 8 | UInt32($1) }
            }
            for t in 16..<80 { w[t] = rotate(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1) }
            var (a, b, c, d, e) = (state[0], state[1], state[2], state[3], state[4])
            for t in 0..<80 {
                let (f, k): (UInt32, UInt32) = switch t {
                case ..<20: ((b & c) | (~b & d), 0x5A827999)
                case ..<40: (b ^ c ^ d, 0x6ED9EBA1)
                case ..<60: ((b & c) | (b & d) | (c & d), 0x8F1BBCDC)
                default: (b ^ c ^ d, 0xCA62C1D6)
                }
                (e, d, c, b, a) = (d, c, rotate(b, 30), a, rotate(a, 5) &+ f &+ e &+ k &+ w[t])
            }
            for (i, value) in [a, b, c, d, e].enumerated() { state[i] = state[i] &+ value }
        }
        return state.flatMap { word in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> UInt32($0)) } }
    }

    /// `message` padded as FIPS 180-4 §5.1.1 says: a 1 bit, zeros to 56 bytes mod 64, and the message's
    /// length in bits as a big-endian 64-bit number.
    static func padded(_ message: [UInt8]) -> [UInt8] {
        var padded = message
        let bits = UInt64(truncatingIfNeeded: message.count) &* 8
        padded.append(0x80)
        while padded.count % 64 != 56 { padded.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { padded.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        return padded
    }

    private static func rotate(_ x: UInt32, _ n: UInt32) -> UInt32 { x << n | x >> (32 - n) }
}
