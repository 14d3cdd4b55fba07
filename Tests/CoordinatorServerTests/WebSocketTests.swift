import Foundation
import Testing
@testable import CoordinatorServer

/// What the server does with a page's frames, against RFC 6455: each rule broken ends the reading with the
/// code the RFC gives it; what keeps the rules is read to the page's close, pings answered.
@Suite struct WebSocketTests {
    /// A frame as a page sends it: masked (with a fixed mask), `fin` unless told.
    static func frame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        switch payload.count {
        case ..<126: bytes.append(maskBit | UInt8(payload.count))
        case ..<65_536: bytes += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: bytes.append(maskBit | 127); bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> ($0 * 8)) }
        }
        guard masked else { return bytes + payload }
        let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        return bytes + mask + payload.enumerated().map { $0.element ^ mask[$0.offset & 3] }
    }

    static func close(_ code: UInt16, _ reason: [UInt8] = []) -> [UInt8] { frame(0x8, [UInt8(code >> 8), UInt8(code & 0xFF)] + reason) }

    /// Reads `bytes` as a page's frames: how the reading ended, and the frames the server sent meanwhile.
    static func read(_ bytes: [UInt8]) async -> (ending: WebSocket.Ending, sent: [Data]) {
        let source = Source(bytes)
        var reader = ByteReader(reading: { try await source.next($0) })
        var sent: [Data] = []
        let ending = await WebSocket.readFrames(&reader) { sent.append($0) }
        return (ending, sent)
    }

    /// The bytes a test gives, a few at a time, then the peer gone.
    actor Source {
        var bytes: [UInt8]
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        func next(_ most: Int) throws -> [UInt8] {
            guard !bytes.isEmpty else { throw CancellationError() }
            let part = Array(bytes.prefix(min(most, 7)))
            bytes.removeFirst(part.count)
            return part
        }
    }

    @Test func messagesInFragmentsPingsAndACloseAreRead() async {
        let text = Array("héllo, wörld".utf8)
        let split = text.count / 2 + 1 // inside "ö": a fragment alone need not be UTF-8, the message must
        let result = await Self.read(Self.frame(0x1, Array(text[..<split]), fin: false) + Self.frame(0x9, [1, 2])
                                     + Self.frame(0x0, Array(text[split...])) + Self.frame(0x2, [0xFF, 0xFE]) + Self.close(1000, Array("bye".utf8)))
        #expect(result.ending == .closed)
        #expect(result.sent == [WebSocket.frame(opcode: 0xA, [1, 2])])
    }

    @Test func aContinuationWithNoMessageBegunIsAProtocolError() async {
        #expect(await Self.read(Self.frame(0x0, Array("orphan".utf8))).ending == .violated(1002))
        // ... and a continuation after a message that had ended.
        #expect(await Self.read(Self.frame(0x1, [0x61]) + Self.frame(0x0, [0x62])).ending == .violated(1002))
    }

    @Test func aNewMessageBeforeTheLastEndedIsAProtocolError() async {
        #expect(await Self.read(Self.frame(0x1, [0x61], fin: false) + Self.frame(0x1, [0x62])).ending == .violated(1002))
    }

    @Test(arguments: [[0xC3, 0x28], [0xED, 0xA0, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80], [0x61, 0xE2, 0x82]])
    func textThatIsNotUTF8Is1007(_ bytes: [UInt8]) async {
        #expect(await Self.read(Self.frame(0x1, bytes)).ending == .violated(1007))
        // The same bytes in a binary message are data.
        #expect(await Self.read(Self.frame(0x2, bytes) + Self.close(1000)).ending == .closed)
    }

    @Test func aTextMessagesUTF8IsCheckedWhole() async {
        // Each fragment is valid alone; together they end inside a character.
        #expect(await Self.read(Self.frame(0x1, [0x61], fin: false) + Self.frame(0x0, [0xE2, 0x82])).ending == .violated(1007))
    }

    @Test(arguments: [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 4999] as [UInt16])
    func closeCodesAnEndpointMaySendClose(_ code: UInt16) async {
        #expect(await Self.read(Self.close(code)).ending == .closed)
    }

    @Test(arguments: [0, 999, 1004, 1005, 1006, 1015, 1016, 2000, 2999, 5000] as [UInt16])
    func closeCodesNoEndpointMaySendAreAProtocolError(_ code: UInt16) async {
        #expect(await Self.read(Self.close(code)).ending == .violated(1002))
    }

    @Test func aCloseOfOneByteOrWithAReasonNotUTF8IsRefused() async {
        #expect(await Self.read(Self.frame(0x8, [0x03])).ending == .violated(1002))
        #expect(await Self.read(Self.close(1000, [0xC3, 0x28])).ending == .violated(1007))
        #expect(await Self.read(Self.frame(0x8, [])).ending == .closed)
    }

    @Test func unmaskedReservedAndUnknownFramesAndLongControlsAreProtocolErrors() async {
        #expect(await Self.read(Self.frame(0x1, [0x61], masked: false)).ending == .violated(1002))
        var reserved = Self.frame(0x1, [0x61])
        reserved[0] |= 0x40
        #expect(await Self.read(reserved).ending == .violated(1002))
        #expect(await Self.read(Self.frame(0x3, [])).ending == .violated(1002))
        #expect(await Self.read(Self.frame(0xB, [])).ending == .violated(1002))
        #expect(await Self.read(Self.frame(0x9, [UInt8](repeating: 0, count: 126))).ending == .violated(1002))
        #expect(await Self.read(Self.frame(0x9, [], fin: false)).ending == .violated(1002))
    }

    @Test func aMessageOverTheLimitIsRefusedBeforeItsBytesAreRead() async {
        // The header announces one byte more than the limit; the bytes themselves are never sent.
        let head = Array(Self.frame(0x2, [UInt8](repeating: 0, count: 70_000)).prefix(4))
        var announced = head
        announced[1] = 0x80 | 127
        let over = UInt64(WebSocket.maximumMessage + 1)
        let frame = [announced[0], announced[1]] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: over >> ($0 * 8)) }
        #expect(await Self.read(frame).ending == .violated(1009))
        // Fragments count together.
        let half = [UInt8](repeating: 0x61, count: WebSocket.maximumMessage / 2 + 1)
        #expect(await Self.read(Self.frame(0x2, half, fin: false) + Self.frame(0x0, half)).ending == .violated(1009))
    }
}
