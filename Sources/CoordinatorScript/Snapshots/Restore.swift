import CoordinatorCore
import CoordinatorLua

/// Restoring a snapshot (``ScriptRuntime/restore(_:)``): the checks, the replay of its steps, and the data
/// the steps do not rebuild. Why replay: see `Snapshot+Runtime.swift`.
extension ScriptRuntime {
    /// Rebuilds the app a snapshot describes (``snapshot()``), in place of the app this runtime runs, as one
    /// atomic operation: the same scripts are required (the format and the scripts' digest are checked
    /// first), the snapshot's steps are taken again from the app's start, the data they do not rebuild is
    /// set, and the result must equal the snapshot. Any failure is an error that says where, and the app is
    /// as it was.
    ///
    /// In a fresh runtime (`coordrun --restore FILE`) the result is the snapshotted app; in one that ran
    /// before, data the scripts keep outside coordinators (a file-level local) is what this runtime has.
    public func restore(_ json: String) throws {
        let document: FlowValue
        do { document = try FlowValue(json: json) } catch { throw NavigationError(.badSnapshot, "snapshot: \(error.message)") }
        guard case .record(let fields) = document else { throw NavigationError(.badSnapshot, "snapshot: not a JSON object") }
        guard let format = fields["format"]?.intValue else { throw NavigationError(.badSnapshot, "snapshot: it has no format (is it a snapshot?)") }
        guard format == AppSnapshot.format else {
            throw NavigationError(.badSnapshot, "snapshot format \(format) is not one this runtime reads (it reads format \(AppSnapshot.format))")
        }
        let digest = fields["app"]?["digest"]?.stringValue ?? "none"
        guard digest == scriptsDigest else {
            let script = fields["app"]?["script"]?.stringValue ?? "?"
            throw NavigationError(.badSnapshot, "the snapshot was taken of other scripts (\(script), \(digest); these are \(scriptsDigest)): restoring it would not give the same app")
        }
        var expected = FlowRecord.Builder()
        for key in ["gateway", "window", "coordinators"] {
            guard let value = fields[key] else { throw NavigationError(.badSnapshot, "snapshot: it has no \(key)") }
            expected.add(key, value)
        }
        let wanted = FlowValue.record(expected.finish())
        let steps = try (fields["steps"]?.listValue ?? []).enumerated().map { try AppSnapshot.step(from: $1, number: $0 + 1) }
        let startState = fields["start"]?["gateway"]?.stringValue.map { AppState($0) } ?? app.gateway.state
        try app.atomically {
            try app.tearDown()
            app.gateway.state = startState // the steps begin where the app started
            try start()
            for (i, step) in steps.enumerated() {
                do {
                    try app.perform(step)
                } catch {
                    throw NavigationError(.badSnapshot, "restoring: step \(i + 1), \(step.luaSource), fails now: \(error)")
                }
            }
            let replayed = try capture()
            if AppSnapshot.difference(wanted, .record(replayed.document)) == nil { return } // the steps made it all
            if let difference = AppSnapshot.difference(Self.structure(wanted), Self.structure(.record(replayed.document))) {
                throw NavigationError(.badSnapshot, "restoring: the snapshot's steps build another app now (\(difference))")
            }
            try reconcile(wanted, with: replayed)
            if let difference = AppSnapshot.difference(wanted, .record(try capture().document)) {
                throw NavigationError(.badSnapshot, "restoring: \(difference)")
            }
        }
    }

    /// ``restore(_:)`` of the snapshot in the file at `path`.
    public func restore(contentsOf path: String) throws {
        guard let json = readTextFile(path) else { throw NavigationError(.badSnapshot, "cannot read the snapshot \(path)") }
        try restore(json)
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
    /// badges, coordinators' data, the gateway.
    private static func structure(_ value: FlowValue) -> FlowValue {
        switch value {
        case .record(let record):
            let dropped: Set<String> = ["inputs", "badge", "data", "skipped", "gateway"]
            return .record(FlowRecord(record.fields.filter { !dropped.contains($0.key) }.map { ($0.key, structure($0.value)) }))
        case .list(let items): return .list(items.map(structure))
        default: return value
        }
    }

    /// Sets what the snapshot has and the replayed app has not: the gateway's state, inputs, badges and
    /// coordinators' fields, each only where it differs (a value the replay rebuilt keeps its identity, so
    /// the closures that share it still do).
    private func reconcile(_ wanted: FlowValue, with replayed: Capture) throws {
        if let state = wanted["gateway"]?.stringValue, state != app.gateway.state.rawValue { app.gateway.state = AppState(state) }
        var screens: [FlowValue] = [], tabs: [FlowValue] = []
        func walk(_ container: FlowValue) {
            if let list = container["stack"]?.listValue { screens += list }
            if let screen = container["screen"] { screens.append(screen) }
            if let list = container["tabs"]?.listValue {
                tabs.append(container)
                for tab in list { screens += tab["stack"]?.listValue ?? [] }
            }
        }
        if let window = wanted["window"] {
            walk(window["root"] ?? [:])
            for modal in window["modals"]?.listValue ?? [] { walk(modal) }
        }
        for (entry, screen) in zip(screens, replayed.screens) {
            let inputs = entry["inputs"]?.recordValue ?? [:]
            for field in inputs.fields where screen[field.key] != field.value { try screen.set(field.key, to: field.value) }
            for field in screen.inputs.fields where inputs[field.key] == nil { try screen.set(field.key, to: nil) }
        }
        for (entry, container) in zip(tabs, replayed.tabs) {
            for (i, tab) in (entry["tabs"]?.listValue ?? []).enumerated() where container.badges.indices.contains(i) && container.badges[i] != tab["badge"] {
                try container.owner?.setBadge(tab["badge"], onTab: i)
            }
        }
        let entries = wanted["coordinators"]?.listValue ?? []
        let have = try states(of: replayed.coordinators)
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
        if any { try stateCodecFunctions().apply.call(instances(of: replayed.coordinators), encoded, fields) }
    }
}
