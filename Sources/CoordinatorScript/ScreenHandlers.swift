import CoordinatorCore
import LuaKit

/// The handlers scripts set on one screen (`screen.onSelectCity = function ... end`), kept by output slot in
/// one Lua table: setting one is a table write (done in C, without calling Swift, when the screen's
/// userdata carries the table), and an output goes from the table to its function without a Swift
/// closure or a registry slot per handler.
///
/// The screen's ``OutputReceiver``, made with the screens scripts push (or on the first handler a script
/// sets on another screen); the script coordinator that pushed the screen takes it (see
/// ``ScriptedCoordinator/adopt(_:)``) and releases its handlers when it finishes. Changes inside an
/// operation are undone with it (see ``HandlerJournal``). Output slot `s` of the type is table slot
/// `s + 1`; extra output `-1 - i` stays negative (slot 0 holds the names map).
final class ScreenHandlers: LuaFunctionSlots, OutputReceiver {
    unowned let journal: HandlerJournal
    /// Released: the handlers no longer run, and the table goes when the operation succeeds. Exclusivity
    /// unchecked (read on every output): one thread, single reads and assignments.
    @exclusivity(unchecked) fileprivate(set) var released = false

    init(_ lua: LuaState, capacity: Int, names: LuaSlotNames?, journal: HandlerJournal) {
        self.journal = journal
        super.init(lua, capacity: capacity, names: names)
    }

    /// The table slot for an output slot.
    static func slot(_ output: Int) -> Int { output >= 0 ? output + 1 : output }

    func receive(output slot: Int, of screen: Screen, payload: FlowValue?) throws {
        guard !released else { return }
        // The payload as itself, or an explicit nil (the handler's argument count stays the same).
        try call(Self.slot(slot), argument: payload)
    }

    func listens(to slot: Int) -> Bool { !released && contains(Self.slot(slot)) }

    func forget(slot: Int?) {
        if let slot {
            // A Swift handler takes the output: from now on scripts' sets go through Swift, which keeps
            // the last one set in charge.
            unbindNames()
            if !released { try? set(Self.slot(slot), to: nil) }
        } else if !released {
            // Every handler at once (a finished flow's screens): nothing to write now; the table goes
            // when the operation succeeds.
            unbindNames()
            journal.setReleased(self, true)
        }
    }

    /// Sets the handler in table slot `slot` from Swift, starting from an empty table after a release.
    func setHandler(_ slot: Int, toValueAt index: Int32, in stack: LuaStack) throws {
        if released {
            removeAll()
            journal.setReleased(self, false)
        }
        try set(slot, toValueAt: index, in: stack)
    }
}

/// Makes the state's function slots (screen handlers) follow the app's atomic operations: slot changes are
/// logged by serial in LuaKit's ``LuaSlotJournal``; releases are kept here, by serial too, and carried out
/// when the outermost operation succeeds.
final class HandlerJournal: OperationJournal {
    let slots: LuaSlotJournal
    let serial: UnsafePointer<Int>
    /// Releases and revivals made in running operations, oldest first.
    private var changes: [(serial: Int, handlers: ScreenHandlers, released: Bool)] = []

    init(_ lua: LuaState, app: Application) {
        slots = lua.slotJournal
        serial = app.operationSerial
        slots.follow(serial)
    }

    deinit { slots.follow(nil) } // the app, whose counter it follows, goes first

    fileprivate func setReleased(_ handlers: ScreenHandlers, _ released: Bool) {
        if serial.pointee > 0 { changes.append((serial.pointee, handlers, released)) }
        handlers.released = released
        if serial.pointee == 0, released { handlers.dropTable() }
    }

    func operationFailed(serial: Int) {
        slots.rollBack(serial: serial)
        while let last = changes.last, last.serial >= serial {
            last.handlers.released = !last.released
            changes.removeLast()
        }
    }

    func operationsSucceeded() {
        slots.commit()
        guard !changes.isEmpty else { return }
        for change in changes where change.released && change.handlers.released { change.handlers.dropTable() }
        changes.removeAll(keepingCapacity: true)
    }
}
