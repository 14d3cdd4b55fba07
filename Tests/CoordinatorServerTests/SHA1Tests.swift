import Foundation
import Testing
@testable import CoordinatorServer

/// SHA-1 against FIPS 180's examples (and the NIST vectors for the empty and the million-byte message),
/// across every padding case, and the WebSocket handshake against RFC 6455's own example.
@Suite struct SHA1Tests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "a49b2446a02c645bf419f995b67091253a04a259"),
    ])
    func theStandardsVectors(message: String, digest: String) {
        #expect(Self.hex(SHA1.digest(Array(message.utf8))) == digest)
    }

    @Test func aMillionAs() {
        #expect(Self.hex(SHA1.digest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    /// The padding's edges: a message that leaves 55, 56, 63 and 64 bytes in its last block (55 fits the
    /// length in the same block, 56 does not), against the digests Python's hashlib gives.
    @Test(arguments: [
        (55, "c1c8bbdc22796e28c0e15163d20899b65621d65a"),
        (56, "c2db330f6083854c99d4b5bfb6e8f29f201be699"),
        (63, "03f09f5b158a7a8cdad920bddc29b81c18a551f5"),
        (64, "0098ba824b5c16427bd7a1122a5a442a25ec644d"),
    ])
    func paddingEdges(count: Int, digest: String) {
        #expect(SHA1.padded([UInt8](repeating: UInt8(ascii: "a"), count: count)).count % 64 == 0)
        #expect(Self.hex(SHA1.digest([UInt8](repeating: UInt8(ascii: "a"), count: count))) == digest)
    }

    /// RFC 6455 §1.3: the key "dGhlIHNhbXBsZSBub25jZQ==" is answered "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=".
    @Test func theHandshakeOfRFC6455sExample() throws {
        let request = Request(method: "GET", path: "/live", query: [:], headers: [
            "upgrade": "websocket", "connection": "keep-alive, Upgrade", "sec-websocket-version": "13",
            "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
        ], body: [], keepAlive: true, bodyLength: nil)
        guard case .success(let response) = WebSocket.accept(request) else {
            Issue.record("the handshake was refused")
            return
        }
        #expect(response.status == 101)
        #expect(response.headers.first { $0.name == "Sec-WebSocket-Accept" }?.value == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }
}
