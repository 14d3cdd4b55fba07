import CoordinatorCore

/// How a front answers requests from Swift (``ScriptSession/registerRequest(_:_:)``,
/// ``ScriptHost/registerRequest(_:_:)``): the handlers by kind, the requests handed to one while they are
/// pending, the answers on their way, and why a handler answered nothing. It lives in its front's
/// isolation; the tasks it starts come back through the front's own calls.
final class RequestAnswering {
    /// What a host's handler answers: an outcome the kind declares, and a value (nil: its example).
    typealias Handler = @Sendable (FlowValue?) async throws -> (outcome: String, value: FlowValue?)

    private var handlers: [String: Handler] = [:]
    /// The requests handed to a handler, while they are pending.
    private var dispatched: Set<Int> = []
    /// The answers on their way, by request.
    private var inFlight: [Int: Task<Void, Never>] = [:]
    /// Why handlers answered nothing, in order.
    private(set) var errors: [String] = []

    var isEmpty: Bool { handlers.isEmpty }
    var inFlightCount: Int { inFlight.count }
    var anyInFlight: Task<Void, Never>? { inFlight.values.first }

    func register(_ kind: String, _ handler: @escaping Handler) { handlers[kind] = handler }

    /// Hands each of `pending` a registered handler answers, and that none has yet, to its handler in a task
    /// of its own: `answer` gives the answer back on the front (false: no longer pending, dropped),
    /// `settled` says the task is done, with the handler's error if it threw.
    func dispatch(_ pending: [PendingRequest],
                  answer: @escaping @Sendable (Int, String, FlowValue?) async throws -> Void,
                  settled: @escaping @Sendable (Int, String?) async -> Void) {
        guard !handlers.isEmpty else { return }
        dispatched.formIntersection(pending.map(\.id))
        for request in pending where !dispatched.contains(request.id) {
            guard let handler = handlers[request.kind] else { continue }
            let (id, kind, payload) = (request.id, request.kind, request.payload)
            dispatched.insert(id)
            inFlight[id] = Task {
                do {
                    let (outcome, value) = try await handler(payload)
                    try await answer(id, outcome, value)
                    await settled(id, nil)
                } catch {
                    await settled(id, "request \(kind)#\(id): \(error)")
                }
            }
        }
    }

    /// The task for request `id` is done (`error`: why it answered nothing).
    func settle(_ id: Int, error: String?) {
        inFlight[id] = nil
        if let error { errors.append(error) }
    }
}
