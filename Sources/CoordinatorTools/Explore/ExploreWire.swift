import CoordinatorCore
import CoordinatorScript

/// A line on the wire that is not a request, answer or outcome of an exploration (a worker of another
/// version, a damaged row).
package struct ExploreWireError: CoordinatorError, Equatable {
    /// What is wrong with the line.
    package var message: String

    init(_ message: String) { self.message = message }
}

/// The wire between an exploration and its workers (`coordrun explore --workers N`, `--queue`): a request
/// is a state to expand (its path and identity) as one line of JSON, the answer what expanding it gave as
/// one line of JSON; both read back unchanged, whatever carries them (a pipe, a database row).
extension ExploreRequest {
    /// The request as a line of JSON (no newline).
    public var line: String {
        FlowValue.record(["index": .int(index), "path": Explorer.value(of: path), "key": .string(key)]).json
    }

    /// The request a ``line`` wrote.
    public init(line: String) throws {
        let value = try FlowValue(json: line)
        guard let index = value["index"]?.intValue, let key = value["key"]?.stringValue else {
            throw ExploreWireError("explore: a request without its state's index and key")
        }
        self.init(index: index, path: try Explorer.path(from: value["path"] ?? []), key: key)
    }
}

extension Explorer {
    /// A worker's answer to a request line: what expanding the state gave, or why it could not be expanded
    /// (``Expansion/init(answer:)`` throws with that reason), as one line of JSON.
    public func answer(_ request: String) -> String {
        Self.answering { try expand(ExploreRequest(line: request)) }
    }

    /// A worker's answer to a request: what expanding its state gave, or why it could not be expanded, as one line of JSON.
    public func answer(_ request: ExploreRequest) -> String { Self.answering { try expand(request) } }

    /// A worker's answers to a batch of requests (a level's states, in its order), a line each: expanded
    /// together (``expand(_:expanded:)``: a branching runtime reaches them without replaying their paths).
    /// `expanded` hears of each state as its expansion is done.
    public func answers(_ requests: [ExploreRequest], expanded: () -> Void = {}) -> [String] {
        expand(requests, expanded: expanded).map { result in Self.answering { try result.get() } }
    }

    private func expand(_ request: ExploreRequest) throws -> Expansion { try expand(request.path, expecting: request.key) }

    /// The answer line of an expansion, or of the reason it failed.
    private static func answering(_ expansion: () throws -> Expansion) -> String {
        do { return try expansion().value.json } catch { return FlowValue.record(["failed": .string("\(error)")]).json }
    }
}

extension ExploreExpansion {
    /// The expansion as a JSON value.
    package var value: FlowValue {
        var fields: FlowRecord = ["actions": .int(actionCount), "outcomes": .list(outcomes.map(\.value))]
        if !leftAlive.isEmpty { fields["leftAlive"] = .list(leftAlive.map(FlowValue.string)) }
        if freshRuntimes > 0 { fields["fresh"] = .int(freshRuntimes) }
        return .record(fields)
    }

    /// The expansion an answer line (a worker's answer to a request) gives; throws the worker's reason when it
    /// could not expand the state.
    public init(answer line: String) throws {
        let value = try FlowValue(json: line)
        if let message = value["failed"]?.stringValue { throw Explorer.WorkerFailure(message: message) }
        guard let count = value["actions"]?.intValue else { throw ExploreWireError("explore: an answer without its action count") }
        self.init(actionCount: count, outcomes: try (value["outcomes"]?.listValue ?? []).map { try Explorer.Outcome(value: $0) },
                  leftAlive: value["leftAlive"]?.listValue?.compactMap(\.stringValue) ?? [], freshRuntimes: value["fresh"]?.intValue ?? 0)
    }
}

extension Explorer {
    /// Why a worker could not go on: a state it could not expand, or the worker itself stopping.
    package struct WorkerFailure: Error, CustomStringConvertible {
        /// What went wrong, for the user.
        package let message: String
        /// A failure saying `message`.
        package init(message: String) { self.message = message }
        package var description: String { message }
    }
}

extension ExploreOutcome {
    /// The outcome as a JSON value.
    package var value: FlowValue {
        var fields: FlowRecord = ["action": AppSnapshot.value(of: action)]
        switch result {
        case .failed(let message): fields["error"] = .string(message)
        case .state(let seen): fields["state"] = seen.value
        case .cut(let kind, let waiting): fields["cut"] = ["kind": .string(kind), "waiting": .int(waiting)]
        }
        if let unhandled { fields["unhandled"] = [.string(unhandled.screen), .string(unhandled.output)] }
        if !violations.isEmpty { fields["violations"] = .list(violations.map(FlowValue.string)) }
        if let laterFailure { fields["laterFailure"] = .string(laterFailure) }
        return .record(fields)
    }

    /// The outcome `value` describes (what ``value`` wrote).
    package init(value: FlowValue) throws {
        guard let action = value["action"] else { throw ExploreWireError("explore: an outcome without its action") }
        self.action = try AppSnapshot.step(from: action, number: 1)
        if let message = value["error"]?.stringValue {
            result = .failed(message)
        } else if let state = value["state"] {
            result = .state(try Explorer.StateSeen(value: state))
        } else if let cut = value["cut"], let kind = cut["kind"]?.stringValue, let waiting = cut["waiting"]?.intValue {
            result = .cut(kind: kind, waiting: waiting)
        } else {
            throw ExploreWireError("explore: an outcome with neither a state, an error nor a cut")
        }
        if let pair = value["unhandled"]?.listValue, pair.count == 2, let screen = pair[0].stringValue, let output = pair[1].stringValue {
            unhandled = (screen, output)
        } else {
            unhandled = nil
        }
        violations = value["violations"]?.listValue?.compactMap(\.stringValue) ?? []
        laterFailure = value["laterFailure"]?.stringValue
    }
}

extension ExploredState {
    /// The state as a JSON value.
    package var value: FlowValue {
        var fields: FlowRecord = ["key": .string(key), "screen": .string(screen), "owner": .string(owner), "modal": .bool(inModal),
                                  "gateway": .string(gateway), "shown": .list(shownTypes.map(FlowValue.string))]
        if let tab { fields["tab"] = .string(tab) }
        if let title { fields["title"] = .string(title) }
        if let modal { fields["presentation"] = .string(modal) }
        if viewed { fields["viewed"] = true }
        if !brokenInvariants.isEmpty {
            fields["broken"] = .list(brokenInvariants.map { broken in
                var entry: FlowRecord = ["name": .string(broken.name)]
                if let failure = broken.failure { entry["failure"] = .string(failure) }
                return .record(entry)
            })
        }
        if !goals.isEmpty { fields["goals"] = .list(goals.map(FlowValue.string)) }
        if let propertyFault { fields["propertyFault"] = .string(propertyFault) }
        if isStop { fields["stop"] = true }
        return .record(fields)
    }

    /// The state `value` describes.
    package init(value: FlowValue) throws {
        guard let key = value["key"]?.stringValue else { throw ExploreWireError("explore: a state without its key") }
        self.init(key: key, viewed: value["viewed"]?.boolValue ?? false, screen: value["screen"]?.stringValue ?? "",
                  title: value["title"]?.stringValue, owner: value["owner"]?.stringValue ?? "",
                  modal: value["presentation"]?.stringValue ?? (value["modal"]?.boolValue == true ? Presentation().description : nil),
                  tab: value["tab"]?.stringValue,
                  gateway: value["gateway"]?.stringValue ?? "", shownTypes: value["shown"]?.listValue?.compactMap(\.stringValue) ?? [])
        brokenInvariants = (value["broken"]?.listValue ?? []).compactMap { entry in
            entry["name"]?.stringValue.map { BrokenInvariant(name: $0, failure: entry["failure"]?.stringValue) }
        }
        goals = value["goals"]?.listValue?.compactMap(\.stringValue) ?? []
        propertyFault = value["propertyFault"]?.stringValue
        isStop = value["stop"]?.boolValue ?? false
    }
}

extension Explorer {
    /// A path as a JSON value (its steps as a snapshot writes them).
    package static func value(of path: [UserStep]) -> FlowValue { .list(path.map(AppSnapshot.value(of:))) }
    /// The path a JSON value of ``value(of:)`` describes.
    package static func path(from value: FlowValue) throws -> [UserStep] {
        try (value.listValue ?? []).enumerated().map { try AppSnapshot.step(from: $1, number: $0 + 1) }
    }
}

extension ExploreReport {
    /// An empty report for `script` whose first state is the exploration's base, to take expansions in with
    /// ``record(_:from:maxStates:)`` (``ExploreLevels``).
    init(script: String, base: Explorer.StateSeen, limits: Explorer.Options, itemLabels: [String: String] = [:],
         properties: [(kind: PropertyKind, name: String, location: String)] = [], idiom: Idiom = .phone) {
        self.init(script: script, limits: limits)
        (self.idiom, self.idioms) = (idiom, [idiom])
        self.itemLabels = itemLabels
        self.declaredProperties = properties
        addState(base, path: [])
    }
}
