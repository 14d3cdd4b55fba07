import CoordinatorCore
import CoordinatorLua

/// Screen inputs, payloads and results cross between Lua and the core as ``FlowValue``s: plain data.
///
/// Lua → Swift: booleans, integers, floats and strings as themselves; a table whose keys are exactly
/// 1...n becomes a list; any other table a record (number keys become strings); an empty table an empty
/// record. Functions, userdata and coroutines cannot be data: they are refused with a message naming the
/// field. Tables nested deeper than 64 levels (or cyclic) are refused too; Swift → Lua, data nested deeper
/// than 200 levels (`maxPushDepth`) is refused with an error.
extension FlowValue: LuaPushable, LuaReadable {
    /// Pushes the value. Lists and records that are frozen data Lua still holds go in as those frozen
    /// tables (the state's views, by the address of the data's storage); the rest as new plain tables.
    public func push(to stack: borrowing LuaStack) throws {
        try push(to: stack, views: true)
    }

    /// Pushes the value, handing back frozen tables for data that is theirs when `views`; else plain
    /// tables throughout (`flow.copy`).
    func push(to stack: borrowing LuaStack, views: Bool) throws {
        var budget = DataBudget(stack)
        try push(to: stack, views: views, depth: 0, budget: &budget)
    }

    /// How deep data may nest to cross into Lua: the limit Lua → Swift has (64), with room for data a
    /// Swift host builds (a value nested deeper is refused with an error, not a crash of the call stack).
    static let maxPushDepth = 200

    private func push(to stack: borrowing LuaStack, views: Bool, depth: Int, budget: inout DataBudget) throws {
        guard depth < Self.maxPushDepth else {
            throw LuaError(.type, "data nested more than \(Self.maxPushDepth) levels deep cannot go into Lua")
        }
        switch self {
        case .bool(let b): stack.pushBool(b)
        case .int(let i): stack.pushInteger(i)
        case .double(let d): stack.pushNumber(d)
        case .string(let s):
            try budget.spendText(s.utf8.count)
            try Self.pushText(s, to: stack)
        case .list(let items):
            if views, let key = storageKey, try LazyStores.pushView(for: key, of: self, stack: stack) { return }
            try budget.spend(items.count, stack)
            try stack.reserve(3)
            try stack.pushNewTable(array: items.count)
            for i in items.indices {
                do { try items[i].push(to: stack, views: views, depth: depth + 1, budget: &budget) } catch { stack.pop(); throw error }
                stack.setRawIndex(i + 1, ofTableAt: -2)
            }
        case .record(let record):
            if views, let key = storageKey, try LazyStores.pushView(for: key, of: self, stack: stack) { return }
            try budget.spend(record.count, stack)
            // Keys are strings, never nil or NaN: the fields go in directly (the table, a value, then the
            // field set by name), scalars without a nested call.
            try stack.reserve(3)
            try stack.pushNewTable(record: record.count)
            do {
                try record.fields.withUnsafeBufferPointer { fields in // SAFETY[buffer-read]
                    for i in fields.indices {
                        switch fields[i].value {
                        case .bool(let b): stack.pushBool(b)
                        case .int(let n): stack.pushInteger(n)
                        case .double(let d): stack.pushNumber(d)
                        case .string(let s):
                            try budget.spendText(s.utf8.count)
                            try Self.pushText(s, to: stack)
                        case .list, .record: try fields[i].value.push(to: stack, views: views, depth: depth + 1, budget: &budget)
                        }
                        stack.setField(fields[i].key, ofNewTableAt: -2)
                    }
                }
            } catch { stack.pop(); throw error }
        }
    }

    /// Pushes a string of data, or throws (pushing nothing) when the system ran out of memory making it: the
    /// only scalar that allocates, so with ``LuaStack/pushNewTable(array:record:)`` the one check a
    /// conversion needs per value (it never makes more than one value on the state's reserve).
    private static func pushText(_ text: String, to stack: borrowing LuaStack) throws {
        stack.pushString(text)
        do { try stack.checkMemory() } catch { stack.pop(); throw error }
    }

    /// The value compiled for comparison with Lua data: `stack.matches(value.luaImage, at: i)` is true
    /// exactly when the Lua value at `i` converts to this value (lists stored in traversal order aside, which
    /// merely fail to match). How converted tables are recognised when they come back unchanged.
    ///
    /// ```swift
    /// let city: FlowValue = ["name": "Kazan"]
    /// try lua.globals.set("city", city)
    /// // stack.matches(city.luaImage, at: -1) with `city` pushed: true, until a script changes it
    /// ```
    package var luaImage: LuaDataImage {
        var image = LuaDataImage()
        Self.add(self, to: &image)
        return image
    }

    private static func add(_ value: FlowValue, to image: inout LuaDataImage) {
        switch value {
        case .bool(let b): image.bool(b)
        case .int(let i): image.integer(i)
        case .double(let d): image.number(d)
        case .string(let s): image.string(s)
        case .list(let items):
            image.list(count: items.count) { image in for item in items { image.item { add(item, to: &$0) } } }
        case .record(let record):
            image.record(count: record.count) { image in
                for field in record.fields { image.field(field.key) { add(field.value, to: &$0) } }
            }
        }
    }

    public static func read(from stack: borrowing LuaStack, at index: Int32) throws -> FlowValue {
        try read(from: stack, at: index, path: "")
    }

    /// Reads the value at `index` in place; `path` names it in messages (`field user.city is a function`).
    static func read(from stack: borrowing LuaStack, at index: Int32, path: String) throws -> FlowValue {
        let memo = DataMemo.of(stack)
        memo.budget = DataBudget(stack)
        do { return try read(stack, at: index, depth: 0, memo: memo) } catch let error as DataError {
            throw LuaError(.type, error.message(under: path), underlying: error)
        }
    }

    /// Converts a Lua value; `path` names it in messages (`field user.city is a function`).
    public init(lua value: LuaValue, path: String = "") throws {
        do {
            switch value {
            case .boolean(let b): self = .bool(b)
            case .integer(let i): self = .int(i)
            case .number(let d): self = .double(d)
            case .string(let s): self = .string(s.string)
            case .table(let table): self = try table.decode(FlowValue.self)
            case .nil: throw DataError(.isNil)
            default: throw DataError(.notData(value.typeName))
            }
        } catch let error as DataError {
            throw LuaError(.type, error.message(under: path), underlying: error)
        } catch let error as LuaError {
            guard let data = error.underlying as? DataError else { throw error }
            throw LuaError(.type, data.message(under: path), underlying: data)
        }
    }

    /// Reads the value at `index` in place: tables are walked on the stack (no references, no
    /// intermediate arrays) and names for messages are only built when something is refused.
    static func read(_ stack: borrowing LuaStack, at index: Int32, depth: Int, memo: DataMemo) throws -> FlowValue {
        switch stack.type(at: index) {
        case .boolean: return .bool(try Bool.read(from: stack, at: index))
        case .number:
            return stack.isInteger(at: index) ? .int(try Int.read(from: stack, at: index)) : .double(try Double.read(from: stack, at: index))
        case .string:
            guard memo.budget.takeText(stack.rawLength(at: index)) else { throw DataError(.tooLarge(memo.budget.reason)) }
            return .string(try String.read(from: stack, at: index))
        case .table: return try readTable(stack, at: index, depth: depth, memo: memo)
        case .nil, .none: throw DataError(.isNil)
        case let type: throw DataError(.notData(type.name))
        }
    }

    /// A table whose keys are exactly 1...n is a list; any other a record; an empty one an empty record.
    private static func readTable(_ stack: borrowing LuaStack, at index: Int32, depth: Int, memo: DataMemo) throws -> FlowValue {
        guard depth < 64 else { throw DataError(.tooDeep) }
        guard memo.budget.take(stack.rawLength(at: index) + 1) else { throw DataError(.tooLarge(memo.budget.reason)) }
        try stack.reserve(3)
        let table = stack.absoluteIndex(index)
        if let frozen = try FlowValue.frozenValue(stack, at: table, memo: memo) { memo.frozenRead &+= 1; return frozen }
        let address = stack.pointer(at: table)
        if let address, let remembered = try memo.value(for: address, in: stack, at: table, depth: depth) { return remembered }
        let built = memo.tablesBuilt, frozen = memo.frozenRead, budgetLeft = memo.budget.left
        memo.tablesBuilt &+= 1
        let value = try buildTable(stack, at: table, depth: depth, memo: memo)
        if let address, memo.frozenRead == frozen,
           DataMemo.worthRemembering(value, nestedTablesBuilt: memo.tablesBuilt &- built &- 1) {
            let cost = memo.budget.spent(since: budgetLeft)
            if cost.bytes <= DataMemo.largestRemembered { memo.remember(value, cost: cost, for: address) }
        }
        return value
    }

    private static func buildTable(_ stack: borrowing LuaStack, at table: Int32, depth: Int, memo: DataMemo) throws -> FlowValue {
        // A border of n with t[1] present: a sequence exactly when there are n pairs (t[1] ... t[n] all set).
        let count = stack.rawLength(at: table)
        if count > 0 {
            var pairs = 0
            stack.pushNil()
            while stack.next(inTableAt: table) {
                pairs += 1
                stack.pop()
                if pairs > count { stack.pop(); break }
            }
            if pairs == count {
                var items: [FlowValue] = []
                items.reserveCapacity(count)
                for i in 1...count {
                    // A hole (`{ [1] = a, [3] = c, x = b }` can have a border of 3): a record after all.
                    guard stack.pushRawIndex(i, ofTableAt: table) != .nil else { stack.pop(); break }
                    defer { stack.pop() }
                    do { items.append(try read(stack, at: -1, depth: depth + 1, memo: memo)) } catch var error as DataError {
                        error.path.append("[\(i)]")
                        throw error
                    }
                }
                if items.count == count { return .list(items) }
            }
        }
        return .record(try readRecord(stack, table: table, depth: depth, memo: memo))
    }

    /// Every pair of the table at the absolute `table` index as a record's field.
    static func readRecord(_ stack: borrowing LuaStack, table: Int32, depth: Int, memo: DataMemo) throws -> FlowRecord {
        var fields = FlowRecord.Builder(capacity: 4)
        stack.pushNil()
        while stack.next(inTableAt: table) {
            let name: String
            switch stack.type(at: -2) {
            case .string: name = try String.read(from: stack, at: -2)
            case .number:
                name = stack.isInteger(at: -2) ? String(try Int.read(from: stack, at: -2))
                    : LuaValue.number(try Double.read(from: stack, at: -2)).description
            case .boolean: name = try Bool.read(from: stack, at: -2) ? "true" : "false"
            case let type:
                stack.pop(2)
                throw DataError(.badKey(type.name))
            }
            do { fields.add(name, try read(stack, at: -1, depth: depth + 1, memo: memo)) } catch var error as DataError {
                stack.pop(2)
                error.path.append(name)
                throw error
            }
            stack.pop()
        }
        return fields.finish()
    }
}

/// A screen's inputs (and any record) from a Lua table: every pair a field, whatever the keys.
extension FlowRecord: LuaPushable, LuaReadable {
    public func push(to stack: borrowing LuaStack) throws { try FlowValue.record(self).push(to: stack) }

    public static func read(from stack: borrowing LuaStack, at index: Int32) throws -> FlowRecord {
        guard stack.type(at: index) == .table else {
            throw LuaError(.type, "expected a table of fields, got \(stack.type(at: index).name)")
        }
        do {
            try stack.reserve(3)
            let table = stack.absoluteIndex(index)
            let memo = DataMemo.of(stack)
            memo.budget = DataBudget(stack)
            switch try FlowValue.frozenValue(stack, at: table, memo: memo) {
            case .record(let record)?: return record
            case .some: throw LuaError(.type, "expected a table of fields, got frozen data that is not a record")
            case nil: return try FlowValue.readRecord(stack, table: table, depth: 0, memo: memo)
            }
        } catch let error as DataError {
            throw LuaError(.type, error.message(under: ""), underlying: error)
        }
    }
}

/// How much data one conversion may make, in values (a table counts once per place it appears: a table
/// shared at several places of the data, `t = { t, t }` nested 40 times, is 2^40 values, refused in
/// bounded time instead of never returning) and in bytes (an estimate per value plus the bytes of its
/// strings), so that what Swift allocates for one conversion stays bounded: under 256 MiB, and under a
/// memory limit within what Lua code may still allocate. Swift cannot recover from running out of memory
/// (it stops the process), so data is refused before it gets there.
struct DataBudget {
    /// The most values one conversion makes.
    static let maxValues = 1_000_000
    /// The most bytes one conversion makes, values and text together.
    static let maxBytes = 256 << 20
    /// Bytes a converted value costs, Swift's and Lua's together, as an estimate (its strings come on top).
    static let bytesPerValue = 64

    /// What a part of a conversion cost: values and bytes.
    struct Cost { var values = 0, bytes = 0 }

    private(set) var left: Cost
    private var limitedByMemory: Bool
    private var outOfValues = false

    init(_ stack: borrowing LuaStack) {
        self.init()
        if let headroom = stack.memoryHeadroom, headroom < Self.maxBytes {
            left.bytes = max(0, headroom)
            limitedByMemory = true
        }
    }

    init() {
        left = Cost(values: Self.maxValues, bytes: Self.maxBytes)
        limitedByMemory = false
    }

    /// Takes `count` values; false when the budget is spent.
    mutating func take(_ count: Int) -> Bool {
        take(Cost(values: count, bytes: count &* Self.bytesPerValue))
    }

    /// Takes the bytes of a string of `count` bytes; false when the budget is spent.
    mutating func takeText(_ count: Int) -> Bool {
        take(Cost(values: 0, bytes: count))
    }

    /// Takes a cost measured before (a remembered table met again); false when the budget is spent.
    mutating func take(_ cost: Cost) -> Bool {
        left.values -= cost.values
        left.bytes -= cost.bytes
        if left.values < 0 { outOfValues = true }
        return left.values >= 0 && left.bytes >= 0
    }

    /// What was spent since `mark` (a copy of ``left`` taken then).
    func spent(since mark: Cost) -> Cost { Cost(values: mark.values - left.values, bytes: mark.bytes - left.bytes) }

    /// Takes `count` values for a push, or throws.
    mutating func spend(_ count: Int, _ stack: borrowing LuaStack) throws {
        guard take(count + 1) else { throw tooLarge }
    }

    /// Takes a string of `count` bytes for a push, or throws.
    mutating func spendText(_ count: Int) throws {
        guard takeText(count) else { throw tooLarge }
    }

    private var tooLarge: LuaError {
        LuaError(limitedByMemory && !outOfValues ? .memory : .type, "data too large: \(reason)")
    }

    var reason: String {
        if outOfValues { return "more than \(Self.maxValues) values (a table shared at several places counts at each)" }
        if limitedByMemory { return "it would not fit in the memory limit" }
        return "more than \(Self.maxBytes >> 20) MiB"
    }
}

/// Why a Lua value is not data, and where: the path is collected innermost first, only when refusing.
struct DataError: Error {
    enum Problem {
        case isNil, tooDeep, changedFrozen
        case notData(String)
        case tooLarge(String)
        case badKey(String)
    }

    var problem: Problem
    /// Field names and `[i]` items, innermost first.
    var path: [String] = []

    init(_ problem: Problem) { self.problem = problem }

    /// The message, with the path below `root` (`user` + `city.onTap` → `field user.city.onTap`).
    func message(under root: String) -> String {
        var location = root
        // A cycle is 64 levels of the same names: the first few say where it starts.
        for part in path.reversed().prefix(4) {
            location += part.hasPrefix("[") || location.isEmpty ? part : "." + part
        }
        if path.count > 4 { location += "..." }
        switch problem {
        case .isNil: return "nil is not data" + (location.isEmpty ? "" : " (at \(location))")
        case .changedFrozen:
            return "frozen data was changed with rawset" + (location.isEmpty ? "" : " (at \(location))") + "; freeze the changed table again"
        case .tooDeep: return "data nested more than 64 levels deep (or cyclic) at \(location.isEmpty ? "top" : location)"
        case .badKey(let type): return "a \(type) cannot be a key of data (at \(location.isEmpty ? "top" : location))"
        case .tooLarge(let reason): return "data too large: \(reason) (at \(location.isEmpty ? "top" : location))"
        case .notData(let type):
            return "a \(type) cannot be data (\(location.isEmpty ? "the value" : "field " + location) is one); screens take plain values"
        }
    }
}
