import CoordinatorCore
import LuaKit
#if canImport(Glibc)
import Glibc
#endif

/// Recent conversions of Lua tables to ``FlowValue``s, so that data crossing again unchanged is compared
/// instead of rebuilt.
///
/// Flows hand the same tables to screens over and over (`self:push("Regions", { regions = cities.regions })`).
/// Converting such a table builds every string, list and record again; comparing it with the value it gave
/// last time only walks it (about half the work), and the screens then share one value. The memo maps a
/// table's address to that value, for tables big enough to be worth it, in a small direct-mapped cache.
///
/// An entry is a hint, never trusted: a hit is used only after ``matches(_:at:_:depth:)`` has checked the
/// table field by field against the remembered value, so a table changed in place (or a new table at a
/// collected one's address) converts exactly as it would without the memo. Entries keep their values
/// alive (at most ``slotCount`` of them) until replaced or the state closes.
final class DataMemo {
    static let slotCount = 64

    private struct Entry {
        var table: UnsafeRawPointer?
        var value: FlowValue
    }

    private var entries = [Entry](repeating: Entry(table: nil, value: .bool(false)), count: DataMemo.slotCount)

    /// The memo of the state the stack belongs to.
    static func of(_ stack: LuaStack) -> DataMemo { stack.attachment { DataMemo() } }

    private func slot(_ table: UnsafeRawPointer) -> Int {
        let bits = UInt(bitPattern: table)
        return Int((bits >> 4 ^ bits >> 10) & UInt(DataMemo.slotCount - 1))
    }

    /// The value last remembered for the table at `table`, if any (still to be checked with `matches`).
    func candidate(for table: UnsafeRawPointer) -> FlowValue? {
        let entry = entries[slot(table)]
        return entry.table == table ? entry.value : nil
    }

    func remember(_ value: FlowValue, for table: UnsafeRawPointer) {
        entries[slot(table)] = Entry(table: table, value: value)
    }

    /// Whether a converted table is worth remembering: it holds tables or several values, so converting it
    /// again costs more than a lookup.
    static func worthRemembering(_ value: FlowValue) -> Bool {
        func isTable(_ value: FlowValue) -> Bool {
            switch value {
            case .list, .record: true
            default: false
            }
        }
        switch value {
        case .list(let items): return items.count >= 4 || items.contains(where: isTable)
        case .record(let record): return record.count >= 4 || record.contains { isTable($0.value) }
        default: return false
        }
    }

    /// Whether the Lua value at `index` converts to exactly `value` (what ``FlowValue/read(from:at:)``
    /// would build from it), without building anything.
    static func matches(_ stack: LuaStack, at index: Int32, _ value: FlowValue, depth: Int) -> Bool {
        switch value {
        case .bool(let b): return stack.boolean(at: index) == b
        case .int(let i): return stack.integer(at: index) == i
        case .double(let d):
            guard !stack.isInteger(at: index), let number = stack.number(at: index) else { return false }
            return number.bitPattern == d.bitPattern
        case .string(let s): return stack.withStringBytes(at: index) { bytes in equal(bytes, s) } ?? false
        case .list(let items):
            guard stack.type(at: index) == .table, depth < 64, !items.isEmpty, (try? stack.reserve(3)) != nil else { return false }
            let table = stack.absoluteIndex(index)
            guard stack.rawLength(at: table) == items.count else { return false }
            return items.withUnsafeBufferPointer { items in
                var pairs = 0
                stack.pushNil()
                while stack.next(inTableAt: table) {
                    pairs += 1
                    guard let key = stack.integer(at: -2), key >= 1, key <= items.count,
                          matches(stack, at: -1, items[key - 1], depth: depth + 1)
                    else { stack.pop(2); return false }
                    stack.pop()
                }
                return pairs == items.count
            }
        case .record(let record):
            // Only tables whose keys are all strings: a number key could make the table a list, or a
            // record field named after the number, which the build decides.
            guard stack.type(at: index) == .table, depth < 64, (try? stack.reserve(3)) != nil else { return false }
            let table = stack.absoluteIndex(index)
            return record.fields.withUnsafeBufferPointer { fields in
                var pairs = 0
                stack.pushNil()
                while stack.next(inTableAt: table) {
                    pairs += 1
                    guard pairs <= fields.count,
                          let field = stack.withStringBytes(at: -2, { key in fields.firstIndex { equal(key, $0.key) } }) ?? nil,
                          matches(stack, at: -1, fields[field].value, depth: depth + 1)
                    else { stack.pop(2); return false }
                    stack.pop()
                }
                return pairs == fields.count
            }
        }
    }

    /// Whether the bytes are the string's UTF-8 (a string read from Lua is its bytes, repaired only when
    /// they are not UTF-8, and then they differ here and the table is converted again).
    private static func equal(_ bytes: UnsafeRawBufferPointer, _ string: String) -> Bool {
        var string = string
        return string.withUTF8 { utf8 in
            guard utf8.count == bytes.count else { return false }
            guard let a = utf8.baseAddress, let b = bytes.baseAddress else { return true } // both empty
            return memcmp(a, b, utf8.count) == 0
        }
    }
}
