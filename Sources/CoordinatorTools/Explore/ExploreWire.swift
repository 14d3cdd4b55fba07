import CoordinatorScript

/// What worker processes of `coordrun explore --workers N` send back: each expanded state's outcomes as
/// one line of JSON, and the paths they are given, as values that read back unchanged.
extension Explorer.Outcome {
    /// The outcome as a JSON value.
    public var value: FlowValue {
        var fields: FlowRecord = ["action": AppSnapshot.value(of: action)]
        switch result {
        case .failed(let message): fields["error"] = .string(message)
        case .state(let seen): fields["state"] = seen.value
        }
        if let unhandled { fields["unhandled"] = [.string(unhandled.screen), .string(unhandled.output)] }
        if !violations.isEmpty { fields["violations"] = .list(violations.map(FlowValue.string)) }
        return .record(fields)
    }

    /// The outcome `value` describes (what ``value`` wrote).
    public init(value: FlowValue) throws {
        guard let action = value["action"] else { throw NavigationError(.badSnapshot, "explore: an outcome without its action") }
        self.action = try AppSnapshot.step(from: action, number: 1)
        if let message = value["error"]?.stringValue {
            result = .failed(message)
        } else if let state = value["state"] {
            result = .state(try Explorer.StateSeen(value: state))
        } else {
            throw NavigationError(.badSnapshot, "explore: an outcome with neither a state nor an error")
        }
        if let pair = value["unhandled"]?.listValue, pair.count == 2, let screen = pair[0].stringValue, let output = pair[1].stringValue {
            unhandled = (screen, output)
        } else {
            unhandled = nil
        }
        violations = value["violations"]?.listValue?.compactMap(\.stringValue) ?? []
    }
}

extension Explorer.StateSeen {
    /// The state as a JSON value.
    public var value: FlowValue {
        var fields: FlowRecord = ["key": .string(key), "screen": .string(screen), "owner": .string(owner), "modal": .bool(inModal),
                                  "gateway": .string(gateway), "shown": .list(shownTypes.map(FlowValue.string))]
        if let tab { fields["tab"] = .string(tab) }
        if let title { fields["title"] = .string(title) }
        if viewed { fields["viewed"] = true }
        return .record(fields)
    }

    /// The state `value` describes.
    public init(value: FlowValue) throws {
        guard let key = value["key"]?.stringValue else { throw NavigationError(.badSnapshot, "explore: a state without its key") }
        self.init(key: key, viewed: value["viewed"]?.boolValue ?? false, screen: value["screen"]?.stringValue ?? "",
                  title: value["title"]?.stringValue, owner: value["owner"]?.stringValue ?? "",
                  inModal: value["modal"]?.boolValue ?? false, tab: value["tab"]?.stringValue,
                  gateway: value["gateway"]?.stringValue ?? "", shownTypes: value["shown"]?.listValue?.compactMap(\.stringValue) ?? [])
    }
}

extension Explorer {
    /// A path as a JSON value (its steps as a snapshot writes them).
    public static func value(of path: [UserStep]) -> FlowValue { .list(path.map(AppSnapshot.value(of:))) }
    /// The path a JSON value of ``value(of:)`` describes.
    public static func path(from value: FlowValue) throws -> [UserStep] {
        try (value.listValue ?? []).enumerated().map { try AppSnapshot.step(from: $1, number: $0 + 1) }
    }
}

extension ExploreReport {
    /// An empty report for `script` whose first state is the exploration's base: for a host that expands
    /// states elsewhere (worker processes) and takes the outcomes in with ``record(_:actionCount:from:maxStates:)``.
    public init(script: String, base: Explorer.StateSeen, limits: Explorer.Options, itemLabels: [String: String] = [:]) {
        self.init(script: script, limits: limits)
        self.itemLabels = itemLabels
        addState(base, path: [])
    }
}
