import CoordinatorCore
import CoordinatorLua

extension ScriptRuntime {
    /// Whether the runtime can branch (``branch(from:_:)``): it was made `imageable`.
    package var canBranch: Bool { LuaImage.canImage(lua) }

    /// An image of the scripts' heap now: where ``branch(from:_:)`` comes back to.
    package func branchPoint() throws -> LuaImage { try LuaImage(of: lua) }

    /// Runs `body` and then brings the runtime back exactly where it was: the app by its journal
    /// (``Application/branch(_:)``: each operation in `body` is an outermost one, with its events and
    /// commit-time work), the scripts' heap by `image`, which must have been taken where the runtime is now
    /// (between operations, with nothing changed since). The collector is paused in the branch. What `body`
    /// returns must not hold the branch's Lua values: they are dead after it.
    ///
    /// Fails after `body` only when the heap cannot be brought back exactly (no memory was left to note what
    /// it must settle): the runtime is then not to be used again.
    package func branch<T>(from image: LuaImage, _ body: () throws -> T) throws -> T {
        let result: Result<T, any Error>
        do {
            result = .success(try app.branch {
                image.pauseCollector()
                return try body()
            })
        } catch {
            result = .failure(error)
        }
        try image.restore()
        return try result.get()
    }
}
