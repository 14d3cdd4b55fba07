/// A Lua value an undo entry keeps (the app's journal: a screen's handlers before they changed or went, a
/// flow's instance before it finished), not the app: while the hold lives, the state's fingerprint leaves
/// the value out of the registry's references (``LuaFingerprint``), as it would be once the operation
/// committed and the entry went. So a state reached inside a branch the journal will roll back (whose log
/// keeps such values until then) has the identity of the same state reached for good.
///
/// Between operations no undo entry lives but a branch's: the bridge holds values only in a branch
/// (`UndoLog.isBranching`), where an entry outlives its operation, and an operation outside costs nothing.
package final class LuaUndoHold {
    let reference: LuaReference
    /// Its position in the state's list of holds (`LuaCore.undoHolds`).
    private var position = 0

    /// Holds `table` for undo.
    package convenience init(_ table: LuaTable) { self.init(table.reference) }

    init(_ reference: LuaReference) {
        self.reference = reference
        let core = reference.core
        position = core.undoHolds.count
        core.undoHolds.append(Unmanaged.passUnretained(self)) // SAFETY[unretained-list]
    }

    deinit {
        // Off the list: the last one takes this one's place.
        let core = reference.core
        let last = core.undoHolds.removeLast()
        if position < core.undoHolds.count {
            core.undoHolds[position] = last
            last.takeUnretainedValue().position = position
        }
    }
}
