/// A kind of work done outside the flows that answers later: a sign-in through an API, loading a profile.
/// Declared by kind with the outcomes it may answer and an example value of each (what a test's or
/// exploration's answer carries when it gives none).
///
/// ```swift
/// app.declare(RequestDeclaration("signIn", outcomes: [("ok", ["user": "Ann"]), ("failed", ["error": "offline"])]))
/// let request = try login.request("signIn", payload: ["name": "Ann"])
/// try request.onResult { outcome, value in ... }
/// try app.answer("signIn", outcome: "ok")
/// ```
public struct RequestDeclaration: Sendable, Equatable {
    /// Its kind (`signIn`).
    public let kind: String
    /// The outcomes it may answer, in order, each with its example value.
    public let outcomes: [(name: String, example: FlowValue)]

    /// A kind of request answering one of `outcomes`.
    public init(_ kind: String, outcomes: [(name: String, example: FlowValue)]) {
        (self.kind, self.outcomes) = (kind, outcomes)
    }

    /// The example value of `outcome`, or nil when it declares no such outcome.
    public func example(of outcome: String) -> FlowValue? { outcomes.first { $0.name == outcome }?.example }

    public static func == (a: RequestDeclaration, b: RequestDeclaration) -> Bool {
        a.kind == b.kind && a.outcomes.map(\.name) == b.outcomes.map(\.name) && a.outcomes.map(\.example) == b.outcomes.map(\.example)
    }
}

/// A request a coordinator started (``Coordinator/request(_:payload:)``), waiting for the outside to
/// answer it. It belongs to that coordinator: when it finishes, the request is cancelled and its answer,
/// if one comes, is dropped. An answer is a step of its own (``Application/answer(_:nth:outcome:value:)``),
/// never part of the operation that started the request.
public final class PendingRequest {
    /// A number that identifies it in the app.
    public let id: Int
    /// Its kind.
    public let kind: String
    /// What it asked.
    public let payload: FlowValue?
    /// The coordinator that started it.
    public private(set) weak var owner: Coordinator?
    /// What hears its answer (outcome, value); nil: nobody yet.
    var handler: ((String, FlowValue?) throws -> Void)?
    private weak var app: Application?

    init(id: Int, kind: String, payload: FlowValue?, owner: Coordinator, app: Application) {
        (self.id, self.kind, self.payload, self.owner, self.app) = (id, kind, payload, owner, app)
    }

    /// Whether it still waits for its answer.
    public var isPending: Bool { app?.pendingRequests.contains { $0 === self } ?? false }

    /// Sets what hears its answer (replacing the last), as one operation: undone with a failed one.
    public func onResult(_ handler: ((String, FlowValue?) throws -> Void)?) throws {
        guard let app else { return }
        try app.atomically { app.setHandler(handler, of: self) }
    }

    /// Cancels it: its answer, if one comes, is dropped. Undone with a failed operation.
    public func cancel() throws {
        guard let app else { return }
        try app.atomically { app.removeRequest(self) }
    }
}

extension Application {
    /// Takes `request` out of the pending ones (answered, cancelled, its coordinator finished), its handler
    /// released. Undone with the operation.
    func removeRequest(_ request: PendingRequest) {
        guard let index = pendingRequests.firstIndex(where: { $0 === request }) else { return }
        recordRequests()
        pendingRequests.remove(at: index)
        request.handler = nil
    }

    /// Cancels every request `owner` started (it finished): their answers will be dropped.
    func cancelRequests(of owner: Coordinator) {
        guard pendingRequests.contains(where: { $0.owner === owner }) else { return }
        recordRequests()
        for request in pendingRequests where request.owner === owner { request.handler = nil }
        pendingRequests.removeAll { $0.owner === owner }
    }

    func setHandler(_ handler: ((String, FlowValue?) throws -> Void)?, of request: PendingRequest) {
        recordRequests()
        request.handler = handler
    }

    /// Notes the pending requests and their handlers, for the running operation's undo (a few: copied whole).
    func recordRequests() {
        guard context.journal.isOpen else { return }
        let saved = pendingRequests.map { ($0, $0.handler) }
        context.journal.recordAlways(.custom(born: 0) { [weak self] in
            guard let self else { return }
            pendingRequests = saved.map(\.0)
            for (request, handler) in saved { request.handler = handler }
        })
    }
}
