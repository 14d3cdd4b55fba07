import CoordinatorCore
import CoordinatorLua
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Recent conversions of Lua tables to ``FlowValue``s, so that data crossing again unchanged is compared
/// instead of rebuilt.
///
/// Flows hand the same tables to screens over and over (`self:push("Regions", { regions = cities.regions })`).
/// Converting such a table builds every string, list and record again; comparing it with the value it gave
/// last time only walks it (about half the work), and the screens then share one value. The memo maps a
/// table's address to that value, for tables big enough to be worth it, in a small direct-mapped cache.
///
/// An entry is a hint, never trusted: a hit is used only after the table has been compared field by field
/// with the remembered value (compiled into a `LuaDataImage` the first time it is needed, then compared in
/// one walk in C), so a table changed in place (or a new table at a
/// collected one's address) converts exactly as it would without the memo. Entries keep their values
/// alive (at most ``slotCount`` of them) until replaced or the state closes.
final class DataMemo {
    static let slotCount = 64
    /// The largest value remembered, in budget bytes: comparing needs an image as big as the value, and data
    /// this big is not what flows hand to screens over and over.
    static let largestRemembered = 16 << 20

    private struct Entry {
        var table: UnsafeRawPointer? // SAFETY[identity-address]
        var value: FlowValue
        /// The values converting it made (its size with every shared table counted at each place): what a
        /// conversion that meets it again is charged, before the comparison walks it.
        var cost = DataBudget.Cost()
        /// The value compiled for comparison, made when first needed (most remembered tables never return).
        var image: LuaDataImage?
    }

    /// What the running conversion may still make (reset by each conversion from Lua).
    var budget = DataBudget()

    /// How frozen data's boxes are marked in this state (set when the runtime registers them).
    var frozenTag: LuaClassTag<FrozenData>?

    private var entries = [Entry](repeating: Entry(table: nil, value: .bool(false)), count: DataMemo.slotCount)

    /// The memo of the state the stack belongs to.
    static func of(_ stack: borrowing LuaStack) -> DataMemo { stack.attachment { DataMemo() } }

    private func slot(_ table: UnsafeRawPointer) -> Int { // SAFETY[identity-address]
        let bits = UInt(bitPattern: table)
        return Int((bits >> 4 ^ bits >> 10) & UInt(DataMemo.slotCount - 1))
    }

    /// The value last remembered for the table at `table`, when the table at `index` (that table), found
    /// `depth` levels down in the data being converted, still converts to exactly that value.
    func value(
        for table: UnsafeRawPointer, in stack: borrowing LuaStack, at index: Int32, depth: Int // SAFETY[identity-address]
    ) throws(DataError) -> FlowValue? {
        let slot = slot(table)
        guard entries[slot].table == table else { return nil }
        // Comparing walks the whole value, as converting would: charged the same, so that a table shared at
        // many places (2^40 paths) cannot make the walk explode.
        guard budget.take(entries[slot].cost) else { throw DataError(.tooLarge(budget.reason)) }
        if entries[slot].image == nil { entries[slot].image = entries[slot].value.luaImage }
        guard let image = entries[slot].image, stack.matches(image, at: index, levels: 64 - depth) else {
            // The table changed (or another took its address): forget it, so that it is not compared again.
            entries[slot] = Entry(table: nil, value: .bool(false), image: nil)
            return nil
        }
        return entries[slot].value
    }

    func remember(_ value: FlowValue, cost: DataBudget.Cost, for table: UnsafeRawPointer) { // SAFETY[identity-address]
        entries[slot(table)] = Entry(table: table, value: value, cost: cost, image: nil)
    }

    /// Tables converted by walking them (not frozen, not remembered), and frozen tables met: running
    /// counts, so that a conversion knows what it met below it. A table holding frozen data is not
    /// remembered: a frozen table never matches a remembered image (its fields are behind `__index`), and
    /// it converts in O(1) anyway.
    var tablesBuilt = 0, frozenRead = 0

    /// Whether a converted table is worth remembering: converting it again walks nested tables or several
    /// values, which costs more than a lookup.
    static func worthRemembering(_ value: FlowValue, nestedTablesBuilt: Int) -> Bool {
        if nestedTablesBuilt > 0 { return true }
        switch value {
        case .list(let items): return items.count >= 4
        case .record(let record): return record.count >= 4
        default: return false
        }
    }
}
