import CoordinatorScript

/// The heap images a walk down a batch's paths keeps (``Explorer``'s walk): one at each depth where paths
/// part, its storage taken again for the next state at that depth. The collector is paused in the branches
/// the walk goes down: where the garbage of the steps on the way has grown past what was alive, it is
/// collected first (without finalizers, whose effects a restore could not take back), so that images copy
/// what is alive rather than what piled up.
struct WalkImages {
    private var images: [Int: LuaImage] = [:]
    /// The heap's size after the last collection.
    private var aliveAfterCollection = 0

    /// The image of the state `runtime` is at, `depth` steps from the base.
    mutating func take(at depth: Int, of runtime: ScriptRuntime) throws -> LuaImage {
        let lua = runtime.lua
        if lua.memoryUsed > 2 * max(aliveAfterCollection, 64 << 10) {
            try lua.branchCollections.withoutFinalizers()
            aliveAfterCollection = lua.memoryUsed
        }
        if let image = images[depth] {
            try image.take()
            return image
        }
        let image = try runtime.branchPoint()
        images[depth] = image
        return image
    }
}
