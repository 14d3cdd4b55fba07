import CoordinatorLua

/// A Lua heap the size of an app's runtime (the shop's: about 130 KiB) in an arena, taken as an image
/// (`LuaImage.take`) and put back (`restore`) after a step that changed some of it, against the floor
/// of the same step and copying the same bytes out and back (two array copies): the ratio of their times
/// (target 1.5), and what a round costs.
func imageCase(operations n: Int, rounds: Int) throws -> [BenchResult] {
    let lua = try LuaImage.state(arenaBytes: 64 << 20)
    // Screens, coordinators and their data, as a runtime of a dozen screens holds them.
    try lua.run("""
        app = { screens = {}, flows = {} }
        for i = 1, 40 do
          app.screens[i] = { name = "Screen" .. i, inputs = { title = ("t"):rep(20) .. i, items = {} }, outputs = { "open", "back", "close" } }
          for j = 1, 12 do app.screens[i].inputs.items[j] = { id = j, name = "item " .. j, price = j * 1.5 } end
          app.flows[i] = function(x) return app.screens[i].name .. x end
        end
        collectgarbage()
        """)
    let image = try LuaImage(of: lua)
    let step = try lua.load("app.screens[3].inputs.title = 'changed' app.count = (app.count or 0) + 1", name: "step")
    var copy = [UInt8](repeating: 0, count: image.bytes), heap = [UInt8](repeating: 1, count: image.bytes)
    let times = try compare(rounds: rounds, operations: n, product: {
        for _ in 0..<n {
            try step.call()
            try image.take()
            try image.restore()
        }
    }, floor: {
        for _ in 0..<n {
            try step.call()
            copy.replaceSubrange(copy.indices, with: heap)
            heap.replaceSubrange(heap.indices, with: copy)
        }
    })
    return [BenchResult(name: "image a \(image.bytes >> 10) KiB heap and restore it (a step between)", value: times.product / 1000, unit: "µs",
                        floor: times.floor / 1000, floorName: "the step and two copies of its bytes", target: 1.5,
                        note: "LuaImage take/restore: the ground for exploring by restore")]
}
