import CoordinatorCore
import CoordinatorLua

/// Data frozen with `flow.freeze(t)` (or handed to Lua with ``ScriptRuntime/frozen(_:)``): a read-only
/// Lua view of one ``FlowValue`` that screens take without copying or comparing it.
///
/// Data is copied when it crosses into a screen, because a Lua table can change afterwards. Static data a
/// flow hands to screens again and again (a catalog, the list of cities) pays for that every time: the
/// memo compares the table with what it gave last time, walking all of it. Frozen data cannot change, so
/// the core takes its value as it is, in O(1), and every screen shares it.
///
/// In Lua a frozen value is a table that reads like the original (`cities.regions[1].name`, `#list`,
/// `ipairs`, `pairs`, `tostring`) and refuses assignments. Each list or record is an empty table whose
/// metatable's `__index` is a table holding its fields (scalars, and frozen tables for nested data), and
/// whose `__data` is the ``FlowValue`` itself: reading a field is a plain table lookup, and the bridge
/// recognises the value by its metatable.
///
/// Frozen data that comes back from Swift (a payload, a result, an input read) is the same frozen table,
/// while Lua holds it: each frozen table is the state's view (``LuaStack/pushView(for:)``) for the address
/// of its value's storage. The table keeps that storage alive, so a live view's address belongs to no other
/// value, and a value sharing the storage is that value (shared storage is never changed in place). Once
/// Lua lets the table go, the same data arrives as a new plain table.
final class FrozenData {
    let value: FlowValue
    init(_ value: FlowValue) { self.value = value }
}

/// A `FlowValue` to push frozen: scalars as themselves, lists and records as read-only tables.
///
/// ```swift
/// try runtime.lua.globals.set("cities", runtime.frozen(cities))   // Lua: cities.regions[1].name
/// ```
public struct FrozenValue: LuaPushable {
    let value: FlowValue
    /// The metamethods every frozen table has (`__newindex`, `__len`, `__pairs`, `__tostring`, `__name`).
    let metamethods: [(name: String, value: LuaValue)]

    /// The function that makes a store's nested values when first read (nil: every value is made at once).
    let lazyStoreIndex: LuaValue?

    public func push(to stack: borrowing LuaStack) throws {
        try push(value, to: stack, depth: 0)
    }

    func push(_ value: FlowValue, to stack: borrowing LuaStack, depth: Int) throws {
        // Data frozen already (or part of it) is that frozen table: freezing it again gives it back.
        if let key = value.storageKey, try stack.pushView(for: key) { return }
        if value.isContainer, depth >= 64 { throw LuaError(.type, "data nested more than 64 levels deep") }
        let lazy = lazyStoreIndex != nil
        switch value {
        case .bool, .int, .double, .string: try value.push(to: stack, views: false)
        case .list(let items):
            try pushFrozen(value, to: stack) { store in
                var deferred = false
                for (i, item) in items.enumerated() {
                    if lazy, item.isContainer { deferred = true; continue }
                    try push(item, to: stack, depth: depth + 1)
                    stack.setRawIndex(i + 1, ofTableAt: store)
                }
                return deferred
            }
        case .record(let record):
            try pushFrozen(value, to: stack) { store in
                var deferred = false
                for field in record.fields {
                    if lazy, field.value.isContainer { deferred = true; continue }
                    try push(field.value, to: stack, depth: depth + 1)
                    stack.setField(field.key, ofNewTableAt: store)
                }
                return deferred
            }
        }
    }

    /// Pushes the proxy of a list or record: an empty table, its metatable, and the store of fields `fill`
    /// sets (`fill` gets the store's absolute index, and tells whether it left nested values to be made
    /// when first read: see ``LazyStores``).
    private func pushFrozen(_ value: FlowValue, to stack: borrowing LuaStack, fill: (_ store: Int32) throws -> Bool) throws {
        try stack.reserve(6)
        let base = stack.absoluteIndex(-1)
        do {
            try stack.pushNewTable() // the proxy, empty: every read goes to __index, every write to __newindex
            try stack.pushNewTable(record: metamethods.count + 2)
            for (name, function) in metamethods {
                try function.push(to: stack)
                stack.setField(name, ofNewTableAt: -2)
            }
            try LuaObject(FrozenData(value)).push(to: stack)
            stack.pushCopy(of: -1)
            stack.setField("__data", ofNewTableAt: -3) // the box stays on top, for a lazy store
            switch value {
            case .list(let items): try stack.pushNewTable(array: items.count)
            case .record(let record): try stack.pushNewTable(record: record.count)
            default: try stack.pushNewTable()
            }
            let store = stack.absoluteIndex(-1)
            if try fill(store), let lazyStoreIndex {
                try LazyStores.defer(store: store, box: store - 1, index: lazyStoreIndex, stack: stack)
                try LazyStores.markDeferred(in: value, madeBy: base + 1, stack: stack)
            }
            stack.setField("__index", ofNewTableAt: -3)
            stack.pop() // the box
        } catch {
            stack.pop(stack.absoluteIndex(-1) - base)
            throw error
        }
        stack.setMetatable(ofValueAt: -2)
        // Found again when the same data comes back from Swift (a payload, a result), while Lua holds it.
        if let key = value.storageKey { try stack.setView(for: key, toValueAt: -1) }
    }
}

extension FlowValue {
    /// Whether this is a list or a record.
    var isContainer: Bool {
        switch self {
        case .list, .record: true
        default: false
        }
    }
}

/// Data to push as new plain tables even where it is frozen data (`flow.copy`).
struct PlainData: LuaPushable {
    let value: FlowValue
    func push(to stack: borrowing LuaStack) throws { try value.push(to: stack, views: false) }
}

extension FlowValue {
    /// The address of a list's or record's storage (nil for scalars and empty ones): the same for every
    /// copy of the value, and for no other live value.
    var storageKey: UnsafeRawPointer? { // SAFETY[identity-address]
        switch self {
        case .list(let items): items.isEmpty ? nil : items.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) } // SAFETY[identity-address]
        case .record(let record):
            record.fields.isEmpty ? nil : record.fields.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) } // SAFETY[identity-address]
        default: nil
        }
    }
}

extension FrozenValue {
    /// The table of fields a frozen table reads through (its metatable's `__index`), or nil when `table` is
    /// not frozen data: what a printer shows for it.
    package static func fields(ofFrozen table: LuaTable) -> LuaTable? {
        guard let meta = table.metatable, case .userdata? = try? meta.rawGet("__data", as: LuaValue.self),
              let store = try? meta.rawGet("__index", as: LuaTable.self) else { return nil }
        if let make = try? store.metatable?.rawGet("__index", as: LuaFunction.self) { try? make.call(store) } // every field made
        return store
    }
}

extension FlowValue {
    /// Whether the value at `index` is a frozen table.
    static func isFrozen(_ stack: borrowing LuaStack, at index: Int32) throws -> Bool {
        guard let tag = DataMemo.of(stack).frozenTag else { return false }
        return try stack.object(inMetafield: "__data", ofValueAt: index, tag: tag) != nil
    }

    /// The value of frozen data at `table` (an absolute index of a table), or nil for any other table.
    /// A frozen table that had fields put in it with `rawset` is refused: it no longer reads as its value.
    static func frozenValue(_ stack: borrowing LuaStack, at table: Int32, memo: DataMemo) throws(DataError) -> FlowValue? {
        guard let tag = memo.frozenTag,
              let frozen = try? stack.object(inMetafield: "__data", ofValueAt: table, tag: tag) else { return nil }
        stack.pushNil()
        if stack.next(inTableAt: table) {
            stack.pop(2)
            throw DataError(.changedFrozen)
        }
        return frozen.value
    }
}
