// A client of a language server over the Language Server Protocol: JSON-RPC 2.0 messages, each after a
// `Content-Length` header, on a child process's standard input and output. The messages are Swift types,
// encoded and decoded by FoundationEssentials' JSON coders (linked into coordrun already, through the tools).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One language server, talked to as an editor does: requests and notifications out, messages in.
struct LanguageServerClient {
    /// Why talking to the server failed.
    struct Failure: Error, CustomStringConvertible { let description: String }

    /// The server's name, for messages.
    let name: String
    let child: Processes.Child
    /// How long the whole conversation may take (a watchdog ends the server after it), for messages.
    let timeout: Double

    /// Sends `message`.
    func send(_ message: some Encodable) throws {
        let body: Data
        do { body = try JSONEncoder().encode(message) } catch {
            throw Failure(description: "a message for \(name) that cannot be written: \(error)")
        }
        guard Processes.send("Content-Length: \(body.count)\r\n\r\n" + String(decoding: body, as: UTF8.self), to: child) else {
            throw Failure(description: "\(name) stopped reading")
        }
    }

    /// The next message from the server.
    func receive() throws -> LanguageServerMessage {
        var length = -1
        while let line = Processes.readLine(from: child) {
            let header = line.hasSuffix("\r") ? String(line.dropLast()) : line
            if header.isEmpty { break }
            if header.lowercased().hasPrefix("content-length:") {
                length = Int(header.dropFirst("content-length:".count).drop { $0 == " " }) ?? -1
            }
        }
        guard length >= 0, let bytes = Processes.read(length, from: child) else {
            throw Failure(description: "\(name) ended or did not answer within \(Int(timeout)) s")
        }
        do { return try JSONDecoder().decode(LanguageServerMessage.self, from: Data(bytes)) } catch {
            throw Failure(description: "a message of \(name) that is not JSON-RPC coordrun reads: \(error)")
        }
    }

    /// Answers a request of the server's own (its settings, a progress token) as an editor with no settings
    /// of its own does: an empty settings object for each item asked, else `null`.
    func answer(_ request: LanguageServerMessage) throws {
        guard let id = request.id else { return }
        if request.method == "workspace/configuration" {
            try send(Response(id: id, result: Array(repeating: EmptyObject(), count: request.params?.items?.count ?? 0)))
        } else {
            try send(Response<EmptyObject>(id: id, result: nil))
        }
    }
}

/// What the protocol gives as `integer | string`: a message's id, a diagnostic's code.
enum IntegerOrString: Codable, Equatable {
    case number(Int)
    case string(String)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) { self = .number(number) } else { self = .string(try container.decode(String.self)) }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let number): try container.encode(number)
        case .string(let string): try container.encode(string)
        }
    }
}

/// A request to the server.
struct Request<Params: Encodable>: Encodable {
    var jsonrpc = "2.0"
    let id: IntegerOrString
    let method: String
    let params: Params
}

/// A notification to the server.
struct Notification<Params: Encodable>: Encodable {
    var jsonrpc = "2.0"
    let method: String
    let params: Params
}

/// An answer to one of the server's requests: its `result`, `null` when nil.
struct Response<Result: Encodable>: Encodable {
    let id: IntegerOrString
    let result: Result?

    private enum CodingKeys: String, CodingKey { case jsonrpc, id, result }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("2.0", forKey: .jsonrpc)
        try container.encode(id, forKey: .id)
        if let result { try container.encode(result, forKey: .result) } else { try container.encodeNil(forKey: .result) }
    }
}

/// `{}`.
struct EmptyObject: Codable {}

/// `initialize`'s parameters: the workspace (one folder) and what the client can do, as an editor that shows
/// diagnostics and answers the server's configuration and progress requests.
struct InitializeParams: Encodable {
    struct Folder: Encodable { let uri: String; let name: String }
    struct ClientInfo: Encodable { let name: String }
    struct Capabilities: Encodable {
        struct TextDocument: Encodable { let publishDiagnostics = EmptyObject() }
        struct Window: Encodable { let workDoneProgress = true }
        struct Workspace: Encodable { let configuration = true; let workspaceFolders = true }
        let textDocument = TextDocument()
        let window = Window()
        let workspace = Workspace()
    }
    let processId: Int
    let rootUri: String
    let workspaceFolders: [Folder]
    let clientInfo: ClientInfo
    let capabilities = Capabilities()
}

/// `textDocument/didOpen`'s parameters: a file's text, as an editor opens it.
struct DidOpenParams: Encodable {
    struct TextDocument: Encodable {
        let uri: String
        let languageId: String
        let version: Int
        let text: String
    }
    let textDocument: TextDocument
}

/// A message from the server, with the parts coordrun reads: a response (an `id`, no `method`), a request of
/// its own (both), or a notification (a `method` only). Parameters of another shape read as none.
struct LanguageServerMessage: Decodable {
    let id: IntegerOrString?
    let method: String?
    let params: Params?

    /// The parameters coordrun reads: `workspace/configuration`'s items, `$/progress`'s value,
    /// `textDocument/publishDiagnostics`'s file and diagnostics.
    struct Params: Decodable {
        let items: [EmptyObject]?
        let value: ProgressValue?
        let uri: String?
        let diagnostics: [Diagnostic]?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            items = try? container.decodeIfPresent([EmptyObject].self, forKey: .items)
            value = try? container.decodeIfPresent(ProgressValue.self, forKey: .value)
            uri = try? container.decodeIfPresent(String.self, forKey: .uri)
            diagnostics = try container.decodeIfPresent([Diagnostic].self, forKey: .diagnostics)
        }

        private enum CodingKeys: String, CodingKey { case items, value, uri, diagnostics }
    }

    /// A progress report's value: `begin`, `report` or `end`.
    struct ProgressValue: Decodable { let kind: String? }

    /// One diagnostic: where (0-based line), its code (a number or a text) and its message.
    struct Diagnostic: Decodable {
        struct Range: Decodable { let start: Position }
        struct Position: Decodable { let line: Int }
        let range: Range
        let code: IntegerOrString?
        let message: String
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(IntegerOrString.self, forKey: .id)
        method = try container.decodeIfPresent(String.self, forKey: .method)
        params = try? container.decodeIfPresent(Params.self, forKey: .params)
    }

    private enum CodingKeys: String, CodingKey { case id, method, params }
}
