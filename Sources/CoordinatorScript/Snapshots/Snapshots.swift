import CoordinatorCore
import CoordinatorLua

/// Snapshots of the whole app (``AppSnapshot``), taken and restored (``ScriptRuntime/snapshot()``,
/// ``ScriptRuntime/restore(_:)``); the part of a runtime that keeps the snapshot codec.
///
/// Restoring replays what the user did (the snapshot's steps) in the same scripts, then puts back the data
/// the steps do not rebuild, then checks that the app is the snapshot. Replaying, because a screen's
/// handlers are closures its coordinator made while it ran (`s.onOpen = function() ... end` inside `start`
/// or inside another handler, capturing its locals): only running the same code in the same order makes
/// them again, and every flow on the way then runs, wires its handlers and holds its own state exactly as
/// when the user went there. The data overlay covers what came from elsewhere than the steps (a line typed
/// in the REPL, a host's update); the check makes a snapshot whose steps now build another app an error,
/// never a half-restored app.
package final class Snapshots {
    /// The codec of the coordinators' `self` data (``StateCodec``): compiled at the first snapshot or
    /// restore, not by every runtime that starts (it would be a third of a runtime's start-up).
    var codec: StateCodec.Loaded = .none
    /// The key that signs the snapshots taken and must have signed those restored (``SnapshotKey``).
    var key: SnapshotKey?
    /// The states noted after each number of steps, to drop the steps' loops (``ScriptRuntime/dropsStepLoops``).
    let loops = StepLoops()

    /// The whole app's state as a JSON document (``AppSnapshot``): the format, the scripts' identity, the
    /// gateway's state, every container and screen with its inputs, every coordinator with its class and
    /// the plain data it keeps in `self`, and the steps that led there.
    func take(of runtime: ScriptRuntime) throws -> String {
        let app = runtime.app
        guard !app.stepsOverflowed else {
            throw SnapshotError(.tooManySteps, """
                the app took more than \(app.maximumSteps) steps since it started, so its steps no longer lead to \
                where it is: no snapshot (Application.maximumSteps raises the limit)
                """)
        }
        if runtime.dropsStepLoops { try loops.settle(in: runtime) }
        let state = try capture(of: runtime)
        let script = runtime.files.mains.first.map { String($0.path.split(separator: "/").last ?? "") } ?? ""
        var fields = state.document.fields.map { ($0.key, $0.value) }
        fields.append(("format", .int(AppSnapshot.format)))
        fields.append(("app", ["script": .string(script), "digest": .string(runtime.files.digest)]))
        var start: FlowRecord = ["gateway": .string(app.startState.rawValue)]
        if app.startSizeClass != .regular { start["sizeClass"] = .string(app.startSizeClass.rawValue) }
        if !app.startStorage.isEmpty { start["storage"] = .record(app.startStorage) }
        fields.append(("start", .record(start)))
        fields.append(("steps", .list(app.steps.map(AppSnapshot.value(of:)))))
        if runtime.dropsStepLoops { fields.append(("stateKeys", loops.noted(in: app.stepLog))) }
        var document = FlowRecord(fields)
        if let key { document = FlowRecord(fields + [(SnapshotKey.field, .string(key.signature(of: document)))]) }
        return FlowValue.record(document).prettyJSON + "\n"
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
    /// `windowNumbers`: the windows with their numbers; without, the current one by its place among them
    /// (a state's identity: numbers are ids no flow sees, as a coordinator's are).
    package func capture(of runtime: ScriptRuntime, data: Bool = true, windowNumbers: Bool = true) throws -> Capture {
        let app = runtime.app
        var result = Capture(document: [:])
        var position: [ObjectIdentifier: Int] = [:]
        var coordinators: [FlowValue] = []
        var parents: [Int?] = []
        // Every window's tree, in the windows' order.
        var pending: [(Coordinator, Int?)] = app.roots.reversed().map { ($0, nil) }
        while let (coordinator, parent) = pending.popLast() {
            result.coordinators.append(coordinator)
            parents.append(parent)
            let index = result.coordinators.count
            position[ObjectIdentifier(coordinator)] = index
            for child in coordinator.children.reversed() { pending.append((child, index)) }
        }
        let states = data ? try states(of: result.coordinators, in: runtime) : []
        // Each coordinator's pending timers, by the time left (never the clock itself: a repeating timer
        // comes back to the same state).
        var timers: [ObjectIdentifier: [FlowValue]] = [:]
        for timer in app.clock.timers {
            guard let owner = timer.owner else { continue }
            var entry: FlowRecord = ["in": .double((max(0, timer.due - app.clock.now) * 1e6).rounded() / 1e6)]
            if let period = timer.period { entry["every"] = .double(period) }
            timers[ObjectIdentifier(owner), default: []].append(.record(entry))
        }
        for (i, coordinator) in result.coordinators.enumerated() {
            var fields: [(String, FlowValue)] = [("class", .string(coordinator.name))]
            if let parent = parents[i] { fields.append(("parent", .int(parent))) }
            if let pending = timers[ObjectIdentifier(coordinator)] { fields.append(("timers", .list(pending))) }
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
        func container(_ shown: Presentable) -> FlowValue {
            switch shown {
            case let one as NavigationStack: return .record(FlowRecord(stack(one)))
            case let tabs as TabContainer:
                result.tabs.append(tabs)
                let list: [FlowValue] = tabs.stacks.indices.map { i in
                    // A tab that holds pages or a split: those, in the place of its stack.
                    var fields: [(String, FlowValue)] = stack(tabs.stacks[i])
                    if let content = tabs.contents[i], let inner = container(content).recordValue {
                        fields = inner.fields.map { ($0.key, $0.value) }
                    }
                    fields.append(("title", .string(tabs.titles[i])))
                    if let badge = tabs.badges[i] { fields.append(("badge", badge)) }
                    if tabs.isAction(i) { fields.append(("action", true)) } // a button: no stack of its own
                    return .record(FlowRecord(fields))
                }
                return ["tabs": .list(list), "selected": .int(tabs.selectedIndex + 1)]
            case let split as SplitContainer:
                var fields: [(String, FlowValue)] = []
                for (column, one) in zip(split.columns, split.stacks) { fields.append((column.rawValue, .record(FlowRecord(stack(one))))) }
                return ["split": .record(FlowRecord(fields))]
            case let pages as PageContainer:
                let list: [FlowValue] = pages.stacks.indices.map { i in
                    .record(FlowRecord(stack(pages.stacks[i]) + [("title", .string(pages.titles[i]))]))
                }
                return ["pages": .list(list), "selected": .int(pages.selectedIndex + 1)]
            case let alone as Screen: return ["screen": screen(alone)]
            default: return ["container": .string(shown.containerName)]
            }
        }
        /// A modal, with how it is presented when that is not a page sheet the user may swipe away.
        func modal(_ modal: Presentable) -> FlowValue {
            var value = container(modal)
            let shown = modal.presentation
            if shown != Presentation(), case .record(var fields) = value {
                var presentation: FlowRecord = ["style": .string(shown.style.rawValue), "dismissable": .bool(shown.dismissable)]
                if !shown.detents.isEmpty { presentation["detents"] = .list(shown.detents.map(FlowValue.string)) }
                fields["presentation"] = .record(presentation)
                value = .record(fields)
            }
            return value
        }
        func document(of window: Window) -> FlowRecord {
            var fields: FlowRecord = ["root": container(window.root), "modals": .list(window.modals.map(modal))]
            // The width is state where it shows: a compact window collapses a split (and a step made it so).
            if window.sizeClass != .regular { fields["sizeClass"] = .string(window.sizeClass.rawValue) }
            return fields
        }
        let windows = app.windows.all
        result.document = ["gateway": .string(app.gateway.state.rawValue), "window": .record(document(of: windows[0]))]
        // Several windows (an iPad's scenes): the first is `window`, the others are listed with their numbers,
        // and which one the user acts on.
        if windows.count > 1 {
            result.document["windows"] = .list(windows.dropFirst().map { window in
                var fields = document(of: window)
                if windowNumbers { fields["number"] = .int(window.number) }
                return .record(fields)
            })
            let place = (windows.firstIndex { $0 === app.window } ?? 0) + 1
            result.document["currentWindow"] = .int(windowNumbers ? app.window.number : place)
        }
        result.document["coordinators"] = .list(coordinators)
        // The device, where it is not a phone: fixed for a launch, a restore runs on the snapshot's.
        if app.idiom != .phone { result.document["idiom"] = .string(app.idiom.rawValue) }
        // The storage but its secret keys, where it holds something.
        let storage = app.storage.withoutSecrets
        if !storage.isEmpty { result.document["storage"] = .record(storage) }
        // A link held until the app is in the state its route requires.
        if let held = runtime.heldLink { result.document["heldLink"] = .string(held) }
        return result
    }

    /// Each coordinator's `self` data as the prelude encodes it (one encoding for all: a table two
    /// coordinators share is written once), and the names of the fields it left out.
    private func states(of coordinators: [Coordinator], in runtime: ScriptRuntime) throws -> [(data: FlowValue, skipped: [String])] {
        let empty = (data: FlowValue.record([:]), skipped: [String]())
        guard coordinators.contains(where: { ($0 as? ScriptedCoordinator)?.instance != nil }) else {
            return coordinators.map { _ in empty }
        }
        let encoded = try codecFunctions(runtime.lua, module: runtime.scriptModule.table).encode.call(
            instances(of: coordinators, in: runtime.lua),
            as: [FlowValue].self
        )
        return coordinators.indices.map { i in
            guard i < encoded.count else { return empty }
            let data = encoded[i]["data"] ?? .record([:])
            return (data.listValue?.isEmpty == true ? .record([:]) : data, encoded[i]["skipped"]?.listValue?.compactMap(\.stringValue) ?? [])
        }
    }

    /// A Lua list of the coordinators' instances (false for one without).
    private func instances(of coordinators: [Coordinator], in lua: LuaState) throws -> LuaTable {
        let list = try lua.newTable()
        for (i, coordinator) in coordinators.enumerated() {
            if let instance = (coordinator as? ScriptedCoordinator)?.instance { try list.set(i + 1, instance) } else { try list.set(i + 1, false) }
        }
        return list
    }

    /// Rebuilds the app a snapshot describes (``snapshot()``), in place of the app this runtime runs, as one
    /// atomic operation: the same scripts are required (the format and the scripts' digest are checked
    /// first), the snapshot's steps are taken again from the app's start, the data they do not rebuild is
    /// set, and the result must equal the snapshot. Any failure is an error that says where, and the app is
    /// as it was.
    ///
    /// In a fresh runtime (`coordrun --restore FILE`) the result is the snapshotted app; in one that ran
    /// before, data the scripts keep outside coordinators (a file-level local) is what this runtime has.
    ///
    /// A step that carried a secret (``SnapshotSecret``: a payload's, an answer's, a storage secret's value)
    /// gets it from `secrets`; without it, such a snapshot is refused with the secret named.
    ///
    /// A snapshot of other scripts (its digest names others: code changed, not only comments and layout)
    /// is restored when its steps still build the same app in these, with a warning (returned) that says
    /// so; else the error says both.
    func restore(_ json: String, into runtime: ScriptRuntime, secrets: ((SnapshotSecret) throws -> FlowValue)? = nil) throws -> RestoreWarning? {
        let document: FlowValue
        do { document = try FlowValue(json: json) } catch { throw SnapshotError(.malformed, "snapshot: \(error.message)") }
        guard case .record(let fields) = document else { throw SnapshotError(.malformed, "snapshot: not a JSON object") }
        try key?.check(fields) // before anything it says is believed
        guard let format = fields["format"]?.intValue else { throw SnapshotError(.malformed, "snapshot: it has no format (is it a snapshot?)") }
        guard format == AppSnapshot.format else {
            throw SnapshotError(.otherFormat, "snapshot format \(format) is not one this runtime reads (it reads format \(AppSnapshot.format))")
        }
        let digest = fields["app"]?["digest"]?.stringValue ?? "none"
        let otherScripts = runtime.files.areNamed(by: digest) ? nil
            : "the snapshot was taken of other scripts (\(fields["app"]?["script"]?.stringValue ?? "?"), \(digest); these are \(runtime.files.digest))"
        do {
            try replay(fields, into: runtime, secrets: secrets)
            loops.restore(fields["stateKeys"], in: runtime.app.stepLog)
        } catch where otherScripts != nil {
            let message = (error as? any CoordinatorError)?.message ?? (error as? LuaError)?.message ?? "\(error)"
            throw SnapshotError(.otherScripts, (otherScripts ?? "") + ", and it does not restore into these: " + message)
        }
        return otherScripts.map {
            RestoreWarning(message: $0 + "; its steps build the same app in these, so it was restored: check that it is the app you meant")
        }
    }

    /// Takes the snapshot's steps again from the app's start and sets the data they do not rebuild, as one
    /// operation (``restore(_:into:secrets:)``).
    private func replay(_ fields: FlowRecord, into runtime: ScriptRuntime, secrets: ((SnapshotSecret) throws -> FlowValue)?) throws {
        let app = runtime.app
        var expected = FlowRecord.Builder()
        for key in ["gateway", "window", "coordinators"] {
            guard let value = fields[key] else { throw SnapshotError(.malformed, "snapshot: it has no \(key)") }
            expected.add(key, value)
        }
        if let held = fields["heldLink"] { expected.add("heldLink", held) }
        for key in ["windows", "currentWindow"] { if let value = fields[key] { expected.add(key, value) } }
        let idiom = try fields["idiom"].map { value in
            guard let idiom = value.stringValue.flatMap(Idiom.init(rawValue:)) else {
                throw SnapshotError(.malformed, "snapshot: its idiom is \"phone\" or \"pad\", not \(value)")
            }
            return idiom
        } ?? .phone
        if idiom != .phone { expected.add("idiom", .string(idiom.rawValue)) }
        if let storage = fields["storage"] {
            guard storage.recordValue != nil else { throw SnapshotError(.malformed, "snapshot: its storage is not a record") }
            expected.add("storage", storage)
        }
        let wanted = FlowValue.record(expected.finish())
        let steps = try (fields["steps"]?.listValue ?? []).enumerated().map { try AppSnapshot.step(from: $1, number: $0 + 1) }
        let startState = fields["start"]?["gateway"]?.stringValue.map { AppState($0) } ?? app.gateway.state
        let startWidth = fields["start"]?["sizeClass"]?.stringValue.flatMap(SizeClass.init(rawValue:)) ?? .regular
        let startStorage = fields["start"]?["storage"] ?? .record([:])
        guard case .record(let storage) = startStorage else { throw SnapshotError(.malformed, "snapshot: its start's storage is not a record") }
        try app.atomically {
            // The steps begin where the app started: in its gateway state, as wide, with the storage it had
            // (its secret keys as they are here: a snapshot never holds them). Scripts that ran with other
            // storage run again first, as a new process with it would run them.
            try runtime.reset(to: startState, width: startWidth, storage: storage, keepingSecrets: true, idiom: idiom, starting: true)
            for (i, recorded) in steps.enumerated() {
                let step = try Self.withSecrets(recorded, number: i + 1, in: app, from: secrets)
                do {
                    try app.perform(step)
                } catch {
                    // The step as recorded: a secret put back is not shown.
                    throw SnapshotError(.notRebuilt, "restoring: step \(i + 1), \(recorded.luaSource), fails now: \(error)")
                }
            }
            let replayed = try capture(of: runtime)
            if AppSnapshot.difference(wanted, .record(replayed.document)) == nil { return } // the steps made it all
            if let difference = AppSnapshot.difference(Self.structure(wanted), Self.structure(.record(replayed.document))) {
                throw SnapshotError(.notRebuilt, "restoring: the snapshot's steps build another app now (\(difference))")
            }
            try reconcile(wanted, with: replayed, in: runtime)
            if let difference = AppSnapshot.difference(wanted, .record(try capture(of: runtime).document)) {
                throw SnapshotError(.notRebuilt, "restoring: \(difference)")
            }
        }
    }

    /// A recorded step with the secrets it stands for put back (``SnapshotSecret``), each asked of
    /// `secrets`: the parts of a payload its output (on the visible screen) declares secret, the parts of an
    /// answer's value its request declares secret, then any marker named by one of the storage's secret
    /// keys; an error naming the secret without `secrets`.
    private static func withSecrets(
        _ step: UserStep, number: Int, in app: Application, from secrets: ((SnapshotSecret) throws -> FlowValue)?
    ) throws -> UserStep {
        guard step.carriesValue else { return step }
        func ask(_ name: String, _ origin: SnapshotSecret.Origin) throws -> FlowValue {
            let secret = SnapshotSecret(step: number, name: name, origin: origin)
            guard let secrets else {
                throw SnapshotError(.needsSecret, """
                    restoring: step \(number) needs \(secret), which a snapshot never holds: restore it with its \
                    secrets (coordrun asks at a terminal; restore(json, { \(LuaSyntax.key(name)) = ... }) in Lua; \
                    restore(_:secrets:) in Swift)
                    """)
            }
            do { return try secrets(secret) } catch let error as SnapshotError { throw error } catch {
                throw SnapshotError(.needsSecret, "restoring: step \(number) needs \(secret): \(error)")
            }
        }
        var step = step
        switch step {
        case let .tap(output, payload?):
            if let screen = app.window.visibleScreen, let spec = screen.type.output(named: output), spec.secret != .nothing {
                step = .tap(output, payload: try spec.secret.restoring(payload) { try ask($0, .output(screen: screen.name, output: output)) })
            }
        case let .answer(kind, nth, outcome, value?):
            if let declaration = app.requests.declarations[kind], declaration.secret != .nothing {
                step = .answer(kind, nth: nth, outcome: outcome,
                               value: try declaration.secret.restoring(value) { try ask($0, .answer(request: kind, outcome: outcome)) })
            }
        default: break
        }
        let keys = app.storage.secretKeys
        guard !keys.isEmpty else { return step }
        return try step.mappingValues { try SecretParts.restoringMarkers(in: $0, named: keys) { try ask($0, .storage) } }
    }

    /// The numbers of the shared tables (`$id`, `$ref`) an encoded value writes or refers to.
    private static func sharedTables(in value: FlowValue) -> Set<Int> {
        var found = Set<Int>()
        var pending = [value]
        while let next = pending.popLast() {
            switch next {
            case .record(let record):
                for field in record.fields {
                    if field.key == "$id" || field.key == "$ref", let id = field.value.intValue { found.insert(id) } else { pending.append(field.value) }
                }
            case .list(let items): pending += items
            default: break
            }
        }
        return found
    }

    /// The document without what a replay may leave different and ``reconcile(_:with:)`` sets: inputs,
    /// badges, coordinators' data, the gateway, the storage.
    private static func structure(_ value: FlowValue) -> FlowValue {
        switch value {
        case .record(let record):
            let dropped: Set<String> = ["inputs", "badge", "data", "skipped", "gateway", "storage"]
            return .record(FlowRecord(record.fields.filter { !dropped.contains($0.key) }.map { ($0.key, structure($0.value)) }))
        case .list(let items): return .list(items.map(structure))
        default: return value
        }
    }

    /// Sets what the snapshot has and the replayed app has not: the gateway's state, inputs, badges and
    /// coordinators' fields, each only where it differs (a value the replay rebuilt keeps its identity, so
    /// the closures that share it still do).
    private func reconcile(_ wanted: FlowValue, with replayed: Capture, in runtime: ScriptRuntime) throws {
        let app = runtime.app, lua = runtime.lua
        if let state = wanted["gateway"]?.stringValue, state != app.gateway.state.rawValue { app.gateway.state = AppState(state) }
        let storage = wanted["storage"]?.recordValue ?? [:]
        if storage != app.storage.withoutSecrets { app.storage.replaceAll(with: storage, keepingSecrets: true) }
        var screens: [(path: String, entry: FlowValue)] = [], tabs: [FlowValue] = []
        func walk(_ container: FlowValue, at path: String) {
            func stack(_ list: [FlowValue], at path: String) {
                for (i, screen) in list.enumerated() { screens.append(("\(path).stack[\(i + 1)]", screen)) }
            }
            if let list = container["stack"]?.listValue { stack(list, at: path) }
            if let screen = container["screen"] { screens.append((path + ".screen", screen)) }
            if let list = container["tabs"]?.listValue {
                tabs.append(container)
                for (i, tab) in list.enumerated() { walk(tab, at: "\(path).tabs[\(i + 1)]") } // a stack, or pages or a split
            }
            if let split = container["split"]?.recordValue {
                for column in SplitContainer.Column.allCases {
                    if let entry = split[column.rawValue] { stack(entry["stack"]?.listValue ?? [], at: "\(path).split.\(column.rawValue)") }
                }
            }
            if let list = container["pages"]?.listValue {
                for (i, page) in list.enumerated() { stack(page["stack"]?.listValue ?? [], at: "\(path).pages[\(i + 1)]") }
            }
        }
        for (place, window) in [("window", wanted["window"])] + (wanted["windows"]?.listValue ?? []).enumerated().map({ ("windows[\($0 + 1)]", $1) }) {
            guard let window else { continue }
            walk(window["root"] ?? [:], at: place + ".root")
            for (i, modal) in (window["modals"]?.listValue ?? []).enumerated() { walk(modal, at: place + ".modals[\(i + 1)]") }
        }
        // Inputs are checked as building the screen checks them, and a screen whose inputs changed must
        // render with them, as after a tap: a snapshot cannot leave a screen that Back would fail to show.
        var reset: [(path: String, screen: Screen)] = []
        for ((path, entry), screen) in zip(screens, replayed.screens) {
            let inputs = entry["inputs"]?.recordValue ?? [:]
            guard inputs != screen.inputs else { continue }
            do { try screen.type.check(inputs: inputs) } catch { throw SnapshotError(.notRebuilt, "restoring: \(path).inputs: \(error)") }
            for field in inputs.fields where screen[field.key] != field.value { try screen.set(field.key, to: field.value) }
            for field in screen.inputs.fields where inputs[field.key] == nil { try screen.set(field.key, to: nil) }
            reset.append((path, screen))
        }
        for (path, screen) in reset {
            do { _ = try screen.checkedRendering() } catch { throw SnapshotError(.notRebuilt, "restoring: \(path).inputs: \(error)") }
        }
        for (entry, container) in zip(tabs, replayed.tabs) {
            for (i, tab) in (entry["tabs"]?.listValue ?? []).enumerated() where container.badges.indices.contains(i) && container.badges[i] != tab["badge"] {
                try container.owner?.setBadge(tab["badge"], onTab: i)
            }
        }
        let entries = wanted["coordinators"]?.listValue ?? []
        let have = try states(of: replayed.coordinators, in: runtime)
        // The fields to set: those whose value differs, and every field that shares a table with one of
        // them (a "$ref" to its "$id", or the other way): set alone, it would split what was one table.
        var changed: [[String: Bool]] = entries.indices.map { _ in [:] }
        var tables = Set<Int>()
        for (i, entry) in entries.enumerated() where i < replayed.coordinators.count {
            let want = entry["data"]?.recordValue ?? [:], now = have[i].data.recordValue ?? [:]
            for field in want.fields where now[field.key] != field.value {
                changed[i][field.key] = true
                tables.formUnion(Self.sharedTables(in: field.value))
            }
            for field in now.fields where want[field.key] == nil { changed[i][field.key] = false }
        }
        var grew = !tables.isEmpty
        while grew {
            grew = false
            for (i, entry) in entries.enumerated() where i < replayed.coordinators.count {
                for field in entry["data"]?.recordValue?.fields ?? [] where changed[i][field.key] == nil {
                    let ids = Self.sharedTables(in: field.value)
                    guard !ids.isDisjoint(with: tables) else { continue }
                    changed[i][field.key] = true
                    tables.formUnion(ids)
                    grew = true
                }
            }
        }
        let encoded = try lua.newTable(), fields = try lua.newTable()
        var any = false
        for (i, entry) in entries.enumerated() where i < replayed.coordinators.count {
            try encoded.set(i + 1, entry["data"] ?? .record([:]))
            let names = try lua.newTable()
            for (name, set) in changed[i] { try names.set(name, set); any = true }
            try fields.set(i + 1, names)
        }
        guard any else { return }
        do {
            try codecFunctions(lua, module: runtime.scriptModule.table).apply.call(instances(of: replayed.coordinators, in: lua), encoded, fields)
        } catch let error as LuaError where error.message.hasPrefix("snapshot: ") {
            throw SnapshotError(.malformed, error.message) // a mistake in the document, at its JSON path: no traceback of the codec
        }
    }

    /// The snapshot codec's two functions, compiled the first time they are needed.
    /// The codec's Lua values: compiled on first need, so they are no part of an app's state
    /// (``ScriptRuntime/stateIdentity(views:also:excluding:)``).
    var codecValues: [any LuaPushable] {
        switch codec {
        case .none: []
        case .uncompiled(let primitives): [primitives]
        case let .compiled(encode, apply, primitives): encode.isAlive && apply.isAlive ? [encode, apply, primitives] : [primitives]
        }
    }

    private func codecFunctions(_ lua: LuaState, module: LuaTable?) throws -> (encode: LuaFunction, apply: LuaFunction) {
        switch codec {
        case let .compiled(encode, apply, _) where encode.isAlive && apply.isAlive: return (encode, apply)
        case let .compiled(_, _, primitives):
            // Compiled in a branch the heap came back from: compiled again.
            codec = .uncompiled(primitives: primitives)
            return try codecFunctions(lua, module: module)
        case .none: throw LuaError(.misuse, "the coordinator module is not loaded")
        case .uncompiled(let primitives):
            guard let module else { throw LuaError(.misuse, "the coordinator module is not loaded") }
            let compiled = try lua.load(StateCodec.source, name: "=[snapshot]", cached: true).call(module, primitives, as: LuaTable.self)
            let functions = (encode: try compiled.get("encode", as: LuaFunction.self), apply: try compiled.get("apply", as: LuaFunction.self))
            codec = .compiled(encode: functions.encode, apply: functions.apply, primitives: primitives)
            return functions
        }
    }
}
