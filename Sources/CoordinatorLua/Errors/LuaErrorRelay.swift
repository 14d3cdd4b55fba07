/// What a Swift callback that raises a Lua error leaves for the Swift call that catches it: Lua carries
/// only the message, so the Swift error it came from, the traceback of a nested call that raised it first,
/// and the object of a nested Lua error are kept here under that message, and given back to the error
/// popped with the same message (``LuaCore/popError(_:status:interrupted:exhausted:)``).
final class LuaErrorRelay {
    /// The Swift error most recently turned into a Lua error, to hand back as `underlying`.
    private var swiftError: (message: String, error: any Error)?
    /// The traceback of a Lua error that a nested call raised and a callback passed on, so that the error
    /// keeps the stack where it really happened.
    private var traceback: (message: String, traceback: String)?
    /// The object of an error Lua raised in a nested call, which a Swift callback passed on as its message:
    /// the outer error takes it back (``LuaError/value``).
    private var value: (message: String, value: LuaErrorValue)?

    /// A callback raises `error`, a Swift error, as `message`.
    func raising(_ error: any Error, as message: String) { swiftError = (message, error) }

    /// A callback passes on `error`, which Lua raised in a nested call.
    func passing(_ error: LuaError) {
        if let underlying = error.underlying { swiftError = (error.message, underlying) }
        if let traceback = error.traceback { self.traceback = (error.message, traceback) }
        if let value = error.value { self.value = (error.message, value) }
    }

    /// What was kept for the error popped with `message` (each part only when kept under that message);
    /// everything kept is dropped.
    func take(for message: String) -> (underlying: (any Error)?, traceback: String?, value: LuaErrorValue?) {
        defer { clear() }
        return (swiftError.flatMap { $0.message == message ? $0.error : nil }, traceback.flatMap { $0.message == message ? $0.traceback : nil },
                value.flatMap { $0.message == message ? $0.value : nil })
    }

    /// Drops everything kept (the state closes: an error can hold objects that hold the state).
    func clear() { (swiftError, traceback, value) = (nil, nil, nil) }
}
