import CoordinatorCore
import CoordinatorLua

/// The handlers scripts set on one screen (`screen.onSelectCity = function ... end`), kept by output slot in
/// one Lua table: setting one is a table write, and an output goes from the table to its function without
/// a Swift closure or a registry slot per handler.
///
/// The screen's ``OutputReceiver``, made with the screens scripts push (or on the first handler a script
/// sets on another screen); the script coordinator that pushed the screen takes it (see
/// ``ScriptedCoordinator/adopt(_:)``) and empties its handlers when the screen leaves or the flow finishes.
/// Changes inside an operation are undone with it. The functions sit in output slot + 1: a type's outputs go to the
/// table's array part.
final class ScreenHandlers: OutputReceiver {
    /// The functions, by output slot + 1.
    let slots: LuaFunctionSlots
    /// The app's operation log (not the app: handlers kept after their app is gone record nothing).
    let undo: UndoLog
    /// The operation level its screen was made in.
    let born: Int
    /// Read on every handler set.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    private var undoMark = UndoMark()

    /// Handlers for `screen`; `isNew` when nothing could see the screen before this operation (its handlers
    /// need no undo in it).
    init(_ lua: LuaState, app: Application, for screen: Screen, isNew: Bool) {
        self.undo = app.undoLog
        self.born = screen.born
        self.slots = LuaFunctionSlots(lua, capacity: screen.type.outputs.count)
        if isNew { undo.madeInOperation(&undoMark) }
    }

    func receive(output slot: Int, of screen: Screen, payload: FlowValue?) throws -> Bool {
        // The payload as itself, or an explicit nil (the handler's argument count stays the same).
        try slots.call(slot + 1, argument: payload)
    }

    func listens(to slot: Int) -> Bool { slots.contains(slot + 1) }

    func answer(output slot: Int, of screen: Screen) throws -> (FlowValue?) throws -> Bool {
        guard let function = try slots.function(slot + 1) else { return { _ in false } }
        return { payload in
            try function.call(payload)
            return true
        }
    }

    func forget(slot: Int?) {
        guard slots.count > 0 else { return }
        if let slot {
            guard slots.contains(slot + 1) else { return }
            record()
            try? slots.set(slot + 1, to: nil)
        } else {
            // The first change in an operation keeps the table itself for undo instead of a copy.
            var emptied = false
            undo.record(&undoMark, born: born) {
                emptied = true
                return slots.removeAllSaved(marked: undo.isBranching)
            }
            if !emptied { slots.removeAll() }
        }
    }

    /// Sets the handler in `slot` to the function (or nil) at `index` of `stack`.
    func setHandler(_ slot: Int, toValueAt index: Int32, in stack: borrowing LuaStack) throws {
        record()
        try slots.set(slot + 1, toValueAt: index, in: stack)
    }

    /// Takes the handlers for undo, once per operation, before they change.
    private func record() {
        undo.record(&undoMark, born: born) { (try? slots.saved(marked: undo.isBranching)) ?? {} }
    }
}
