import CoordinatorCore
import CoordinatorLua

extension LuaError {
    /// The navigation mistake behind this error, when a script's call into the app (`tap`, `push`,
    /// `finish`, ...) failed: the same `NavigationError` that calling the app from Swift
    /// throws, found through `underlying` however many Lua calls it crossed.
    ///
    /// ```swift
    /// do { try runtime.run("tap('nope')") } catch let error as LuaError {
    ///     error.navigationError?.code   // .unknownOutput, as from app.tap("nope")
    /// }
    /// ```
    public var navigationError: NavigationError? {
        var cause: (any Error)? = underlying
        while let error = cause {
            if let navigation = error as? NavigationError { return navigation }
            cause = (error as? LuaError)?.underlying
        }
        return nil
    }
}
