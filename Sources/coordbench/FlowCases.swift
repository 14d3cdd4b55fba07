import CoordinatorCore
import CoordinatorTools
import CoordinatorLua
#if canImport(Glibc)
import Glibc
#endif

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// The journey UserEdit → selectCity → Regions → regionSelected → Cities → citySelected → UserEdit with
/// the city updated, driven the same way (three taps) in each form.
func drive(_ app: Application) throws {
    try app.tap("selectCity")
    guard let region = app.window.visibleScreen?["regions"]?.listValue?.first else { throw BenchError("no regions") }
    try app.tap("regionSelected", payload: region)
    guard let city = app.window.visibleScreen?["cities"]?.listValue?.last else { throw BenchError("no cities") }
    try app.tap("citySelected", payload: city)
    guard app.window.visibleScreen?.name == "UserEdit" else { throw BenchError("the journey did not end at UserEdit") }
}

/// One journey of the Lua flow, and one of the native flow: separate functions, never inlined, so that
/// `scripts/bench-instructions` reads each one's instructions from callgrind.
/// (Each counts its calls in a global of its own, so the compiler cannot fold the two into one.)
nonisolated(unsafe) var luaJourneys = 0, nativeJourneys = 0 // SAFETY[main-thread]
@inline(never) func luaJourney(_ app: Application) throws { try drive(app); luaJourneys &+= 1 }
@inline(never) func nativeJourney(_ app: Application) throws { try drive(app); nativeJourneys &+= 1 }

/// The same flow written in Swift against the core: the native floor.
final class NativeMain: Coordinator {
    let cities: FlowValue
    var user: FlowValue = .record(["name": "Ann", "city": .record(["name": "Moscow"])])
    init(cities: FlowValue) { self.cities = cities; super.init(name: "Main") }

    override func start(_ args: FlowValue?) throws {
        let screen = try push("UserEdit", inputs: ["user": user])
        try screen.on("selectCity") { [unowned self] _ in
            let picker = NativePicker(cities: cities)
            picker.onFinish = { [unowned self] city, _ in
                guard let city else { return }
                if case .record(var fields) = user { fields["city"] = city; user = .record(fields) }
                _ = try app?.update("user", to: user)
            }
            try run(picker)
        }
    }
}

final class NativePicker: Coordinator {
    let cities: FlowValue
    init(cities: FlowValue) { self.cities = cities; super.init(name: "CityPicker") }

    override func start(_ args: FlowValue?) throws {
        let regions = try push("Regions", inputs: ["federal": cities["federal"] ?? [], "regions": cities["regions"] ?? []])
        try regions.on("citySelected") { [unowned self] city in try finish(city) }
        try regions.on("regionSelected") { [unowned self] region in
            let list = try push("Cities", inputs: ["region": region?["name"] ?? "", "cities": region?["cities"] ?? []])
            try list.on("citySelected") { [unowned self] city in try finish(city) }
        }
    }
}

func journeyCases(journeys n: Int, rounds: Int, root: String) throws -> [BenchResult] {
    // The product: scripts/app.lua over the Swift core.
    let runtime = try ScriptRuntime(state: .main, driverFunctions: true)
    runtime.lua.tracebacks = false
    try runtime.load(script: root + "/scripts/app.lua")
    try runtime.start()
    let cities = try runtime.lua.evaluate("return require 'cities'", name: "bench", as: FlowValue.self)

    // The native floor: the same screens, the same flow in Swift.
    let native = Application(state: .main)
    for type in runtime.app.catalog.names.compactMap({ runtime.app.catalog.types[$0] }) {
        native.catalog.register(ScreenType(type.name, inputs: type.inputs, outputs: type.outputs, title: type.title))
    }
    // The same tree as `flow.app { authorization = Login, main = Main }` builds: the core's application
    // coordinator at the root, the main flow under it.
    let nativeRoot = ApplicationCoordinator(name: "App")
    nativeRoot.flows[.main] = { NativeMain(cities: cities) }
    try native.start(nativeRoot)

    // What someone who only wanted Lua would write: a minimal navigation stack in plain Lua.
    let plain = try LuaState()
    plain.tracebacks = false
    try plain.globals.set("cities", cities)
    let plainJourneys = try plain.load(EmbeddedFile.plainJourneysLua, name: "plain") // plain_journeys.lua, beside this file

    var lua = Double.infinity, swift = Double.infinity, pure = Double.infinity
    for _ in 0..<rounds {
        lua = min(lua, try best(rounds: 1, operations: n) { for _ in 0..<n { try luaJourney(runtime.app) } })
        swift = min(swift, try best(rounds: 1, operations: n) { for _ in 0..<n { try nativeJourney(native) } })
        pure = min(pure, try best(rounds: 1, operations: n) { try plainJourneys.callValues(n) })
    }
    guard runtime.app.window.visibleScreen?["user"]?["city"]?["name"] == cities["regions"]?.listValue?.first?["cities"]?.listValue?.last?["name"] else {
        throw BenchError("the Lua journey did not update the city")
    }
    let perSecond = { (ns: Double) in 1e9 / ns }
    return [
        BenchResult(name: "journey: Lua flow over the Swift core", value: lua / 1000, unit: "us", floor: swift / 1000,
                    floorName: "native Swift", target: 1.5, note: "\(Int(perSecond(lua))) journeys/s"),
        BenchResult(name: "journey: native Swift flow", value: swift / 1000, unit: "us", note: "\(Int(perSecond(swift))) journeys/s"),
        BenchResult(name: "journey: plain Lua, minimal stack", value: pure / 1000, unit: "us",
                    note: "\(Int(perSecond(pure))) journeys/s (no atomicity, events, checks)"),
    ]
}

/// A runtime running the app a script declares with `flow.app { bench = Root }`, started, tracebacks off.
func benchApp(_ script: String) throws -> ScriptRuntime {
    let runtime = try ScriptRuntime(state: AppState("bench"), driverFunctions: true)
    runtime.lua.tracebacks = false
    try runtime.run(script, name: "bench")
    try runtime.start()
    return runtime
}

/// Lua: a `Root:start` that builds a tree of `nodes` coordinators of the class `Node` (itself included),
/// ten children a node, breadth first; `each` is Lua run with each new `child`.
func treeBuilder(nodes: Int, each: String = "") -> String {
    """
    function Root:start()
      local queue, head, made = { self }, 1, 1
      while made < \(nodes) do
        local parent = queue[head]; head = head + 1
        for _ = 1, 10 do
          if made >= \(nodes) then break end
          local child = parent:run(Node)
          made = made + 1
          \(each)
          queue[#queue + 1] = child
        end
      end
    end
    """
}

/// A signal from the root of a tree of `nodes` Lua coordinators, every tenth with a Lua receiver.
func signalCase(nodes: Int, rounds: Int) throws -> [BenchResult] {
    let runtime = try benchApp("""
        local flow = require "coordinator"
        local Node = flow.coordinator "Node"
        local Root = flow.coordinator "Root"
        received = 0
        \(treeBuilder(nodes: nodes, each: "if made % 10 == 0 then child:onSignal('ping', function(p) received = received + 1 end) end"))
        flow.app { bench = Root }
        """)
    guard let root = runtime.app.root, runtime.app.live.coordinators >= nodes else { throw BenchError("the tree was not built") }
    let ns = try best(rounds: rounds, operations: nodes) { _ = try root.send("ping", payload: .int(1)) }
    let received = try runtime.lua.evaluate("return received", as: Int.self)
    guard received == (nodes / 10) * rounds else { throw BenchError("receivers heard \(received) signals") }
    return [BenchResult(name: "signal over \(nodes) coordinators, 1/10 receive", value: ns, unit: "ns/node", target: 100, targetIsRatio: false)]
}

/// Bytes per live coordinator that holds one screen with one input (Lua heap and Swift side).
func memoryCase(coordinators n: Int) throws -> [BenchResult] {
    let runtime = try benchApp("""
        local flow = require "coordinator"
        flow.screen "One" { inputs = { "value" } }
        local Holder = flow.coordinator "Holder"
        function Holder:start(i) self:push("One", { value = i }) end
        local Root = flow.coordinator "Root"
        function Root:start() rootInstance = self end
        function Root:grow(n) for i = 1, n do self:run(Holder, i) end end
        flow.app { bench = Root }
        """)
    runtime.lua.collectGarbage()
    let luaBefore = runtime.lua.memoryUsed, mallocBefore = mallocBytes()
    try runtime.run("rootInstance:grow(\(n))", name: "bench")
    runtime.lua.collectGarbage()
    let lua = Double(runtime.lua.memoryUsed - luaBefore) / Double(n)
    let total = Double(mallocBytes() - mallocBefore) / Double(n)
    guard runtime.app.live.coordinators > n, runtime.app.live.screens >= n else { throw BenchError("coordinators were not kept") }
    return [BenchResult(name: "memory per coordinator + 1 screen, 1 input", value: total, unit: "B", target: 2048, targetIsRatio: false,
                        note: "Lua heap \(Int(lua)) B of it; \(n) live")]
}

/// 100,000 cycles of start child → push → system back: counts and heap back to where they started.
func leakCase(cycles n: Int) throws -> [BenchResult] {
    let runtime = try benchApp("""
        local flow = require "coordinator"
        flow.screen "Home" { outputs = { "open" } }
        flow.screen "Page" { inputs = { "n" }, outputs = { "next" } }
        local Child = flow.coordinator "Child"
        function Child:start(n)
          local page = self:push("Page", { n = n })
          page.onNext = function() self:finish(n) end
        end
        local Root = flow.coordinator "Root"
        function Root:start()
          local home = self:push("Home")
          local count = 0
          home.onOpen = function() count = count + 1 self:run(Child, count, { onFinish = function() end }) end
        end
        flow.app { bench = Root }
        """)
    let app = runtime.app
    func cycle() throws { try app.tap("open"); try app.back() }
    // Warm-up: tables that grow to a working size (the registry, the string table) get there first.
    for _ in 0..<max(n / 10, min(1000, n)) { try cycle() }
    runtime.lua.collectGarbage()
    let heap = runtime.lua.memoryUsed, coordinators = app.live.coordinators, screens = app.live.screens
    var blocks: [Int] = [] // the heap after each quarter: a leak shows as a trend
    for _ in 0..<4 {
        for _ in 0..<n / 4 { try cycle() }
        runtime.lua.collectGarbage()
        blocks.append(runtime.lua.memoryUsed)
    }
    let heapAfter = runtime.lua.memoryUsed
    let growth = Double(heapAfter - heap) / Double(heap)
    let ok = growth <= 0.01 && app.live.coordinators == coordinators && app.live.screens == screens // shrinking is no leak
    var result = BenchResult(name: "leaks: \(n) start → push → system back", value: growth * 100, unit: "% heap",
                             target: 1, targetIsRatio: false,
                             note: """
                                 heap \(heap) → \(blocks.map(String.init).joined(separator: " → ")) B; coordinators \
                                 \(coordinators) → \(app.live.coordinators); screens \(screens) → \
                                 \(app.live.screens);
                                 """ + " " + (ok ? "PASS" : "FAIL"))
    result.countsDiffer = app.live.coordinators != coordinators || app.live.screens != screens
    return [result]
}

/// Reloading a generated flow script of `lines` lines, which requires the source app (scripts/app.lua and
/// its cities), while the app sits three screens deep.
func reloadCase(lines: Int, rounds: Int, root: String) throws -> [BenchResult] {
    let script = "/tmp/coordbench-\(getpid()).lua"
    defer { unlink(script) }
    var text = "local flow = require \"coordinator\"\nrequire \"app\"\n\n"
    var count = 3
    var i = 0
    while count < lines {
        text += """
            flow.screen "Generated\(i)" {
              title = "Generated screen \(i)",
              inputs = { "a", "b" },
              outputs = { "next", chosen = "value" },
              render = function(screen) return "screen \(i): " .. tostring(screen.a) end,
            }
            local Generated\(i) = flow.coordinator "Generated\(i)"
            function Generated\(i):start(args)
              local screen = self:push("Generated\(i)", { a = args, b = \(i) })
              screen.onNext = function() self:finish(args) end
              screen.onChosen = function(value) self:finish(value) end
            end

            """
        count += 12
        i += 1
    }
    guard writeFile(script, text) else { throw BenchError("cannot write \(script)") }
    let runtime = try ScriptRuntime(state: .main, driverFunctions: true)
    try runtime.lua.addModuleDirectory(root + "/scripts")
    try runtime.load(script: script)
    try runtime.start()
    try runtime.run("tap('selectCity') tap('regionSelected', top().regions[1])", name: "bench")
    let stack = runtime.app.window.visibleStack.map(\.id)
    let ms = try best(rounds: rounds, operations: 1) { try runtime.reload() } / 1e6
    guard runtime.app.window.visibleStack.map(\.id) == stack, stack.count == 3 else { throw BenchError("reload moved the app") }
    // Edited: a line added at the top moves every function, so both texts are scanned and every live
    // closure of the file is matched (the file is written before each reload, in the time measured).
    var edits = 0
    let edited = try best(rounds: rounds, operations: 1) {
        edits += 1
        guard writeFile(script, "-- edit \(edits)\n" + text) else { throw BenchError("cannot write \(script)") }
        try runtime.reload()
    } / 1e6
    guard runtime.app.window.visibleStack.map(\.id) == stack else { throw BenchError("reload moved the app") }
    return [BenchResult(name: "reload a \(count)-line script + the app, 3 deep", value: ms, unit: "ms", target: 10, targetIsRatio: false),
            BenchResult(name: "the same, every line moved by an edit", value: edited, unit: "ms", target: 10, targetIsRatio: false)]
}

func writeFile(_ path: String, _ text: String) -> Bool {
    guard let file = fopen(path, "wb") else { return false }
    defer { fclose(file) }
    let bytes = Array(text.utf8)
    return fwrite(bytes, 1, bytes.count, file) == bytes.count
}

/// A flow test file of 100 tests, each walking login -> profile -> city pick from a fresh app, run as
/// `coordrun test` runs it (target: the whole file in at most 1 s).
/// `coordrun test` on files of empty tests, `sizes` of them: the cost of a test as its file grows (each test
/// runs in a fresh app, found again after every test by a collection of the whole heap, which holds the
/// tests still to run).
func emptyTestsCurve(sizes: [Int], root: String) throws -> BenchResult {
    let folder = "/tmp/coordbench-empty-\(getpid())"
    mkdir(folder, 0o755)
    let file = folder + "/empty_test.lua"
    defer { unlink(file); rmdir(folder) }
    var costs: [Double] = []
    for size in sizes {
        var text = "app \"\(root)/scripts/app.lua\"\n"
        for i in 0..<size { text += "test(\"t\(i)\", function() end)\n" }
        guard writeFile(file, text) else { throw BenchError("cannot write \(file)") }
        let seconds = try best(rounds: 1, operations: 1) {
            let results = try FlowTests.run(file)
            guard results.count == size, results.allSatisfy({ $0.outcome == .passed }) else { throw BenchError("the empty tests did not all pass") }
        } / 1e9
        costs.append(seconds * 1e6 / Double(size))
    }
    let points = zip(sizes, costs).map { "\($0): \(BenchResult.format($1))" }.joined(separator: ", ")
    return BenchResult(name: "coordrun test: a file of \(sizes.map(String.init).joined(separator: "/")) empty tests (growth per test)",
                       value: (costs.last ?? .nan) / (costs.first ?? .nan), unit: "x", target: 1.5, targetIsRatio: false,
                       note: "µs a test at " + points)
}

func flowTestsCase(tests: Int, rounds: Int, root: String) throws -> [BenchResult] {
    let folder = "/tmp/coordbench-tests-\(getpid())"
    mkdir(folder, 0o755)
    let file = folder + "/bench_test.lua"
    defer { unlink(file); rmdir(folder) }
    var text = "app \"\(root)/scripts/app.lua\"\n"
    for i in 0..<tests {
        text += """
            test("walk \(i)", function()
              tap("login", { name = "Ann", password = "secret" })
              tap("selectCity")
              tap("regionSelected", top().regions[1])
              tap("citySelected", top().cities[2])
              expect.stack { "UserEdit" }
            end)

            """
    }
    guard writeFile(file, text) else { throw BenchError("cannot write \(file)") }
    var failed = 0
    let seconds = try best(rounds: rounds, operations: 1) {
        let results = try FlowTests.run(file)
        failed = results.filter { $0.outcome != .passed }.count
    } / 1e9
    guard failed == 0 else { throw BenchError("\(failed) of the bench's flow tests failed") }
    return [BenchResult(name: "coordrun test: \(tests) tests, each login -> city pick from a fresh app", value: seconds * 1000, unit: "ms",
                        target: 1000, targetIsRatio: false, note: String(format: "%.2f ms a test", seconds * 1000 / Double(tests)))]
}
