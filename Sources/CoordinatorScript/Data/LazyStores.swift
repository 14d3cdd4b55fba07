import CoordinatorCore
import CoordinatorLua

/// Nested frozen data made when first read, so that freezing a large list (scripts/app.lua's cities)
/// costs what Lua reads of it, not the whole tree.
///
/// A store holds its scalars; a store with lists or records in it has a metatable of its own, `{ __index =
/// make, __data = box, __metatable = "data" }`: the first read of such a field makes its frozen table (or
/// finds the one made already for the same data) and stores it, so every later read is a plain lookup.
/// Whatever walks a whole store (`pairs`, `#`, the printer) makes the rest first (``index(_:runtime:)``
/// with the store alone); the metatable then goes.
///
/// To Lua it is frozen data like any other: the proxy, its `__data` (taken by screens in O(1)), identity
/// (the same table for the same field every time), the refusal of writes. Data coming back from Swift
/// becomes the frozen table Lua holds for it: every value under a store that waits is noted in the
/// state's views under its storage address plus one (an address no storage has: storage is aligned)
/// with the nearest frozen table made above it, and is made from there, down the path to it
/// (``pushView(for:of:stack:)``).
enum LazyStores {
    /// Gives the store at `store` (absolute) its metatable: nested fields are made by `index` on first read,
    /// from the data of the box at `box`.
    static func `defer`(store: Int32, box: Int32, index: LuaValue, stack: borrowing LuaStack) throws {
        try stack.reserve(3)
        try stack.pushNewTable(record: 3)
        try index.push(to: stack)
        stack.setField("__index", ofNewTableAt: -2)
        stack.pushCopy(of: box)
        stack.setField("__data", ofNewTableAt: -2)
        stack.pushString("data")
        stack.setField("__metatable", ofNewTableAt: -2) // scripts cannot take the metatable off
        stack.setMetatable(ofValueAt: store)
    }

    /// The store's `__index` (arguments: the store, the key): pushes the frozen table of that field, stored
    /// in the store, or nothing for a field that is not there. Called with the store alone, it makes every
    /// field not made yet and takes the store's metatable off, for code that walks the store raw (`pairs`,
    /// `#`, the printer).
    static func index(_ call: borrowing LuaCall, runtime: ScriptRuntime) throws {
        let stack = call.stack
        let store = call.index(1)
        guard stack.type(at: store) == .table, let data = try data(ofStoreAt: store, stack: stack) else { return }
        if call.count >= 2 {
            let key = call.index(2)
            if let child = field(of: data, keyAt: key, stack: stack) {
                try make(child, key: key, store: store, runtime: runtime, stack: stack)
            }
            return
        }
        try stack.reserve(4)
        // Each nested field the store does not have yet: its key pushed, looked up raw, and made when absent.
        func makeIfAbsent(_ child: FlowValue, pushKey: () -> Void) throws {
            pushKey()
            let key = stack.absoluteIndex(-1)
            pushKey()
            if stack.rawGet(inTableAt: store) == .nil {
                stack.pop()
                try make(child, key: key, store: store, runtime: runtime, stack: stack)
            }
            stack.pop(2) // what was found or made, and the key
        }
        switch data {
        case .list(let items):
            for (i, item) in items.enumerated() where item.isContainer { try makeIfAbsent(item) { stack.pushInteger(i + 1) } }
        case .record(let record):
            for field in record.fields where field.value.isContainer { try makeIfAbsent(field.value) { stack.pushString(field.key) } }
        default: break
        }
        stack.pushNil()
        stack.setMetatable(ofValueAt: store)
    }

    /// Notes every list and record under the fields of `data` that wait to be made, with the frozen table at
    /// `made` (absolute) as the nearest one made above them.
    static func markDeferred(in data: FlowValue, madeBy made: Int32, stack: borrowing LuaStack) throws {
        var pending: [FlowValue] = []
        func children(of value: FlowValue) {
            switch value {
            case .list(let items): pending += items.lazy.filter(\.isContainer)
            case .record(let record): pending += record.fields.lazy.map(\.value).filter(\.isContainer)
            default: break
            }
        }
        children(of: data)
        while let value = pending.popLast() {
            if let key = value.storageKey { try stack.setView(for: key + 1, toValueAt: made) }
            children(of: value)
        }
    }

    /// Pushes the frozen table Lua holds for `value` (whose storage is at `key`) and returns true, making
    /// it first when it waits under a store; pushes nothing and returns false when Lua holds none.
    static func pushView(for key: UnsafeRawPointer, of value: FlowValue, stack: borrowing LuaStack) throws -> Bool { // SAFETY[identity-address]
        if try stack.pushView(for: key) { return true }
        guard try stack.pushView(for: key + 1) else { return false }
        // The nearest frozen table made above it is on top: walk down to it, making each table on the way.
        let top = stack.absoluteIndex(-1)
        guard let tag = DataMemo.of(stack).frozenTag,
              let above = try stack.object(inMetafield: "__data", ofValueAt: top, tag: tag)?.value,
              let path = path(to: key, in: above) else { stack.pop(); return false }
        var table = try stack.read(LuaTable.self, at: top)
        stack.pop()
        for step in path {
            switch step {
            case .index(let n): table = try table.get(n, as: LuaTable.self)
            case .field(let name): table = try table.get(name, as: LuaTable.self)
            }
        }
        try table.push(to: stack)
        return true
    }

    private enum Step { case index(Int), field(String) }

    /// The keys from `data` down to the list or record whose storage is at `key`.
    private static func path(to key: UnsafeRawPointer, in data: FlowValue) -> [Step]? { // SAFETY[identity-address]
        var pending: [(FlowValue, [Step])] = [(data, [])]
        while let (value, path) = pending.popLast() {
            if value.storageKey == key { return path }
            switch value {
            case .list(let items):
                for (i, item) in items.enumerated() where item.isContainer { pending.append((item, path + [.index(i + 1)])) }
            case .record(let record):
                for field in record.fields where field.value.isContainer { pending.append((field.value, path + [.field(field.key)])) }
            default: break
            }
        }
        return nil
    }

    /// The data of the store at `store`, when it still has fields to make.
    private static func data(ofStoreAt store: Int32, stack: borrowing LuaStack) throws -> FlowValue? {
        guard let tag = DataMemo.of(stack).frozenTag else { return nil }
        return try stack.object(inMetafield: "__data", ofValueAt: store, tag: tag)?.value
    }

    /// The nested field of `data` at the key at `key`: an integer for a list, a string for a record.
    private static func field(of data: FlowValue, keyAt key: Int32, stack: borrowing LuaStack) -> FlowValue? {
        var value: FlowValue?
        switch data {
        case .list(let items):
            if stack.type(at: key) == .number, let n = stack.integer(at: key), n >= 1, n <= items.count { value = items[n - 1] }
        case .record(let record):
            if stack.type(at: key) == .string, let name = try? stack.read(String.self, at: key) { value = record[name] }
        default: break
        }
        return value?.isContainer == true ? value : nil
    }

    /// Pushes the frozen table of `child` and stores it in the store at `store` under the key at `key`.
    private static func make(_ child: FlowValue, key: Int32, store: Int32, runtime: ScriptRuntime, stack: borrowing LuaStack) throws {
        try runtime.frozen(child).push(to: stack)
        stack.pushCopy(of: key)
        stack.pushCopy(of: -2)
        stack.rawSet(table: store)
    }
}
