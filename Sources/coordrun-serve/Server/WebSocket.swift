import FlyingSocks
import Foundation

/// The preview's WebSocket (RFC 6455), as `/live` uses it: the server sends text messages (the states);
/// what a page sends is read only to answer pings and closes, and to bound it: a message over
/// ``maximumMessage`` closes the socket with 1009 before its bytes are read.
enum WebSocket {
    /// The most bytes a message from a page may hold: 1 MiB.
    static let maximumMessage = 1 << 20

    /// The handshake's answer to `request` (101), or why it is refused.
    static func accept(_ request: Request) -> Result<Response, Request.Refused> {
        guard request.header("upgrade")?.lowercased() == "websocket",
              request.header("connection")?.lowercased().split(separator: ",")
                  .contains(where: { $0.trimmingCharacters(in: .whitespaces) == "upgrade" }) == true else {
            return .failure(Request.Refused(status: 426, message: "/live is a WebSocket: connect with Upgrade: websocket"))
        }
        guard request.header("sec-websocket-version") == "13", let key = request.header("sec-websocket-key"),
              Data(base64Encoded: key)?.count == 16 else {
            return .failure(Request.Refused(status: 400, message: "a WebSocket handshake needs Sec-WebSocket-Version 13 and a 16-byte Sec-WebSocket-Key"))
        }
        let accept = Data(SHA1.digest(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
        return .success(Response(status: 101, headers: [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", accept)]))
    }

    /// A frame's bytes, unmasked as a server sends them.
    static func frame(opcode: UInt8, _ payload: [UInt8]) -> Data {
        var bytes: [UInt8] = [0x80 | opcode]
        switch payload.count {
        case ..<126: bytes.append(UInt8(payload.count))
        case ..<65_536: bytes += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: bytes.append(127); bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> ($0 * 8)) }
        }
        return Data(bytes + payload)
    }

    /// A close frame with `code`.
    static func close(_ code: UInt16) -> Data { frame(opcode: 0x8, [UInt8(code >> 8), UInt8(code & 0xFF)]) }

    /// What reading a page's frames came to.
    enum Ending: Equatable {
        /// The page closed (or went).
        case closed
        /// It broke the protocol (1002) or sent a message too large (1009).
        case violated(UInt16)
    }

    /// Reads a page's frames until it closes or breaks a rule, answering pings through `send`; a message
    /// (its fragments together) is never read past ``maximumMessage``.
    static func readFrames(_ reader: inout ByteReader, send: (Data) -> Void) async -> Ending {
        var message = 0
        do {
            while true {
                let head = try await reader.bytes(2)
                let (fin, opcode, masked) = (head[0] & 0x80 != 0, head[0] & 0x0F, head[1] & 0x80 != 0)
                guard head[0] & 0x70 == 0, masked else { return .violated(1002) }
                var length = UInt64(head[1] & 0x7F)
                if length == 126 { length = try await reader.bytes(2).reduce(0) { $0 << 8 | UInt64($1) } }
                else if length == 127 { length = try await reader.bytes(8).reduce(0) { $0 << 8 | UInt64($1) } }
                let control = opcode & 0x8 != 0
                if control {
                    guard fin, length <= 125 else { return .violated(1002) }
                } else {
                    guard length <= UInt64(maximumMessage - message) else { return .violated(1009) }
                    message += Int(length)
                }
                let mask = try await reader.bytes(4)
                var payload = try await reader.bytes(Int(length))
                for i in payload.indices { payload[i] ^= mask[i & 3] }
                switch opcode {
                case 0x8: return .closed
                case 0x9: send(frame(opcode: 0xA, payload))
                case 0xA: break
                case 0x0, 0x1, 0x2: if fin { message = 0 }
                default: return .violated(1002)
                }
            }
        } catch {
            return .closed
        }
    }
}
