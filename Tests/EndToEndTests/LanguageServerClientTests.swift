import Foundation
import Testing
@testable import coordrun

/// `coordrun check`'s LSP messages as Swift types: what a server sends is read whatever JSON-RPC allows
/// (ids as numbers or strings, `null` where a field is absent, codes as numbers or text, parameters of other
/// methods), and what coordrun sends is the JSON the protocol says (`"result": null` written out).
@Suite struct LanguageServerClientTests {
    func decode(_ json: String) throws -> LanguageServerMessage {
        try JSONDecoder().decode(LanguageServerMessage.self, from: Data(json.utf8))
    }

    @Test func messagesWithNullsStringIdsAndOtherParametersAreRead() throws {
        let response = try decode(#"{"jsonrpc":"2.0","id":1,"result":{"capabilities":{}},"error":null}"#)
        #expect(response.id == .number(1) && response.method == nil && response.params == nil)
        let request = try decode(#"{"jsonrpc":"2.0","id":"cfg-7","method":"workspace/configuration","params":{"items":[{"section":"Lua"},{}]}}"#)
        #expect(request.id == .string("cfg-7") && request.params?.items?.count == 2)
        let progress = try decode(#"{"jsonrpc":"2.0","method":"$/progress","params":{"token":"load","value":{"kind":"end","message":null}}}"#)
        #expect(progress.id == nil && progress.params?.value?.kind == "end")
        // Parameters of a shape coordrun does not read (an array) read as none, not as a failure.
        let other = try decode(#"{"jsonrpc":"2.0","method":"window/logMessage","params":[1,2]}"#)
        #expect(other.method == "window/logMessage" && other.params == nil)
        let diagnostics = try decode(#"""
            {"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"file:///p/app.lua","version":null,
             "diagnostics":[{"range":{"start":{"line":4,"character":2},"end":{"line":4,"character":9}},"code":"undefined-global",
             "severity":2,"message":"undefined global `stak`","source":null},
             {"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"code":null,"message":"no code"},
             {"range":{"start":{"line":1,"character":0},"end":{"line":1,"character":1}},"code":1001,"message":"a number"}]}}
            """#)
        let found = try #require(diagnostics.params?.diagnostics)
        #expect(diagnostics.params?.uri == "file:///p/app.lua" && found.count == 3)
        #expect(found[0].range.start.line == 4 && found[0].code == .string("undefined-global") && found[0].message == "undefined global `stak`")
        #expect(found[1].code == nil && found[2].code == .number(1001))
    }

    @Test func whatCoordrunSendsIsTheProtocolsJSON() throws {
        func object(_ value: some Encodable) throws -> NSDictionary {
            let data = try JSONEncoder().encode(value)
            return try #require(try JSONSerialization.jsonObject(with: data) as? NSDictionary)
        }
        let empty = try object(Response<EmptyObject>(id: .string("x"), result: nil))
        #expect(empty["jsonrpc"] as? String == "2.0" && empty["id"] as? String == "x" && empty["result"] is NSNull)
        let settings = try object(Response(id: .number(3), result: [EmptyObject(), EmptyObject()]))
        #expect((settings["result"] as? [Any])?.count == 2 && settings["id"] as? Int == 3)
        let initialize = try object(Request(id: .number(1), method: "initialize", params: InitializeParams(
            processId: 42, rootUri: "file:///p", workspaceFolders: [.init(uri: "file:///p", name: "workspace")],
            clientInfo: .init(name: "coordrun check"))))
        let params = try #require(initialize["params"] as? NSDictionary)
        #expect(initialize["method"] as? String == "initialize" && params["processId"] as? Int == 42)
        let capabilities = try #require(params["capabilities"] as? NSDictionary)
        #expect((capabilities["workspace"] as? NSDictionary)?["configuration"] as? Bool == true)
        let open = try object(Notification(method: "textDocument/didOpen", params: DidOpenParams(
            textDocument: .init(uri: "file:///p/a.lua", languageId: "lua", version: 1, text: "print(\"\\u{0}\")\n"))))
        #expect(open["id"] == nil && ((open["params"] as? NSDictionary)?["textDocument"] as? NSDictionary)?["text"] as? String == "print(\"\\u{0}\")\n")
    }
}
