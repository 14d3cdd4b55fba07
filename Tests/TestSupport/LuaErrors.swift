import CoordinatorLua

/// Runs `body` and returns the `LuaError` it throws, or nil.
public func luaError(_ body: () throws -> Void) -> LuaError? {
    do { try body() } catch let error as LuaError { return error } catch { return nil }
    return nil
}
