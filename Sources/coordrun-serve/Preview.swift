import CoordinatorOptions
import CoordinatorTools
import FlyingFox
import Foundation

/// The one session every page shows and drives: its runtime, REPL and ``PreviewSession`` live on this
/// actor, so the actions of all pages run one after another, each under the time limit; every change is
/// sent to every page that listens (``subscribe()``).
actor Preview {
    private let session: PreviewSession
    /// The pages listening for changes, by number.
    private var listeners: [Int: AsyncStream<WSMessage>.Continuation] = [:]
    private var nextListener = 0
    /// Watches the scripts (``reloadIfSaved()``).
    private let watcher: FileWatcher
    /// The flow graph drawn last, with the scripts' texts it was explored from.
    private var graph: (sources: [String: String], svg: String)?
    private let script: String
    private let limits: RuntimeLimits

    /// Loads `script` under `limits` and starts its app (where `restore` was taken, at the first of
    /// `links`, or at its start; then the other links), with a REPL whose lines run under `timeLimit`.
    init(script: String, limits: RuntimeLimits, timeLimit: Double?, restore: String?, links: [String]) throws {
        /// The app's start, also for the fresh runtimes time travel makes.
        let startUp = { @Sendable (runtime: ScriptRuntime) throws in
            try runtime.lua.withTimeLimit(timeLimit) {
                var rest = links[...]
                if let restore { try runtime.restore(contentsOf: restore) }
                else if let first = rest.popFirst() { try runtime.open(first) }
                else { try runtime.start() }
                for link in rest { try runtime.open(link) }
            }
        }
        let runtime = try limits.runtime(driverFunctions: true, timed: timeLimit != nil)
        try ExitGuard.install(in: runtime, message: ExitGuard.serverMessage)
        try runtime.load(script: script)
        let events = EventLog(app: runtime.app) // before the start: the page lists what the start did
        try startUp(runtime)
        final class Sink { var session: PreviewSession? }
        let sink = Sink()
        let repl = try REPL(runtime: runtime, mode: .repl, style: .plain,
                            output: REPL.Output(write: { sink.session?.capture(text: $0) }, error: { sink.session?.capture(error: $0) }),
                            events: events)
        repl.timeLimit = timeLimit
        // The project is the main script's folder: the pages' `:record` writes test files there and nowhere
        // else (nothing at all in the sandbox).
        repl.fileWrites = .testsInside(folder: LuaState.directory(of: script))
        repl.makeFreshRuntime = { sources in
            let fresh = try limits.runtime(driverFunctions: true, timed: timeLimit != nil)
            fresh.lua.sourceOverrides = sources
            try ExitGuard.install(in: fresh, message: ExitGuard.serverMessage)
            try fresh.silencingPrint {
                try fresh.load(script: script)
                try startUp(fresh)
            }
            return fresh
        }
        self.script = script
        self.limits = limits
        session = PreviewSession(repl: repl)
        sink.session = session
        watcher = FileWatcher(paths: runtime.scriptFiles)
    }

    /// The app as the page shows it (``PreviewSession/state``).
    func state() -> String { session.state }

    /// Runs a page's action (JSON): the new state, sent to every page, or the reason the request was
    /// refused (nothing ran).
    func perform(_ json: String) -> Result<String, PreviewSession.BadAction> {
        do {
            let state = try session.perform(json: json)
            broadcast(state)
            return .success(state)
        } catch let bad as PreviewSession.BadAction {
            return .failure(bad)
        } catch {
            return .failure(PreviewSession.BadAction(message: "\(error)"))
        }
    }

    /// The app as a snapshot.
    func snapshot() throws -> String { try session.snapshot() }

    /// The app's flow graph as SVG (Graphviz's `dot`), explored on first request and again after the scripts
    /// changed: each node a state's screen, each edge an action (docs/Explore.md); the state's `graphNode`
    /// says which node the app shows.
    func graphSVG() throws -> String {
        let sources = session.repl.runtime.sources
        if let graph, graph.sources == sources { return graph.svg }
        var options = Explorer.Options()
        (options.depth, options.maxStates, options.timeLimit) = (12, 1_000, 10)
        let script = script, limits = limits
        let explorer = try Explorer(options: options) {
            let runtime = try limits.runtime(timed: true)
            try Explorer.prepare(runtime)
            runtime.lua.sourceOverrides = sources
            try runtime.load(script: script)
            return runtime
        }
        let flow = FlowGraph(try explorer.run())
        let svg = try Self.dot(flow.dot)
        graph = (sources, svg)
        session.flowGraph = flow
        broadcast(session.state)
        return svg
    }

    /// `dot -Tsvg` of `text`.
    private static func dot(_ text: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["dot", "-Tsvg"]
        let (input, output) = (Pipe(), Pipe())
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let svg = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PreviewSession.BadAction(message: "Graphviz's dot could not draw the flow graph (status \(process.terminationStatus); Debian's graphviz package has it)")
        }
        return String(decoding: svg, as: UTF8.self)
    }

    /// A stream of the states to come, starting with the current one, for a page that listens; the
    /// number ends it (``unsubscribe(_:)``).
    func subscribe() -> (AsyncStream<WSMessage>, Int) {
        let (stream, continuation) = AsyncStream<WSMessage>.makeStream(bufferingPolicy: .bufferingNewest(4))
        nextListener += 1
        listeners[nextListener] = continuation
        continuation.yield(.text(session.state))
        return (stream, nextListener)
    }

    func unsubscribe(_ number: Int) {
        listeners.removeValue(forKey: number)?.finish()
    }

    /// Reloads the scripts when one was saved since the last look (`--watch`), and shows every page the
    /// result and the reload's report.
    func reloadIfSaved() {
        guard watcher.changed() else { return }
        broadcast(session.reload())
        watcher.paths = session.repl.runtime.scriptFiles // a reload may require other modules
    }

    private func broadcast(_ state: String) {
        for continuation in listeners.values { continuation.yield(.text(state)) }
    }
}

/// The preview's pages and requests: `GET /` the page, `GET /state` the app as JSON, `POST /action` an
/// action, `GET /snapshot` the app as a snapshot to download, `GET /live` a WebSocket of every change.
/// Anything else is a clear error; a refused action changes nothing.
struct PreviewHandler: HTTPHandler {
    let preview: Preview
    /// Who may reach it: every request passes here first.
    let gate: Gate

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        var response: HTTPResponse
        if let refusal = gate.refusal(method: request.method.rawValue, path: request.path,
                                      header: { request.headers[HTTPHeader($0)] },
                                      query: { name in request.query.first { $0.name == name }?.value }) {
            response = Self.error(HTTPStatusCode(refusal.status, phrase: refusal.status == 415 ? "Unsupported Media Type" : "Forbidden"), refusal.message)
        } else {
            response = try await answer(request)
        }
        // Never inside another site's frame (clickjacking), never read as another type than it says.
        response.headers[HTTPHeader("X-Frame-Options")] = "DENY"
        response.headers[HTTPHeader("Content-Security-Policy")] = "frame-ancestors 'none'"
        response.headers[HTTPHeader("X-Content-Type-Options")] = "nosniff"
        response.headers[HTTPHeader("Referrer-Policy")] = "no-referrer"
        return response
    }

    /// The answer to a request the gate let through.
    private func answer(_ request: HTTPRequest) async throws -> HTTPResponse {
        switch (request.method, request.path) {
        case (.GET, "/"), (.GET, "/index.html"):
            return HTTPResponse(statusCode: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"], body: Data(Page.html(token: gate.token).utf8))
        case (.GET, "/state"):
            return Self.json(.ok, await preview.state())
        case (.POST, "/action"):
            guard let length = request.headers[.contentLength].flatMap({ Int($0) }) else {
                return Self.error(.lengthRequired, "an action needs a Content-Length")
            }
            guard length <= PreviewSession.maximumActionBytes else {
                return Self.error(.payloadTooLarge, "the action is \(length) bytes, over the \(PreviewSession.maximumActionBytes >> 20) MiB an action may hold")
            }
            guard let text = String(data: try await request.bodyData, encoding: .utf8) else {
                return Self.error(.badRequest, "the action is not UTF-8 text")
            }
            switch await preview.perform(text) {
            case .success(let state): return Self.json(.ok, state)
            case .failure(let bad): return Self.error(.badRequest, bad.message)
            }
        case (.GET, "/snapshot"):
            do {
                return HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json", .contentDisposition: "attachment; filename=\"snapshot.json\""],
                                    body: Data(try await preview.snapshot().utf8))
            } catch {
                return Self.error(.conflict, REPL.message(for: error))
            }
        case (.GET, "/graph.svg"):
            do {
                return HTTPResponse(statusCode: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "no-store"],
                                    body: Data(try await preview.graphSVG().utf8))
            } catch {
                return Self.error(.serviceUnavailable, (error as? PreviewSession.BadAction)?.message ?? REPL.message(for: error))
            }
        case (.GET, "/live"):
            return try await WebSocketHTTPHandler.webSocket(LiveUpdates(preview: preview)).handleRequest(request)
        case (_, "/"), (_, "/state"), (_, "/action"), (_, "/snapshot"), (_, "/graph.svg"), (_, "/live"):
            return Self.error(.methodNotAllowed, "\(request.method.rawValue) \(request.path) is not a request the preview takes")
        default:
            return Self.error(.notFound, "the preview has no page \(request.path) (/, /state, /action, /snapshot, /graph.svg, /live)")
        }
    }

    static func json(_ status: HTTPStatusCode, _ text: String) -> HTTPResponse {
        HTTPResponse(statusCode: status, headers: [.contentType: "application/json", .cacheControl: "no-store"], body: Data(text.utf8))
    }

    static func error(_ status: HTTPStatusCode, _ message: String) -> HTTPResponse {
        json(status, FlowValue.record(["error": .string(message)]).json)
    }
}

/// A page's WebSocket: every state of the app from now on, starting with the current one.
struct LiveUpdates: WSMessageHandler {
    let preview: Preview

    func makeMessages(for client: AsyncStream<WSMessage>) async throws -> AsyncStream<WSMessage> {
        let (states, number) = await preview.subscribe()
        Task { [preview] in
            for await _ in client {} // what a page sends is not read: actions are requests
            await preview.unsubscribe(number)
        }
        return states
    }
}
