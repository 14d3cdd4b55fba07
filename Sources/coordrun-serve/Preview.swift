import CoordinatorServer
import CoordinatorOptions
import CoordinatorTools
import Foundation
import Synchronization

/// The one session every page shows and drives: its runtime, REPL and ``PreviewSession`` live on this
/// actor, so the actions of all pages run one after another, each under the time limit; every change is
/// sent to every page that listens (``subscribe()``).
actor Preview {
    private let session: PreviewSession
    /// The pages listening for changes, by number.
    private var listeners: [Int: AsyncStream<String>.Continuation] = [:]
    private var nextListener = 0
    /// The state the pages were sent last, which the next message is a patch of.
    private var sent: FlowRecord?
    /// The state as JSON after the last action (or reload, or graph): what `GET /state` answers at once,
    /// also while an action runs on this actor (a page that reloads is never kept waiting by a step).
    private let latest: Mutex<String>
    /// Watches the scripts (``reloadIfSaved()``).
    private let watcher: FileWatcher
    /// The flow graph drawn last, with the scripts' texts it was explored from.
    private var graph: (sources: [String: String], svg: String)?
    /// The flow graph being explored, with the scripts' texts it explores.
    private var drawingGraph: (sources: [String: String], task: Task<(FlowGraph, String), any Error>)?
    private let script: String
    private let limits: RuntimeLimits
    /// The storage the session began with: where the flow graph's exploration starts.
    private let initialStorage: FlowRecord

    /// Loads `script` under `limits` and starts its app where `start` says (a snapshot's secrets from the
    /// environment), with a REPL whose lines run under `timeLimit`.
    init(script: String, limits: RuntimeLimits, timeLimit: Double?, start: AppStart, snapshotKey: SnapshotKey? = nil) throws {
        /// The app's start, also for the fresh runtimes time travel makes.
        let startUp = { @Sendable (runtime: ScriptRuntime) throws in
            try runtime.lua.withTimeLimit(timeLimit) { _ = try start.start(runtime, secrets: SecretText.fromEnvironment) }
        }
        let runtime = try limits.runtime(stateNamed: start.state, driverFunctions: true, timed: timeLimit != nil)
        runtime.snapshotKey = snapshotKey
        try ExitGuard.install(in: runtime, message: ExitGuard.serverMessage)
        try start.useStorage(in: runtime)
        start.useIdiom(in: runtime)
        try runtime.load(script: script)
        let initialStorage = runtime.initialStorage
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
            let fresh = try limits.runtime(stateNamed: start.state, driverFunctions: true, timed: timeLimit != nil)
            fresh.snapshotKey = snapshotKey
            fresh.lua.sourceOverrides = sources
            // The storage the session began with (the file's store is taken over once travel succeeds).
            try fresh.seedStorage(initialStorage)
            start.useIdiom(in: fresh)
            try ExitGuard.install(in: fresh, message: ExitGuard.serverMessage)
            try fresh.silencingPrint {
                try fresh.load(script: script)
                try startUp(fresh)
            }
            return fresh
        }
        self.script = script
        self.limits = limits
        self.initialStorage = initialStorage
        session = PreviewSession(repl: repl)
        sink.session = session
        latest = Mutex(session.state)
        watcher = FileWatcher(paths: runtime.scriptFiles)
    }

    /// The app as the page shows it (``PreviewSession/state``) after the last action that ended: answered
    /// without waiting for one that runs.
    nonisolated func state() -> String { latest.withLock { $0 } }

    /// Runs a page's action (JSON): the new state, sent to every page, or the reason the request was
    /// refused (nothing ran).
    func perform(_ json: String) -> Result<String, PreviewSession.BadAction> {
        do {
            try session.run(json: json)
            return .success(broadcast())
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
    /// says which node the app shows. The exploration runs off this actor (in runtimes of its own, within 10
    /// seconds and 1,000 states), so the pages' actions go on meanwhile; pages that ask while it runs wait
    /// for the same one.
    func graphSVG() async throws -> String {
        let sources = session.repl.runtime.sources
        if let graph, graph.sources == sources { return graph.svg }
        let drawing: Task<(FlowGraph, String), any Error>
        if let running = drawingGraph, running.sources == sources {
            drawing = running.task
        } else {
            let script = script, limits = limits, storage = initialStorage
            drawing = Task.detached {
                var options = Explorer.Options()
                (options.depth, options.maxStates, options.timeLimit) = (12, 1_000, 10)
                let explorer = try Explorer(options: options) {
                    let runtime = try limits.runtime(timed: true)
                    try Explorer.prepare(runtime)
                    runtime.lua.sourceOverrides = sources
                    if !storage.isEmpty { try runtime.seedStorage(storage) }
                    try runtime.load(script: script)
                    return runtime
                }
                let flow = FlowGraph(try explorer.run())
                switch Graphviz.svg({ flow.dot(clustered: $0) }) {
                case .success(let svg): return (flow, svg)
                case .failure(let why): throw PreviewSession.BadAction(message: "the flow graph could not be drawn (\(why))")
                }
            }
            drawingGraph = (sources, drawing)
        }
        defer { if drawingGraph?.sources == sources { drawingGraph = nil } }
        let (flow, svg) = try await drawing.value
        graph = (sources, svg)
        session.flowGraph = flow
        broadcast()
        return svg
    }


    /// A stream of the states to come, starting with the current one, for a page that listens; the
    /// number ends it (``unsubscribe(_:)``).
    func subscribe() -> (AsyncStream<String>, Int) {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(4))
        nextListener += 1
        listeners[nextListener] = continuation
        let document = session.document
        continuation.yield(FlowValue.record(document).json)
        if sent == nil { sent = document }
        return (stream, nextListener)
    }

    func unsubscribe(_ number: Int) {
        listeners.removeValue(forKey: number)?.finish()
    }

    /// Reloads the scripts when one was saved since the last look (`--watch`), and shows every page the
    /// result and the reload's report.
    func reloadIfSaved() {
        guard watcher.changed() else { return }
        session.reload()
        broadcast()
        watcher.paths = session.repl.runtime.scriptFiles // a reload may require other modules
    }

    /// The state now, as JSON; every listening page is sent what changed since the state sent last
    /// (``PreviewSession/patch(from:to:)``), however long the session.
    @discardableResult
    private func broadcast() -> String {
        let document = session.document
        if !listeners.isEmpty {
            let message = sent.map { PreviewSession.patch(from: $0, to: document) } ?? FlowValue.record(document).json
            for continuation in listeners.values { continuation.yield(message) }
        }
        sent = document
        let json = FlowValue.record(document).json
        latest.withLock { $0 = json }
        return json
    }
}

/// The preview's pages and requests: `GET /` the page, `GET /state` the app as JSON, `POST /action` an
/// action, `GET /snapshot` the app as a snapshot to download, `GET /graph.svg` the flow graph, `GET /live` a
/// WebSocket of every change (``BoundedServer`` upgrades it). Every request passes the ``Gate`` first;
/// anything else is a clear error; a refused action changes nothing.
struct PreviewHandler: RequestHandler {
    let preview: Preview
    /// Who may reach it: every request passes here first.
    let gate: Gate
    /// The most bytes a request's body may hold (an action: ``PreviewSession/maximumActionBytes``).
    var bodyLimit: Int { PreviewSession.maximumActionBytes }
    /// The WebSocket of every change.
    var livePath: String? { "/live" }

    /// Refused by the gate, on the head alone.
    func refusal(_ request: Request) -> Request.Refused? {
        gate.refusal(request).map { Request.Refused(status: $0.status, message: $0.message) }
    }

    /// Every state of the preview from now on.
    func subscribe() async -> LiveFeed {
        let (states, listener) = await preview.subscribe()
        return LiveFeed(messages: states) { [preview] in await preview.unsubscribe(listener) }
    }

    /// The answer to `request`: refused by the gate, or what the preview gives.
    func answer(_ request: Request) async -> Response {
        if let refusal = gate.refusal(request) { return finish(.error(refusal.status, refusal.message)) }
        return finish(await page(request))
    }

    /// `response` with the headers every answer carries: never inside another site's frame (clickjacking),
    /// never read as another type than it says, no referrer.
    func finish(_ response: Response) -> Response {
        var response = response
        response.headers += [("X-Frame-Options", "DENY"), ("Content-Security-Policy", "frame-ancestors 'none'"),
                             ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer")]
        return response
    }

    /// The answer to a request the gate let through.
    private func page(_ request: Request) async -> Response {
        switch (request.method, request.path) {
        case ("GET", "/"), ("GET", "/index.html"):
            return Response(status: 200, headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")],
                            body: Array(Page.html(token: gate.token).utf8))
        case ("GET", "/state"):
            return .json(200, preview.state())
        case ("POST", "/action"):
            guard request.header("content-length") != nil else { return .error(411, "an action needs a Content-Length") }
            guard let text = String(validating: request.body, as: UTF8.self) else { return .error(400, "the action is not UTF-8 text") }
            switch await preview.perform(text) {
            case .success(let state): return .json(200, state)
            case .failure(let bad): return .error(400, bad.message)
            }
        case ("GET", "/snapshot"):
            do {
                return Response(status: 200, headers: [("Content-Type", "application/json"), ("Content-Disposition", "attachment; filename=\"snapshot.json\"")],
                                body: Array(try await preview.snapshot().utf8))
            } catch {
                return .error(409, REPL.message(for: error))
            }
        case ("GET", "/graph.svg"):
            do {
                return Response(status: 200, headers: [("Content-Type", "image/svg+xml"), ("Cache-Control", "no-store")],
                                body: Array(try await preview.graphSVG().utf8))
            } catch {
                return .error(503, (error as? PreviewSession.BadAction)?.message ?? REPL.message(for: error))
            }
        case ("GET", "/live"):
            return .error(426, "/live is a WebSocket: connect with Upgrade: websocket")
        case (_, "/"), (_, "/state"), (_, "/action"), (_, "/snapshot"), (_, "/graph.svg"), (_, "/live"):
            return .error(405, "\(request.method) \(request.path) is not a request the preview takes")
        default:
            return .error(404, "the preview has no page \(request.path) (/, /state, /action, /snapshot, /graph.svg, /live)")
        }
    }
}
