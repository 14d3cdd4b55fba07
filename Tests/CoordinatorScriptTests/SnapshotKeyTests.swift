import Foundation
import Testing
import CoordinatorCore
@testable import CoordinatorScript
import TestSupport

/// Signed snapshots: SHA-256 and HMAC-SHA256 as the standards define them, and a runtime with a key that
/// restores only what that key signed.
@Suite struct SnapshotKeyTests {
    static func hex(_ text: String) -> String { SHA256.hex(SHA256.digest(Array(text.utf8))) }

    @Test func sha256GivesTheStandardsTestVectors() {
        #expect(Self.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Self.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Self.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(Self.hex(String(repeating: "a", count: 1_000_000)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        // RFC 4231: test cases 1, 2 and 6 (a key longer than the block).
        #expect(SHA256.hex(SHA256.hmac(key: [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8))) == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(SHA256.hex(SHA256.hmac(key: Array("Jefe".utf8), Array("what do ya want for nothing?".utf8))) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(SHA256.hex(SHA256.hmac(key: [UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func hmacAgreesWithOpenSSLOnRandomKeysAndMessages() throws {
        var generator = SystemRandomNumberGenerator()
        for length in [0, 1, 55, 56, 63, 64, 65, 119, 120, 200, 1000] {
            let key = (0..<Int.random(in: 1...150, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let folder = try TemporaryDirectory()
            let file = try folder.write("message", bytes: message)
            let openssl = try Programs.run("/usr/bin/openssl", ["dgst", "-sha256", "-mac", "HMAC", "-macopt", "hexkey:" + SHA256.hex(key), file], input: "")
            #expect(openssl.out.hasSuffix("= " + SHA256.hex(SHA256.hmac(key: key, message)) + "\n"), "\(openssl.out) \(openssl.err)")
            let sum = try Programs.run("/usr/bin/sha256sum", [file], input: "")
            #expect(sum.out.hasPrefix(SHA256.hex(SHA256.digest(message)) + " "))
        }
    }

    static let app = """
        local flow = require "coordinator"
        flow.screen "List" { outputs = { open = "value" } }
        flow.screen "Item" { inputs = { "itemId" } }
        local App = flow.coordinator "App"
        function App:start()
          self:push("List").onOpen = function(id) self:push("Item", { itemId = id }) end
        end
        flow.app(App)
        """

    @Test func aRuntimeWithAKeySignsItsSnapshotsAndRestoresOnlyThoseItSigned() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("app.lua", Self.app)
        func runtime(key: [UInt8]?) throws -> ScriptRuntime {
            let runtime = try ScriptRuntime(driverFunctions: true)
            runtime.snapshotKey = try key.map(SnapshotKey.init)
            try runtime.load(script: script)
            try runtime.start()
            return runtime
        }
        let key = Array("a key of thirty-two bytes, 32 B!".utf8), other = Array("another key of thirty-two bytes!".utf8)
        let signer = try runtime(key: key)
        try signer.app.tap("open", payload: 7)
        let json = try signer.snapshot()
        let document = try FlowValue(json: json)
        #expect(document["signature"]?.stringValue?.hasPrefix("hmac-sha256:") == true)

        // The same key: restored; also with the document laid out otherwise (compact, not indented).
        let same = try runtime(key: key)
        try same.restore(json)
        #expect(same.app.window.visibleScreen?["itemId"] == 7)
        try same.restore(document.json)
        #expect(try same.snapshot() == json)

        // Another key, no signature, any value altered: refused, the app as before.
        let checking = try runtime(key: key)
        let before = checking.app.stateDescription
        func refused(_ text: String, by runtime: ScriptRuntime, _ message: String) {
            let error = #expect(throws: SnapshotError.self) { try runtime.restore(text) }
            #expect(error?.message == message)
        }
        let mismatch = "the snapshot's signature does not match its content: it was altered, or signed with another key"
        refused(json, by: try runtime(key: other), mismatch)
        refused(json.replacingOccurrences(of: "\"payload\": 7", with: "\"payload\": 8"), by: checking, mismatch)
        refused(json.replacingOccurrences(of: "\"itemId\": 7", with: "\"itemId\": 7.0"), by: checking, mismatch)
        let unsigned = try runtime(key: nil).snapshot()
        refused(unsigned, by: checking, "the snapshot is not signed, and this runtime restores only snapshots signed with its key")
        #expect(checking.app.stateDescription == before)

        // A runtime without a key reads signed and unsigned snapshots alike (and checks neither).
        try runtime(key: nil).restore(json)

        // Keys: at least 16 bytes; from a file, one line end at its end is not part of the key.
        #expect(throws: SnapshotError.self) { try SnapshotKey(Array("short".utf8)) }
        let file = try folder.write("key", String(decoding: key, as: UTF8.self) + "\n")
        let fromFile = try ScriptRuntime(driverFunctions: true)
        fromFile.snapshotKey = try SnapshotKey(contentsOf: file)
        try fromFile.load(script: script)
        try fromFile.restore(json)
        #expect(fromFile.app.window.visibleStack.map(\.name) == ["List", "Item"])
        let missing = #expect(throws: SnapshotError.self) { try SnapshotKey(contentsOf: folder.path + "/none") }
        #expect(missing?.message.contains("cannot read the snapshot key") == true)
    }
}
