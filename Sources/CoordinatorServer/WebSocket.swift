import FlyingSocks
import Foundation

/// The preview's WebSocket (RFC 6455), as `/live` uses it: the server sends text messages (the states);
/// what a page sends is read only to answer pings and closes, and to bound it: a message over
/// ``maximumMessage`` closes the socket with 1009 before its bytes are read.
package enum WebSocket {
    /// The most bytes a message from a page may hold: 1 MiB.
    package static let maximumMessage = 1 << 20

    /// The handshake's answer to `request` (101), or why it is refused.
    package static func accept(_ request: Request) -> Result<Response, Request.Refused> {
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
    package static func frame(opcode: UInt8, _ payload: [UInt8]) -> Data {
        var bytes: [UInt8] = [0x80 | opcode]
        switch payload.count {
        case ..<126: bytes.append(UInt8(payload.count))
        case ..<65_536: bytes += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: bytes.append(127); bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> ($0 * 8)) }
        }
        return Data(bytes + payload)
    }

    /// A close frame with `code`.
    package static func close(_ code: UInt16) -> Data { frame(opcode: 0x8, [UInt8(code >> 8), UInt8(code & 0xFF)]) }

    /// What reading a page's frames came to.
    package enum Ending: Equatable {
        /// The page closed (or went).
        case closed
        /// It broke the protocol (1002), sent text that is not UTF-8 (1007) or a message too large (1009).
        case violated(UInt16)
    }

    /// Reads a page's frames until it closes or breaks a rule of RFC 6455, answering pings through `send`:
    /// a frame unmasked or with reserved bits, an unknown opcode, a control frame fragmented or over 125
    /// bytes, a continuation with no message begun or a new message before the last one ended (1002); a
    /// text message (its fragments together) or a close's reason that is not UTF-8 (1007); a close whose
    /// code no endpoint may send (1002); a message (its fragments together) over ``maximumMessage``, never
    /// read past it (1009).
    package static func readFrames(_ reader: inout ByteReader, send: (Data) -> Void) async -> Ending {
        /// The message being read: its opcode (text or binary) and, for text, its bytes so far.
        var message: (opcode: UInt8, size: Int, text: [UInt8])?
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
                    guard fin, length <= 125, [0x8, 0x9, 0xA].contains(opcode) else { return .violated(1002) }
                } else {
                    switch opcode {
                    case 0x0: guard message != nil else { return .violated(1002) }
                    case 0x1, 0x2: guard message == nil else { return .violated(1002) }
                    default: return .violated(1002)
                    }
                    let size = message?.size ?? 0
                    guard length <= UInt64(maximumMessage - size) else { return .violated(1009) }
                }
                let mask = try await reader.bytes(4)
                var payload = try await reader.bytes(Int(length))
                for i in payload.indices { payload[i] ^= mask[i & 3] }
                switch opcode {
                case 0x8: return closing(payload)
                case 0x9: send(frame(opcode: 0xA, payload))
                case 0xA: break
                default:
                    var current = message ?? (opcode: opcode, size: 0, text: [])
                    current.size += payload.count
                    if current.opcode == 0x1 { current.text += payload }
                    guard fin else { message = current; continue }
                    message = nil
                    if current.opcode == 0x1, String(validating: current.text, as: UTF8.self) == nil { return .violated(1007) }
                }
            }
        } catch {
            return .closed
        }
    }

    /// How a close frame with `payload` ends the reading: closed, or a rule its payload breaks (a lone byte,
    /// a code no endpoint may send, a reason that is not UTF-8).
    static func closing(_ payload: [UInt8]) -> Ending {
        guard !payload.isEmpty else { return .closed }
        guard payload.count >= 2 else { return .violated(1002) }
        let code = Int(payload[0]) << 8 | Int(payload[1])
        // RFC 6455 §7.4: 1000-1003 and 1007-1014 are defined and may be sent; 3000-4999 are for registered
        // and private use; 1004, 1005, 1006 and 1015 are never sent, and the rest is reserved.
        guard (1000...1003).contains(code) || (1007...1014).contains(code) || (3000...4999).contains(code) else {
            return .violated(1002)
        }
        guard String(validating: payload.dropFirst(2), as: UTF8.self) != nil else { return .violated(1007) }
        return .closed
    }
}
