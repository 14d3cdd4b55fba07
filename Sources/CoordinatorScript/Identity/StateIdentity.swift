import CoordinatorCore
import CoordinatorLua

/// What exploration compares to tell two states of an app apart (``ScriptRuntime/stateIdentity(views:also:excluding:)``): two
/// states are one only when everything a later step can observe is the same — the gateway, the window's
/// containers and stacks, every screen with its type, inputs and owner, the coordinator tree with each
/// coordinator's class, and the Lua data: each coordinator's `self`, the screens' handlers and what they
/// capture, the globals, the loaded modules, the file-level locals the scripts' functions share, and
/// whatever else the runtime holds for the scripts (canonically: shared tables and cycles by their shape,
/// functions by their code and upvalues, never by address or by order of insertion).
///
/// An app can declare a coarser view where exact states would never end (a counter, a list that grows), in
/// the spirit of TLA+'s VIEW: `flow.view(fn)` makes `fn(state)`'s result stand for the whole state (`state`
/// is the navigation as a snapshot writes it: gateway, window, coordinators' classes), and a coordinator
/// class's `__view(self)` stands for that coordinator's `self`. ``viewed`` then says a view was used.
package struct StateIdentity: Hashable, Sendable {
    /// The 128-bit fingerprint of the navigation and the data.
    package let fingerprint: LuaFingerprint
    /// Whether an app's or a class's view stood for some of the data.
    package let viewed: Bool

    /// The identity as 32 hexadecimal digits.
    package var key: String { fingerprint.hex }
}

extension ScriptRuntime {
    /// The app's state now as exploration tells states apart (``StateIdentity``): see ``StateIdentities/identity(of:views:also:excluding:randomState:)``.
    package func stateIdentity(views: Bool = true, also: [any LuaPushable] = [], excluding: [any LuaPushable] = [],
                               randomState: Bool = true) throws -> StateIdentity {
        try identities.identity(of: self, views: views, also: also, excluding: excluding, randomState: randomState)
    }
}

/// The part of a runtime that tells its app's states apart (``ScriptRuntime/stateIdentity(views:also:excluding:randomState:)``):
/// which roots the walk takes, and whether it keeps the walk of the parts that seldom change.
package final class StateIdentities {
    /// Whether the walk of the parts that seldom change (the standard library, the loaded modules, the
    /// globals) is kept and checked by image instead of walked again: the same identities, faster. Off only
    /// to measure or test it against the full walk.
    package var cachesStableWalk = true

    /// What the runtime makes for itself on first need and keeps (the instances' metatables, the snapshot
    /// codec): whether a runtime made them yet is no part of the app's state.
    private func caches(of runtime: ScriptRuntime) -> [any LuaPushable] {
        runtime.classes.instanceMetatables.values.filter(\.isAlive) + runtime.snapshots.codecValues + runtime.launch.markValues + runtime.properties.cacheValues
    }

    /// The state of `runtime`'s app now as exploration tells states apart (``StateIdentity``). Runs the
    /// app's views, if it declares any and `views` is true: call it under the time limit the app's code runs
    /// with. Without views the identity is exact, and no Lua code runs. A host's own objects join it: `also`
    /// are more roots, `excluding` objects the registry's references hold that the host accounts for by them.
    ///
    /// `randomState` false leaves out the state of Lua's random generator: what a snapshot restores (it
    /// does not hold that state), so that a restored app has the identity of the one snapshotted.
    package func identity(of runtime: ScriptRuntime, views useViews: Bool, also: [any LuaPushable], excluding: [any LuaPushable],
                          randomState: Bool) throws -> StateIdentity {
        let lua = runtime.lua, lazy = runtime.data.lazyStoreIndex
        let capture = try runtime.snapshots.capture(of: runtime, data: false, windowNumbers: false)
        if useViews, let view = runtime.scriptModule.declaration.view {
            let key = try view.call(FlowValue.record(capture.document), as: LuaValue.self)
            return StateIdentity(fingerprint: try LuaFingerprint(in: lua, of: [key], registry: false, materializing: lazy), viewed: true)
        }
        var navigation = DocumentDigest()
        navigation.add(.record(capture.document))
        // The storage's secret keys too (the document, a snapshot's, leaves them out): they are state.
        let storage = runtime.app.storage
        if !storage.secretKeys.isEmpty { navigation.add(.record(FlowRecord(storage.secretKeys.compactMap { key in storage[key].map { (key, $0) } }))) }
        var roots: [any LuaPushable] = [Int(bitPattern: UInt(navigation.a)), Int(bitPattern: UInt(navigation.b))]
        roots.append(lua.globals)
        roots += also
        var views: LuaTable?
        for coordinator in capture.coordinators {
            guard let scripted = coordinator as? ScriptedCoordinator else { roots.append(LuaValue.nil); continue }
            let instance = scripted.instance
            roots += [instance.map(LuaValue.table) ?? LuaValue.nil, scripted.type, scripted.onFinishFunction.map(LuaValue.function) ?? LuaValue.nil]
            if useViews, let instance, let view = try scripted.type.rawGet("__view", as: LuaFunction?.self) {
                let table = try views ?? lua.newTable()
                views = table
                let seen = try lua.newTable()
                try seen.rawSet(1, try view.call(instance, as: LuaValue.self))
                try table.rawSet(instance, seen)
            }
        }
        for screen in capture.screens {
            roots.append(try (screen.outputReceiver as? ScreenHandlers)?.slots.tableValue ?? .nil)
        }
        return StateIdentity(fingerprint: try LuaFingerprint(in: lua, of: roots, views: views, registry: true, materializing: lazy,
                                                                  excluding: caches(of: runtime) + excluding, cached: cachesStableWalk,
                                                                  randomState: randomState),
                             viewed: views != nil)
    }
}

/// A 128-bit digest of a document (two 64-bit lanes fed a word at a time, each value with a tag): the
/// navigation's part of a state's identity, without writing the document out as text.
struct DocumentDigest {
    var a: UInt64 = 0x6A09_E667_F3BC_C908, b: UInt64 = 0xBB67_AE85_84CA_A73B

    mutating func word(_ v: UInt64) {
        let x = a ^ v
        a = ((x << 23) | (x >> 41)) &* 0x9E37_79B9_7F4A_7C15
        let y = b &+ v
        b = (((y << 41) | (y >> 23)) &* 0xC2B2_AE3D_27D4_EB4F) ^ a
    }

    mutating func add(_ text: String) {
        let count = text.utf8.count
        word(UInt64(count))
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
            let raw = UnsafeRawBufferPointer(bytes) // SAFETY[buffer-read]
            var offset = 0
            while offset + 8 <= count {
                word(raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                offset += 8
            }
            if offset < count {
                var pending: UInt64 = 0
                for i in offset..<count { pending |= UInt64(raw[i]) << (UInt64(i - offset) * 8) }
                word(pending)
            }
        }
        guard done == nil else { return }
        // A string without contiguous storage (bridged): byte by byte, the same words.
        var pending: UInt64 = 0, shift: UInt64 = 0
        for byte in text.utf8 {
            pending |= UInt64(byte) << shift
            shift += 8
            if shift == 64 { word(pending); pending = 0; shift = 0 }
        }
        if shift > 0 { word(pending) }
    }

    mutating func add(_ value: FlowValue) {
        switch value {
        case .bool(let b): word(b ? 0xB1 : 0xB0)
        case .int(let i): word(0x11); word(UInt64(bitPattern: Int64(i)))
        case .double(let d): word(0xD0); word(d.bitPattern)
        case .string(let s): word(0x55); add(s)
        case .list(let items):
            word(0x1157); word(UInt64(items.count))
            for item in items { add(item) }
        case .record(let record):
            word(0x4EC); word(UInt64(record.fields.count))
            for field in record.fields { add(field.key); add(field.value) }
        }
    }
}
