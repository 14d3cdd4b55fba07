import CoordinatorLua

// Functions the runtime hands to Lua (the module's, the driver functions, methods of screens and
// coordinators, signal handlers) hold what they work on weakly: a host may keep the Lua state, a function
// or a coordinator and let the runtime go, and a finalizer may run while the state closes. Once it is gone,
// they fail with "the coordinator runtime is gone" instead of touching it: the rule is written here, once.

extension LuaState {
    /// A Lua function whose body gets `owner` while it lives, and fails with ``ScriptRuntime/gone(_:)``
    /// once it is gone.
    package func function<Owner: AnyObject>(name: String, holding owner: Owner,
                                            _ body: @escaping (Owner, borrowing LuaCall) throws -> Void) -> LuaFunction {
        function(name: name, holding(owner, body))
    }
}

/// `body` with `owner` while it lives; once it is gone, the error ``ScriptRuntime/gone(_:)``.
package func holding<Owner: AnyObject, Argument: ~Copyable>(
    _ owner: Owner, _ body: @escaping (Owner, borrowing Argument) throws -> Void
) -> (borrowing Argument) throws -> Void {
    { [weak owner] argument in
        guard let owner else { throw ScriptRuntime.gone() }
        try body(owner, argument)
    }
}

/// `body` with `owner` while it lives, for a method of a Lua class (its object and the call); once the
/// owner is gone, the error ``ScriptRuntime/gone(_:)``.
package func holding<Owner: AnyObject, Object>(
    _ owner: Owner, _ body: @escaping (Owner, Object, borrowing LuaCall) throws -> Void
) -> (Object, borrowing LuaCall) throws -> Void {
    { [weak owner] object, call in
        guard let owner else { throw ScriptRuntime.gone() }
        try body(owner, object, call)
    }
}
