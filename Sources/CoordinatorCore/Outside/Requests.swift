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
    /// What of an answer's value is secret (a sign-in's token): never recorded in ``Application/steps``, so
    /// never written into a snapshot; a snapshot's restore asks for it again. An answer that gives no
    /// value (the outcome's example) records nothing secret.
    public let secret: SecretParts

    /// A kind of request answering one of `outcomes`, of whose values `secret` is never recorded.
    public init(_ kind: String, outcomes: [(name: String, example: FlowValue)], secret: SecretParts = .nothing) {
        (self.kind, self.outcomes, self.secret) = (kind, outcomes, secret)
    }

    /// An answer's value as ``Application/steps`` records it: each secret part replaced by
    /// `{"$secret": name}` (the field's name, or the request's kind for a whole secret value).
    package func recorded(_ value: FlowValue?) -> FlowValue? { secret.recorded(value, wholeName: kind) }

    /// The example value of `outcome`, or nil when it declares no such outcome.
    public func example(of outcome: String) -> FlowValue? { outcomes.first { $0.name == outcome }?.example }

    public static func == (a: RequestDeclaration, b: RequestDeclaration) -> Bool {
        a.kind == b.kind && a.outcomes.map(\.name) == b.outcomes.map(\.name) && a.outcomes.map(\.example) == b.outcomes.map(\.example) && a.secret == b.secret
    }
}

/// The requests of an app (``Application/requests``): the kinds it declares, and the requests its
/// coordinators started that wait for their answers, oldest first. Every change is undone with a failed
/// operation.
package final class RequestBook {
    /// The kinds of request the outside answers, by kind.
    package private(set) var declarations: [String: RequestDeclaration] = [:]
    /// The requests waiting for their answers, oldest first.
    package private(set) var pending: [PendingRequest] = []
    let context: AppContext
    weak var app: Application?

    init(context: AppContext) { self.context = context }

    /// Declares a kind of request (a declaration of that kind again replaces it).
    func declare(_ request: RequestDeclaration) {
        let old = declarations[request.kind]
        declarations[request.kind] = request
        context.journal.recordAlways(.custom(born: 0) { [weak self] in self?.declarations[request.kind] = old })
    }

    /// An undeclared kind's error, listing those declared.
    func unknown(_ kind: String) -> NavigationError {
        let known = declarations.keys.sorted()
        let declared = known.isEmpty ? "the app declares none" : "requests: " + known.joined(separator: ", ")
        return NavigationError(.unknownRequest, "no request '\(kind)' (" + declared + "; declare one with flow.request)")
    }

    /// Starts a request of `kind` for `owner` (inside its operation): pending until the outside answers.
    func start(_ kind: String, payload: FlowValue?, owner: Coordinator, in app: Application) throws -> PendingRequest {
        guard declarations[kind] != nil else { throw unknown(kind) }
        record()
        let request = PendingRequest(id: context.nextID(), kind: kind, payload: payload, owner: owner, book: self)
        pending.append(request)
        app.emit(.requestStarted(kind, id: request.id, by: owner.info))
        return request
    }

    /// The kind of the pending request numbered `id` and its place among those of its kind, or nil.
    func position(of id: Int) -> (kind: String, nth: Int)? {
        guard let request = pending.first(where: { $0.id == id }),
              let nth = pending.filter({ $0.kind == request.kind }).firstIndex(where: { $0 === request }) else { return nil }
        return (request.kind, nth)
    }

    /// Delivers an answer (``Application/answer(_:nth:outcome:value:)``): the request leaves the pending
    /// ones, then its handler hears the outcome and the value (the outcome's example when nil).
    func deliverAnswer(_ kind: String, nth: Int, outcome: String, value: FlowValue?, in app: Application) throws {
        guard let declaration = declarations[kind] else { throw unknown(kind) }
        guard let example = declaration.example(of: outcome) else {
            throw NavigationError(.unknownRequest, """
                request \(kind) has no outcome '\(outcome)' (outcomes: \
                \(declaration.outcomes.map(\.name).joined(separator: ", ")))
                """)
        }
        let waiting = pending.filter { $0.kind == kind }
        guard waiting.indices.contains(nth) else {
            throw NavigationError(
                .unknownRequest,
                waiting.isEmpty ? "no request \(kind) is pending" : "there are \(waiting.count) requests \(kind) pending, not \(nth &+ 1)"
            )
        }
        let request = waiting[nth]
        let handler = request.handler
        remove(request)
        app.emit(.requestAnswered(kind, outcome: outcome, heard: handler != nil))
        try handler?(outcome, value ?? example)
    }

    /// Takes `request` out of the pending ones (answered, cancelled), its handler released.
    func remove(_ request: PendingRequest) {
        guard let index = pending.firstIndex(where: { $0 === request }) else { return }
        record()
        pending.remove(at: index)
        request.handler = nil
    }

    /// Cancels every request `owner` started (it finished): their answers will be dropped.
    func cancelRequests(of owner: Coordinator) {
        guard pending.contains(where: { $0.owner === owner }) else { return }
        record()
        for request in pending where request.owner === owner { request.handler = nil }
        pending.removeAll { $0.owner === owner }
    }

    func setHandler(_ handler: ((String, FlowValue?) throws -> Void)?, of request: PendingRequest) {
        record()
        request.handler = handler
    }

    /// Notes the pending requests and their handlers, for the running operation's undo (a few: copied whole).
    private func record() {
        guard context.journal.isOpen else { return }
        let saved = pending.map { ($0, $0.handler) }
        context.journal.recordAlways(.custom(born: 0) { [weak self] in
            guard let self else { return }
            pending = saved.map(\.0)
            for (request, handler) in saved { request.handler = handler }
        })
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
    private weak var book: RequestBook?

    init(id: Int, kind: String, payload: FlowValue?, owner: Coordinator, book: RequestBook) {
        (self.id, self.kind, self.payload, self.owner, self.book) = (id, kind, payload, owner, book)
    }

    /// Whether it still waits for its answer.
    public var isPending: Bool { book?.pending.contains { $0 === self } ?? false }

    /// Sets what hears its answer (replacing the last), as one operation: undone with a failed one.
    public func onResult(_ handler: ((String, FlowValue?) throws -> Void)?) throws {
        guard let book, let app = book.app else { return }
        try app.atomically { book.setHandler(handler, of: self) }
    }

    /// Cancels it: its answer, if one comes, is dropped. Undone with a failed operation.
    public func cancel() throws {
        guard let book, let app = book.app else { return }
        try app.atomically { book.remove(self) }
    }
}
