/// A Lua value an undo entry keeps (the app's journal: a screen's handlers taken away, a finished flow's
/// instance), not the app: while the hold lives, the state's fingerprint leaves the value out of the
/// registry's references (``LuaFingerprint``), as it would be once the operation committed and the entry
/// went. So a state reached inside a branch the journal will roll back (whose log keeps such values until
/// then) has the identity of the same state reached for good.
///
/// Between operations no undo entry lives, and no hold: only a branch's log keeps them there.
package final class LuaUndoHold {
    private let core: LuaCore

    /// Holds `table` for undo.
    package init(_ table: LuaTable) {
        core = table.reference.core
        core.undoHeld[ObjectIdentifier(self)] = table
    }

    deinit { core.undoHeld[ObjectIdentifier(self)] = nil }
}
