/// Where a screen's outputs go when no handler was set for them with ``Screen/on(_:_:)``: a scripting
/// bridge keeps the handlers its scripts set in its own language (the Lua bridge keeps a screen's in one
/// Lua table) and hears the outputs here, by slot, without a Swift closure per handler.
///
/// A slot numbers an output: ``ScreenType/outputSlots`` for the type's outputs (stable when the type is
/// redefined), `-1 - i` for the screen's own extra output `i` (an alert's actions). The receiver keeps
/// its handlers' state for undo itself; the screen only asks it.
///
/// Package API: what a scripting bridge in this package plugs in. Hosts handle outputs with
/// ``Screen/on(_:_:)``.
///
/// ```swift
/// final class Recorder: OutputReceiver {
///     var heard: [Int] = []
///     func receive(output slot: Int, of screen: Screen, payload: FlowValue?) throws -> Bool { heard.append(slot); return true }
///     func listens(to slot: Int) -> Bool { true }
///     func forget(slot: Int?) {}
/// }
/// screen.outputReceiver = Recorder()
/// ```
package protocol OutputReceiver: AnyObject {
    /// Runs the handler for the output in `slot`, if there is one; whether there was (an output nothing
    /// hears is counted: ``Application/unheard``).
    func receive(output slot: Int, of screen: Screen, payload: FlowValue?) throws -> Bool
    /// Whether a handler listens to the output in `slot`.
    func listens(to slot: Int) -> Bool
    /// Drops the handler for the output in `slot`, or every handler when nil: the screen calls it when a
    /// Swift handler replaces the receiver's, or when its handlers are removed.
    func forget(slot: Int?)
    /// The handler for the output in `slot` as it is now, to run once the screen has gone (an alert's
    /// action runs after the alert is dismissed, which drops the handlers set on it): true when it heard.
    func answer(output slot: Int, of screen: Screen) throws -> (FlowValue?) throws -> Bool
}

extension OutputReceiver {
    /// A receiver that keeps its handlers when the screen goes answers later as it would now.
    package func answer(output slot: Int, of screen: Screen) throws -> (FlowValue?) throws -> Bool {
        { payload in try self.receive(output: slot, of: screen, payload: payload) }
    }
}

