// The Swift snippets of README.md and docs/*.md, each as the body of a function, compiled with the
// tests (DocSnippetTests checks that this is what the docs hold now). Written by scripts/doc-snippets:
// do not edit.
import Foundation
import CoordinatorCore
import CoordinatorLua
import CoordinatorScript
import CoordinatorTools

// README.md, snippet 1: not compiled: a manifest fragment (examples/SwiftHost's Package.swift is built in the suite)

// README.md, snippet 2
extension DocSnippets {
    @MainActor func readme_md_2() async throws {

        let session = try ScriptSession(timeLimit: 1)      // each call may run Lua for at most 1 s
        try await session.load(script: URL(fileURLWithPath: "flows/app.lua"))
        try await session.start()
        try await session.tap("login", payload: ["name": "Ann", "password": "secret"])
        print(try await session.visibleStack())             // ["UserEdit"]
    }
}

// README.md, snippet 3
extension DocSnippets {
    @MainActor func readme_md_3() async throws {

        let lua = try LuaState()
        try lua.globals.set("greeting", "hello")
        try lua.globals.set("shout", lua.function(name: "shout") { (s: String) in s.uppercased() })
        let result: String = try lua.evaluate("return shout(greeting) .. '!'")   // "HELLO!"
    }
}

// docs/CoordinatorLua.md, snippet 1
extension DocSnippets {
    @MainActor func docs_coordinatorlua_md_1() async throws {

        let lua = try LuaState()                 // all standard libraries
        let sandbox = try LuaState(libraries: .safe)  // no io, os, package, debug; load() takes text chunks only

        try lua.run("x = 40 + 2", name: "setup.lua")
        let x: Int = try lua.evaluate("return x")         // 42
        try lua.runMainScript("scripts/app.lua")         // require finds modules next to it first
        lua.close()                                       // or let it go; closes exactly once
    }
}

// docs/CoordinatorLua.md, snippet 2
extension DocSnippets {
    @MainActor func docs_coordinatorlua_md_2() async throws {
        try lua.globals.set("regions", ["Ulyanovsk Oblast": ["Ulyanovsk", "Dimitrovgrad"]])
        let count: Int = try lua.evaluate("return #regions['Ulyanovsk Oblast']")             // 2
        let big: Int = try lua.evaluate("return (1 << 53) + 1")                             // 9007199254740993
        let user = try lua.evaluate("return { name = 'Ann', city = { name = 'Moscow' } }", as: LuaTable.self)
        let city: [String: String] = try user.get("city")                                    // ["name": "Moscow"]
    }
}

// docs/CoordinatorLua.md, snippet 3
extension DocSnippets {
    @MainActor func docs_coordinatorlua_md_3() async throws {
        // Typed closures: arguments are checked, results pushed.
        try lua.globals.set("double", lua.function(name: "double") { (x: Int) in x * 2 })

        // The general form: read arguments from the call, push any number of results.
        try lua.globals.set("divmod", lua.function(name: "divmod") { call in
            let a = try call.integer(1), b = try call.integer(2)
            guard b != 0 else { throw call.badArgument(2, "division by zero") }
            try call.push(a / b)
            try call.push(a % b)
        })
    }
}

// docs/CoordinatorLua.md, snippet 4
extension DocSnippets {
    @MainActor func docs_coordinatorlua_md_4() async throws {
        let add = try lua.evaluate("return function(a, b) return a + b end", as: LuaFunction.self)
        let sum: Int = try add.call(2, 3, as: Int.self)            // the first result, converted
        let all = try add.callValues(2, 3)                          // every result, as [LuaValue]
        try handler.call(payload, "selected")                       // results dropped: no arrays, no boxing
        let (changed, answer) = try f.call(payload) { results in    // results read in place on the stack
            (results.isNil(1) ? nil : try results.read(1, as: String.self), results[2])
        }
    }
}

// docs/CoordinatorLua.md, snippet 5
extension DocSnippets {
    @MainActor func docs_coordinatorlua_md_5() async throws {
        let onTap = try LuaCallback(lua.evaluate("return function(x) print('tapped', x) end", as: LuaFunction.self))
        try onTap.call(42)                                      // tapped 42
        try onTap.replace(with: newVersion)                     // same object, new code
        let callback = try call.argument(2, as: LuaCallback.self) // straight from a Swift function's argument
    }
}

// docs/CoordinatorLua.md, snippet 6
extension DocSnippets {
    @MainActor func docs_coordinatorlua_md_6() async throws {
        struct City: LuaPushable, LuaReadable {
            var name: String
            func push(to stack: borrowing LuaStack) throws { try stack.push(["name": name]) }
            static func read(from stack: borrowing LuaStack, at index: Int32) throws -> City {
                City(name: try stack.read([String: String].self, at: index)["name"] ?? "")
            }
        }
    }
}

// docs/CoordinatorLua.md, snippet 7
extension DocSnippets {
    @MainActor func docs_coordinatorlua_md_7() async throws {
        final class Counter { var value = 0 }

        try lua.register(Counter.self, name: "Counter") { c in
            c.method("increment") { (counter: Counter, by: Int) in
                counter.value += by
                return counter.value
            }
            c.property("value", get: { $0.value }, set: { $0.value = $1 })
            c.toString { "Counter(\($0.value))" }
        }
        let counter = Counter()
        try lua.globals.set("counter", lua.userdata(counter))
        try lua.run("counter:increment(2); counter.value = counter.value * 10")
        // counter.value == 20; tostring(counter) == "Counter(20)"
    }
}

// docs/CoordinatorLua.md, snippet 8
extension DocSnippets {
    @MainActor func docs_coordinatorlua_md_8() async throws {
        do {
            try lua.run("local user = nil\nreturn user.name", name: "profile.lua")
        } catch let error as LuaError {
            error.kind        // .runtime   (.syntax, .memory, .interrupted, .budgetExhausted, .type, .misuse, ...)
            error.location    // "profile.lua:2"
            error.reason      // "attempt to index a nil value (local 'user')"
            error.traceback   // "stack traceback:\n\tprofile.lua:2: in main chunk"
        }
    }
}

// docs/CoordinatorLua.md, snippet 9
extension DocSnippets {
    @MainActor func docs_coordinatorlua_md_9() async throws {
        do { try lua.run("error({ code = 404, reason = 'no such city' })") } catch let error as LuaError {
            error.value?["code"]     // .integer(404)
            error.value?["reason"]   // .string("no such city")
        }
    }
}

// docs/CoordinatorLua.md, snippet 10
extension DocSnippets {
    @MainActor func docs_coordinatorlua_md_10() async throws {
        do { try lua.run("greet('a', {})") } catch let error as LuaError {
            if case .badArgument(let argument)? = error.detail {
                argument.position   // 2
                argument.function   // "greet"
                argument.expected   // "string"
                argument.got        // "table"
            }
        }
        // table.get("name", as: String.self) on a table value: detail == .conversion(expected: "string", got: "table")
    }
}

// docs/CoordinatorLua.md, snippet 11
extension DocSnippets {
    @MainActor func docs_coordinatorlua_md_11() async throws {
        lua.memoryLimit = 64 << 20      // bytes Lua code may allocate; beyond it: LuaError(.memory, "not enough memory")
        lua.instructionBudget = 10_000_000  // per call from Swift; beyond it: LuaError(.budgetExhausted, ...)
        lua.interrupt()                 // from a callback: stop the running code with "interrupted"
        try lua.withTimeLimit(0.5) { try lua.run(code) }         // "timed out" after half a second
        try lua.withCancellation(flag) { try lua.run(code) }     // flag.cancel() from any thread: "cancelled"
        try await lua.cancellable { try lua.run(code) }          // cancelling the task: "cancelled"
    }
}

// docs/CoordinatorLua.md, snippet 12
extension DocSnippets {
    @MainActor func docs_coordinatorlua_md_12() async throws {
        lua.onWarning { message in log.warning("\(message)") }
    }
}

// docs/CoordinatorLua.md, snippet 13
extension DocSnippets {
    @MainActor func docs_coordinatorlua_md_13() async throws {
        actor FlowHost {
            let lua: LuaState
            init() throws { lua = try LuaState() }
            func run(_ code: String) throws -> Int { try lua.evaluate(code) }
        }
    }
}

// docs/CoordinatorLua.md, snippet 14
extension DocSnippets {
    @MainActor func docs_coordinatorlua_md_14() async throws {
        let prelude = try String(contentsOfFile: "flows/prelude.lua", encoding: .utf8)
        for _ in 0..<1000 {
            let lua = try LuaState()
            try lua.load(prelude, name: "@flows/prelude.lua", cached: true).call()   // compiled the first time only
        }
        LuaChunkCache.statistics   // chunks, bytes, hits, misses
        LuaChunkCache.removeAll()  // e.g. after the files changed for good
    }
}

// docs/Core.md, snippet 1
extension DocSnippets {
    @MainActor func docs_core_md_1() async throws {
        try coordinator.perform(.sequence([.popToRoot, .push(details), .present(alert)]))   // all, or nothing
    }
}

// docs/Core.md, snippet 2
extension DocCoordinator {
    @MainActor func docs_core_md_2() async throws {
        var user: FlowRecord = ["name": "Ann", "city": ["name": "Moscow"]]
        user["city"]?["name"]?.stringValue     // "Moscow"
        user["age"] = 30                       // nil removes a field
        let screen = try push("UserEdit", inputs: ["user": .record(user)])
        for (name, value) in screen.inputs { print(name, value) }
    }
}

// docs/Core.md, snippet 3
extension DocCoordinator {
    @MainActor func docs_core_md_3() async throws {
        let app = Application(state: .authorization)
        app.catalog.register(ScreenType("Regions", inputs: ["federal", "regions"], outputs: [
            OutputSpec("citySelected", payload: .choice(from: "federal")),
            OutputSpec("regionSelected", payload: .choice(from: "regions")),
        ]))
        app.catalog.register(ScreenType("Cities", inputs: [InputSpec("cities", required: true)],
                                        outputs: [OutputSpec("citySelected", payload: .choice(from: "cities"))]))

        final class CityPickerCoordinator: Coordinator {
            override func start(_ args: FlowValue?) throws {
                let regions = try push("Regions", inputs: ["federal": federal, "regions": regions])
                try regions.on("citySelected") { [unowned self] city in try self.finish(city) }
                try regions.on("regionSelected") { [unowned self] region in
                    let cities = try self.push("Cities", inputs: ["cities": region?["cities"] ?? []])
                    try cities.on("citySelected") { [unowned self] city in try self.finish(city) }
                }
            }
        }

        // In the coordinator that owns the profile screen:
        let picker = CityPickerCoordinator(name: "CityPicker")
        picker.onFinish = { city, reason in            // reason: .finished, or .systemBack when the user went back
            guard let city else { return }
            try app.update("user", to: user.with("city", city))   // every shown screen with input `user`
        }
        try run(picker)
    }
}

// docs/Core.md, snippet 4
extension DocSnippets {
    @MainActor func docs_core_md_4() async throws {
        try app.tap("regionSelected", payload: regions[0])   // the visible screen emits an output
        try app.back()                                       // Back button / edge swipe / swipe-down on a modal
        app.window.visibleScreen?.name                       // what the user sees
        app.window.visibleStack.map(\.name)                  // ["UserEdit", "Regions"], modals included
        print(app.window.hierarchyDescription)               // the whole hierarchy, tabs and modals
    }
}

// docs/Core.md, snippet 5
extension DocSnippets {
    @MainActor func docs_core_md_5() async throws {
        storage.onSignal("noteCreated") { signal in
            try save(signal.payload)
            signal.reply("saved")
        }
        let signal = try newNoteScreen.send("noteCreated", payload: ["text": "milk"])
        signal.replies        // ["saved"]
    }
}

// docs/Embedding.md, snippet 1
extension DocSnippets {
    @MainActor func docs_embedding_md_1() async throws {

        let runtime = try ScriptRuntime()
        try runtime.load(script: "scripts/app.lua")
        try runtime.start()
        try runtime.app.tap("login", payload: ["name": "Ann", "password": "secret"])
        runtime.app.window.visibleScreen?.name          // "UserEdit"
    }
}

// docs/Embedding.md, snippet 2

/// Logs every transition a coordinator asks for, then lets the router it wraps (usually the headless one,
/// which keeps the window model right) perform it.
final class LoggingRouter: Router {
    private let base: any Router
    private let log: (String) -> Void

    init(wrapping base: any Router, log: @escaping (String) -> Void = { print($0) }) {
        self.base = base
        self.log = log
    }

    var stack: NavigationStack { base.stack }

    func perform(_ transition: Transition, for coordinator: Coordinator, animated: Bool) throws {
        log("\(coordinator.name): \(transition)")
        try base.perform(transition, for: coordinator, animated: animated)
    }

    /// Modals and tabs get a logging router of their own.
    func router(on stack: NavigationStack) -> any Router {
        LoggingRouter(wrapping: base.router(on: stack), log: log)
    }
}

// docs/Embedding.md, snippet 3
extension DocSnippets {
    @MainActor func docs_embedding_md_3() async throws {
        try runtime.start { app in LoggingRouter(wrapping: app.headlessRouter()) }
    }
}

// docs/Embedding.md, snippet 4
extension DocSnippets {
    @MainActor func docs_embedding_md_4() async throws {
        await session.registerRequest("checkPassword") { credentials in
            // A real call, off the session's actor.
            if let token = try await api.check(credentials) { return ("ok", ["token": .string(token)]) }
            return ("refused", nil)
        }
    }
}

// docs/Embedding.md, snippet 5
extension DocSnippets {
    @MainActor func docs_embedding_md_5() async throws {
        final class UserStorage: ScriptStorage {
            let database: Database, user: String
            init(database: Database, user: String) { (self.database, self.user) = (database, user) }
            func load() throws -> FlowRecord { database.values(of: user) }
            func save(_ values: FlowRecord) throws { database.save(values, of: user) }
        }
        try await session.useStorage { UserStorage(database: database, user: name) }   // before load: scripts read it
        try await session.load(script: flowsURL)
    }
}

// docs/Embedding.md, snippet 6
extension DocSnippets {
    @MainActor func docs_embedding_md_6() async throws {
        let session = try ScriptSession(timeLimit: 1) { runtime in     // @Sendable: it runs in the session's domain
            runtime.app.catalog.register(profileScreenType())          // Swift screens and services first
            runtime.registerCoordinator("ProfileStore") { ProfileStore(name: "ProfileStore") }
        }
        try await session.load(script: flowsURL)
        try await session.start { app in LoggingRouter(wrapping: app.headlessRouter()) }   // or start(): headless
        let events = await session.events()                              // an AsyncStream<NavigationEvent>
        try await session.tap("login", payload: ["name": "Ann", "password": "secret"])
    }
}

// docs/Embedding.md, snippet 7
extension DocSnippets {
    @MainActor func docs_embedding_md_7() async throws {
        runtime.app.catalog.register(ScreenType("Editor", inputs: ["status"], outputs: [OutputSpec("save", payload: .value)]))
        runtime.registerCoordinator("Storage") { StorageCoordinator(name: "Storage") }   // Lua: self:run(flow.coordinator "Storage")
    }
}

// docs/Embedding.md, snippet 8
extension DocSnippets {
    @MainActor func docs_embedding_md_8() async throws {
        let runtime = try ScriptRuntime(driverFunctions: true)   // or later: try runtime.installDriverFunctions()
        try runtime.run("tap('selectCity')")
    }
}

// docs/Embedding.md, snippet 9
extension DocSnippets {
    @MainActor func docs_embedding_md_9() async throws {
        var transcript = ""
        let repl = try REPL(runtime: runtime, mode: .repl) { transcript += $0 }   // installs the driver functions
        repl.handle("=stack()")                      // transcript: { "Login" }
        repl.handle("for i = 1, 2 do")               // incomplete: repl.isContinuing, repl.prompt == ">> "
        repl.handle("end")
        repl.completions(for: "top():ti", lineBefore: "")   // ["top():title"]
    }
}

// docs/Embedding.md, snippet 10
extension DocSnippets {
    @MainActor func docs_embedding_md_10() async throws {
        repl.makeFreshRuntime = { sources in
            let fresh = try ScriptRuntime(driverFunctions: true)
            fresh.lua.sourceOverrides = sources
            try fresh.load(script: path)
            try fresh.start()
            return fresh
        }
    }
}

// docs/Embedding.md, snippet 11
extension DocSnippets {
    @MainActor func docs_embedding_md_11() async throws {
        actor Flows {
            let lua: LuaState
            init() throws { lua = try LuaState() }
            func run(_ code: String) async throws { try await lua.cancellable { _ = try lua.run(code) } }
        }
        let flows = try Flows()
        let task = Task { try await flows.run("while true do end") }
        task.cancel()   // the task ends with a LuaError: "...: cancelled"
    }
}

// docs/Embedding.md, snippet 12
extension DocSnippets {
    @MainActor func docs_embedding_md_12() async throws {
        let events = app.navigationEvents()
        Task { @MainActor in for await event in events { log(event) } }
    }
}

// docs/Explore.md, snippet 1
extension DocSnippets {
    @MainActor func docs_explore_md_1() async throws {
        /// Each request goes as a line to a worker and its answer comes back as a line, as a queue carries them
        /// (here the worker is in the same process).
        struct LineWorkforce: ExploreWorkforce {
            let worker: Explorer
            func expand(_ batches: [[ExploreRequest]], take: (_ batch: Int, _ expansions: [Explorer.Expansion]) throws -> Bool) throws {
                for (number, batch) in batches.enumerated() {
                    let answers = batch.map { worker.answer($0.line) }
                    guard try take(number, answers.map(Explorer.Expansion.init(answer:))) else { return }
                }
            }
        }
        func app() throws -> ScriptRuntime {
            let runtime = try ScriptRuntime(driverFunctions: true)
            try runtime.load(script: "scripts/app.lua")
            return runtime
        }
        var options = Explorer.Options()
        options.depth = 8
        let search = ExploreLevels(explorer: try Explorer(options: options, runtime: app))
        let report = try search.run(workforce: LineWorkforce(worker: try Explorer(options: options, runtime: app)), workers: 2)
        print(report.text)
    }
}

// docs/Links.md, snippet 1
extension DocSnippets {
    @MainActor func docs_links_md_1() async throws {
        let runtime = try ScriptRuntime()
        try runtime.load(script: "examples/shop.lua")
        try runtime.open("shop://catalog/shoes/42")          // or start(), then open(...) anywhere
        let saved = try runtime.snapshot()                   // JSON text
        let later = try ScriptRuntime()
        try later.load(script: "examples/shop.lua")
        try later.restore(saved)                             // or restore(contentsOf: path)
        later.app.steps                                      // [.open("shop://catalog/shoes/42")]
        for result in try RouteCheck.run(script: "examples/shop.lua") { print(result.route.pattern, result.failure ?? "ok") }
    }
}

// docs/Lua.md, snippet 1
extension DocSnippets {
    @MainActor func docs_lua_md_1() async throws {

        let runtime = try ScriptRuntime(state: .authorization)
        // Screens and services written in Swift, used by name from Lua:
        runtime.app.catalog.register(ScreenType("Editor", inputs: ["status"], outputs: [OutputSpec("save", payload: .value)]))
        runtime.registerCoordinator("Storage") { StorageCoordinator(name: "Storage") }  // self:run(flow.coordinator "Storage")
        // Swift functions for scripts:
        try runtime.lua.globals.set("hostVersion", runtime.lua.function(name: "hostVersion") { "1.0" })
        // Observe and drive:
        runtime.app.observe { event in print(event) }       // every push, pop, start, finish, signal... in order
        try runtime.load(script: "flows/app.lua")
        try runtime.start()
        try runtime.app.tap("save", payload: "milk")        // the visible screen emits an output
        try runtime.run("print(hostVersion())")             // any Lua chunk, atomically
    }
}

// docs/Testing.md, snippet 1
extension DocSnippets {
    @MainActor func docs_testing_md_1() async throws {
        let results = try FlowTests.run("scripts/app_test.lua", timeLimit: 10) { result in
            print(result.test.name, result.outcome.failure?.message ?? "ok")
        }
        try JUnitReport.xml(results).write(toFile: "junit.xml", atomically: true, encoding: .utf8)
    }
}
