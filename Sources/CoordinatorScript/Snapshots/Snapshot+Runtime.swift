import CoordinatorCore
import CoordinatorLua

/// Snapshots of the whole app (``AppSnapshot``), taken and restored.
///
/// Restoring replays what the user did (the snapshot's steps) in the same scripts, then puts back the data
/// the steps do not rebuild, then checks that the app is the snapshot. Replaying, because a screen's
/// handlers are closures its coordinator made while it ran (`s.onOpen = function() ... end` inside `start`
/// or inside another handler, capturing its locals): only running the same code in the same order makes
/// them again, and every flow on the way then runs, wires its handlers and holds its own state exactly as
/// when the user went there. The data overlay covers what came from elsewhere than the steps (a line typed
/// in the REPL, a host's update); the check makes a snapshot whose steps now build another app an error,
/// never a half-restored app.
extension ScriptRuntime {
    /// The identity of the scripts this runtime loaded (``AppSnapshot``): a snapshot restores only into the
    /// same scripts.
    public var scriptsDigest: String { AppSnapshot.digest(of: files.compactMap(\.text)) }

    /// The whole app's state as a JSON document (``AppSnapshot``): the format, the scripts' identity, the
    /// gateway's state, every container and screen with its inputs, every coordinator with its class and
    /// the plain data it keeps in `self`, and the steps that led there.
    public func snapshot() throws -> String {
        guard !app.stepsOverflowed else {
            throw NavigationError(.badSnapshot, "the app took more than \(app.maximumSteps) steps since it started, so its steps no longer lead to where it is: no snapshot (Application.maximumSteps raises the limit)")
        }
        let state = try capture()
        let script = files.first(where: { $0.module == nil }).map { String($0.path.split(separator: "/").last ?? "") } ?? ""
        var fields = state.document.fields.map { ($0.key, $0.value) }
        fields.append(("format", .int(AppSnapshot.format)))
        fields.append(("app", ["script": .string(script), "digest": .string(scriptsDigest)]))
        fields.append(("start", ["gateway": .string(app.startState.rawValue)]))
        fields.append(("steps", .list(app.steps.map(AppSnapshot.value(of:)))))
        return FlowValue.record(FlowRecord(fields)).prettyJSON + "\n"
    }

    /// The app as a document (gateway, window, coordinators), with the live screens, tab containers and
    /// coordinators in the order the document lists them.
    package struct Capture {
        package var document: FlowRecord
        var screens: [Screen] = []
        var tabs: [TabContainer] = []
        var coordinators: [Coordinator] = []
    }

    /// `data`: with each coordinator's `self` data (what a state's identity in exploration leaves out).
    package func capture(data: Bool = true) throws -> Capture {
        var result = Capture(document: [:])
        var position: [ObjectIdentifier: Int] = [:]
        var coordinators: [FlowValue] = []
        var parents: [Int?] = []
        var pending: [(Coordinator, Int?)] = app.root.map { [($0, nil)] } ?? []
        while let (coordinator, parent) = pending.popLast() {
            result.coordinators.append(coordinator)
            parents.append(parent)
            let index = result.coordinators.count
            position[ObjectIdentifier(coordinator)] = index
            for child in coordinator.children.reversed() { pending.append((child, index)) }
        }
        let states = data ? try states(of: result.coordinators) : []
        for (i, coordinator) in result.coordinators.enumerated() {
            var fields: [(String, FlowValue)] = [("class", .string(coordinator.name))]
            if let parent = parents[i] { fields.append(("parent", .int(parent))) }
            if data {
                fields.append(("data", states[i].data))
                if !states[i].skipped.isEmpty { fields.append(("skipped", .list(states[i].skipped.map(FlowValue.string)))) }
            }
            coordinators.append(.record(FlowRecord(fields)))
        }
        func screen(_ screen: Screen) -> FlowValue {
            result.screens.append(screen)
            var fields: [(String, FlowValue)] = [("type", .string(screen.name)), ("inputs", .record(screen.inputs))]
            if let owner = screen.owner, let index = position[ObjectIdentifier(owner)] { fields.append(("owner", .int(index))) }
            return .record(FlowRecord(fields))
        }
        func stack(_ stack: NavigationStack) -> [(String, FlowValue)] {
            var fields: [(String, FlowValue)] = [("stack", .list(stack.screens.map(screen)))]
            if stack.barHidden { fields.append(("barHidden", true)) }
            return fields
        }
        func container(_ container: Presentable) -> FlowValue {
            switch container {
            case let one as NavigationStack: return .record(FlowRecord(stack(one)))
            case let tabs as TabContainer:
                result.tabs.append(tabs)
                let list: [FlowValue] = tabs.stacks.indices.map { i in
                    var fields = stack(tabs.stacks[i]) + [("title", .string(tabs.titles[i]))]
                    if let badge = tabs.badges[i] { fields.append(("badge", badge)) }
                    return .record(FlowRecord(fields))
                }
                return ["tabs": .list(list), "selected": .int(tabs.selectedIndex + 1)]
            case let alone as Screen: return ["screen": screen(alone)]
            default: return ["container": .string(container.containerName)]
            }
        }
        let window: FlowValue = ["root": container(app.window.root), "modals": .list(app.window.modals.map(container))]
        result.document = ["gateway": .string(app.gateway.state.rawValue), "window": window, "coordinators": .list(coordinators)]
        return result
    }

    /// Each coordinator's `self` data as the prelude encodes it (one encoding for all: a table two
    /// coordinators share is written once), and the names of the fields it left out.
    func states(of coordinators: [Coordinator]) throws -> [(data: FlowValue, skipped: [String])] {
        let empty = (data: FlowValue.record([:]), skipped: [String]())
        guard coordinators.contains(where: { ($0 as? ScriptedCoordinator)?.instance != nil }) else {
            return coordinators.map { _ in empty }
        }
        let encoded = try stateCodecFunctions().encode.call(instances(of: coordinators), as: [FlowValue].self)
        return coordinators.indices.map { i in
            guard i < encoded.count else { return empty }
            let data = encoded[i]["data"] ?? .record([:])
            return (data.listValue?.isEmpty == true ? .record([:]) : data, encoded[i]["skipped"]?.listValue?.compactMap(\.stringValue) ?? [])
        }
    }

    /// A Lua list of the coordinators' instances (false for one without).
    func instances(of coordinators: [Coordinator]) throws -> LuaTable {
        let list = try lua.newTable()
        for (i, coordinator) in coordinators.enumerated() {
            if let instance = (coordinator as? ScriptedCoordinator)?.instance { try list.set(i + 1, instance) } else { try list.set(i + 1, false) }
        }
        return list
    }
}
