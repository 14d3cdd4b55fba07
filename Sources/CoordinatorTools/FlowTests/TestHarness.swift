import CoordinatorScript

/// One test file in a fresh runtime: its globals (`app`, `test`, `skip`, `expect`, the driver functions),
/// its app loaded and started by `app "..."`, and the tests it declares. Each test runs as in a harness of
/// its own (``FreshHosts``: a harness serves the next test only when the last one left no trace in it, its
/// app started again), so no state leaks from one test to the next.
final class TestHarness {
    struct Declared {
        let name: String
        let line: Int
        let skipped: Bool
        /// The device the test runs on (`test(name, { idiom = "pad" }, fn)`), when not the file's app's.
        var idiom: Idiom? = nil
    }

    let runtime: ScriptRuntime
    let file: String
    private(set) var declared: [Declared] = []
    /// The declared tests' functions, in order (one table: the state's identity walks what they share).
    private let functions: LuaTable
    private var finishes: [(name: String, reason: String, result: FlowValue?)] = []
    /// What the test reached (``coverage``).
    private var reachedScreens: Set<String> = []
    private var reachedOutputs: Set<String> = []
    private var reachedCoordinators: Set<String> = []
    /// The app's main script, once `app "..."` ran.
    private(set) var appPath: String?
    /// The gateway's state the app started in.
    private var startState: AppState?
    /// The window's width the test file's app starts at (`app(script, { sizeClass = "compact" })`).
    private var startWidth: SizeClass = .regular
    /// The storage every test starts with: empty, or what `app(script, { storage = { ... } })` seeds.
    private var startStorage = FlowRecord()
    /// The device the file's app runs on (`app(script, { idiom = "pad" })`).
    private var startIdiom = Idiom.phone
    /// The time limit of the file's top level and of each test.
    private let timeLimit: Double?
    private var observer: NavigationObservation?
    /// What the running test printed (``FlowTestResult/output``).
    private(set) var output = ""
    /// The messages of the expectations that failed in the running test: an error with one of them is a
    /// failure, any other an error.
    private var expectationFailures: [String] = []

    /// The lifecycle oracle, watching from before the app starts.
    let oracle: LifecycleOracle

    /// Loads `file` in a new runtime: its `app "..."` line loads and starts the app, its `test(...)` lines
    /// declare tests (run later by ``run(_:named:timeLimit:)``). With `strictLifecycle`, the oracle checks
    /// after every step; `timeLimit` bounds the file's top level; `limits` are the runtime's (sandbox,
    /// memory, instructions); `prepare` readies the runtime before anything runs in it.
    init(file: String, strictLifecycle: Bool = false, timeLimit: Double? = nil, limits: RuntimeLimits = RuntimeLimits(),
         prepare: ((ScriptRuntime) throws -> Void)? = nil) throws {
        self.file = file
        self.timeLimit = timeLimit
        runtime = try limits.runtime(driverFunctions: true, timed: timeLimit != nil)
        functions = try runtime.lua.newTable()
        runtime.app.draws.live = false // a test gives each draw with random(k)
        try prepare?(runtime)
        oracle = LifecycleOracle(app: runtime.app)
        let oracle = oracle, app = runtime.app, lua = runtime.lua
        // Strict driving: each step is one operation that also fails when no handler heard its output, when
        // a later it ran failed, or when the screen it shows does not render (a test never passes over a tap that did nothing or a
        // broken screen); the oracle follows the steps.
        runtime.driverFunctions.stepDriver = { [weak self] label, step in
            oracle.beforeStep(label)
            try app.atomicallyRendering {
                let unheard = app.unheard.count, unheardSignals = app.unheardSignals.count, failedLaters = app.failedLaters.count
                try step()
                if app.failedLaters.count != failedLaters, let last = app.failedLaters.last {
                    throw LuaError(.runtime, "a later of \(last.owner) failed: \(last.message)")
                }
                if app.unheard.count != unheard, let last = app.unheard.last {
                    throw NavigationError(.unknownOutput, "nothing handles \(last.output) on \(last.screen)")
                }
                if app.unheardSignals.count != unheardSignals, let last = app.unheardSignals.last {
                    throw NavigationError(.unknownOutput, "nothing hears the signal \(last.signal) from \(last.sender)")
                }
            }
            oracle.afterStep()
            self?.noteShownScreens()
            try self?.checkInvariants(after: label)
            if strictLifecycle {
                let violations = oracle.violations(collecting: lua)
                if !violations.isEmpty { throw LuaError(.runtime, "lifecycle: " + violations.joined(separator: "; ")) }
            }
        }
        try installGlobals()
        try ExitGuard.install(in: runtime)
        observer = runtime.app.observe { [weak self] event in
            guard let self else { return }
            switch event {
            case let .finished(info, reason, result): self.finishes.append((info.name, reason.rawValue, result))
            case let .outputEmitted(info, output): self.reachedOutputs.insert(info.name + "." + output)
            case let .started(info, _): self.reachedCoordinators.insert(info.name)
            default: break
            }
        }
        // The file's top level (its app's load and start included) runs under the tests' time limit too.
        try runtime.lua.withTimeLimit(timeLimit) {
            let chunk = try runtime.lua.loadFile(file)
            _ = try chunk.callValues()
        }
        if runtime.app.root == nil {
            throw LuaError(.misuse, "\(file): the test file names no app: start it with app \"path/to/app.lua\"")
        }
        // From now on what the tests (and the handlers they reach) print is each test's output; what the
        // file's top level printed went to standard output.
        try installPrint()
    }

    deinit {
        observer?.cancel()
    }

    /// Runs the test declared `index`-th: its steps, each one operation of the app; then asks the
    /// lifecycle oracle, which fails the test with what it found.
    func run(_ index: Int, named name: String, timeLimit: Double? = nil) throws {
        // The file was loaded again for this test: it must declare the same tests (a file that declares
        // them at random cannot be run one by one).
        guard declared.indices.contains(index), declared[index].name == name else {
            throw LuaError(.misuse, "\(file) declared other tests when loaded again (test \"\(name)\" is not test \(index + 1) any more)")
        }
        finishes.removeAll()
        (output, expectationFailures) = ("", [])
        oracle.beforeStep("the test's first step")
        // A harness runs each test once, in order: the test's function (and its code) goes from the list as
        // it runs, so that the collection after each test costs what the tests still to come hold.
        let test = try functions.rawGet(index + 1, as: LuaFunction.self)
        try functions.rawSet(index + 1, LuaValue.nil)
        try runtime.lua.withTimeLimit(timeLimit) {
            // A test on another device launches the app there first (its scripts run again on it).
            if let idiom = declared[index].idiom, idiom != runtime.app.idiom, let startState {
                try runtime.reset(to: startState, width: startWidth, storage: startStorage, idiom: idiom, starting: true)
                oracle.afterStep()
                noteShownScreens()
            }
            try checkInvariants(after: "the app's start") // the state every step begins from holds them too
            _ = try test.callValues()
        }
        let violations = oracle.violations(collecting: runtime.lua)
        if !violations.isEmpty {
            throw LifecycleViolation(message: "lifecycle: " + violations.joined(separator: "; "))
        }
    }

    /// The exact identity of the harness's state (``FreshHosts``): its runtime's, where the declared tests
    /// count by what they reach through their upvalues (their code never changes), so that a file of many
    /// tests costs as much as one with a test for each distinct set of the file's locals.
    func identity() throws -> StateIdentity {
        // Which tests share which upvalue cells is fixed once the file is loaded (a closure's cells never
        // change, only what they hold): found once, so that each identity costs the same whatever the
        // number of tests, and a file of n tests runs in time linear in n.
        if sharers == nil { sharers = try LuaFingerprint.upvalueSharers(of: functions, in: runtime.lua) }
        return try runtime.stateIdentity(views: false, also: [sharers].compactMap { $0 }, excluding: [functions])
    }

    /// The declared tests with distinct upvalue cells (``identity()``), once found.
    private var sharers: LuaTable?

    /// Takes the app back to its start for the next test: ended, the gateway in the state it started in,
    /// and started again; what the harness noted of the last test (coverage, finishes) starts over. Throws
    /// when the start fails. (What the ending left alive is the lifecycle oracle's to find after the next
    /// test: only Swift could hold it, as a harness whose Lua holds it is not used again.)
    func restart() throws {
        guard let startState else { throw LuaError(.misuse, "\(file): the test file names no app") }
        (reachedScreens, reachedOutputs, reachedCoordinators) = ([], [], [])
        finishes.removeAll()
        expectedToBreak = []
        oracle.beforeStep("starting the app")
        try runtime.lua.withTimeLimit(timeLimit) {
            try runtime.reset(to: startState, width: startWidth, storage: startStorage, idiom: startIdiom, starting: true)
        }
        oracle.afterStep()
        noteShownScreens()
    }

    /// Fails the running step when an invariant the scripts declare (`flow.invariant`) does not hold after
    /// it: a failure of the test (not an error), naming the invariant and the step.
    /// An invariant that does not hold after the next step, as the test says (`expect.invariantFails`), is
    /// no failure; one that is expected to break and holds is.
    func checkInvariants(after label: String) throws {
        let expected = expectedToBreak
        expectedToBreak = []
        let results = try runtime.checkInvariants()
        for name in expected where results.first(where: { $0.name == name })?.holds != false {
            let message = "invariant '\(name)' holds after \(label), where the test expects it to break (expect.invariantFails)"
            expectationFailures.append(message)
            throw LuaError(.runtime, message)
        }
        guard let broken = results.first(where: { !$0.holds && !expected.contains($0.name) }) else { return }
        let message = "invariant '\(broken.name)' does not hold" + (broken.failure.map { ": " + $0 } ?? "") + " after \(label)"
        expectationFailures.append(message)
        throw LuaError(.runtime, message)
    }

    /// The invariants the test says the next step breaks (`expect.invariantFails`).
    private var expectedToBreak: [String] = []

    /// Whether `message` (a caught error's) is that of an expectation that failed in the running test.
    func isExpectationFailure(_ message: String) -> Bool {
        expectationFailures.contains { message.hasSuffix($0) }
    }

    /// The global `print`, as Lua's (`tostring` of each value, tabs between, a newline), into ``output``.
    private func installPrint() throws {
        let lua = runtime.lua
        let write = lua.function(name: "print", holding: self) { harness, call in
            let text = try call.string(1)
            guard harness.output.utf8.count < FlowTests.maximumOutput else { return }
            harness.output += text
            if harness.output.utf8.count >= FlowTests.maximumOutput {
                harness.output = String(decoding: harness.output.utf8.prefix(FlowTests.maximumOutput), as: UTF8.self)
                    + "\n(output cut at \(FlowTests.maximumOutput) bytes)\n"
            }
        }
        let print = try lua.load(Self.printSource, name: "=print", cached: true).call(write, as: LuaFunction.self)
        try lua.globals.set("print", print)
    }

    private static let printSource = """
        local write, tostring, select, concat = ..., tostring, select, table.concat
        return function(...)
          local parts = {}
          for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
          write(concat(parts, "\\t") .. "\\n")
        end
        """

    private func installGlobals() throws {
        let lua = runtime.lua
        let globals = lua.globals
        let folder = LuaState.directory(of: file)
        try globals.set("app", lua.function(name: "app", holding: self) { harness, call in
            guard harness.runtime.app.root == nil else { throw LuaError(.runtime, "app: a test file drives one app") }
            let path = try call.string(1)
            let options = try call.options(2, of: "app", known: ["state", "sizeClass", "idiom", "storage"])
            if let state = try options?.get("state", as: String?.self) {
                harness.runtime.app.gateway.state = AppState(state)
            }
            if let width = try options?.get("sizeClass", as: String?.self) {
                guard let sizeClass = SizeClass(rawValue: width) else {
                    throw LuaError(.runtime, "app's option 'sizeClass' is \"compact\" or \"regular\", not '\(width)'")
                }
                harness.runtime.app.setStartingSizeClass(sizeClass)
            }
            if let name = try options?.get("idiom", as: String?.self) {
                guard let idiom = Idiom(rawValue: name) else { throw LuaError(.runtime, "app's option 'idiom' is \"phone\" or \"pad\", not '\(name)'") }
                harness.runtime.app.setIdiom(idiom)
            }
            if let storage = try options?.get("storage", as: LuaValue.self), storage != .nil {
                let values: FlowRecord
                switch storage.tableValue == nil ? nil : try? FlowValue(lua: storage) {
                case .record(let record)?: values = record
                case .list(let items)? where items.isEmpty: values = [:]
                default: throw LuaError(.runtime, "app's option 'storage' is a table of values by key ({ onboarded = true })")
                }
                try harness.runtime.seedStorage(values)
                harness.startStorage = values
            }
            let script = path.hasPrefix("/") ? path : folder + "/" + path
            harness.appPath = script
            try harness.runtime.load(script: script)
            harness.startState = harness.runtime.app.gateway.state
            harness.startWidth = harness.runtime.app.window.sizeClass
            harness.startIdiom = harness.runtime.app.idiom
            try harness.runtime.start()
            harness.noteShownScreens()
        })
        for (name, skipped) in [("test", false), ("skip", true)] {
            try globals.set(name, lua.function(name: name, holding: self) { harness, call in
                // test(name, fn) or test(name, { idiom = "pad" }, fn): a test on another device than the app's.
                let title = try call.string(1)
                let options = call.type(2) == .table ? try call.options(2, of: name, known: ["idiom"]) : nil
                let function = try call.argument(options == nil ? 2 : 3, as: LuaFunction.self)
                var idiom: Idiom?
                if let value = try options?.get("idiom", as: String?.self) {
                    guard let given = Idiom(rawValue: value) else {
                        throw LuaError(.runtime, "\(name)'s option 'idiom' is \"phone\" or \"pad\", not '\(value)'")
                    }
                    idiom = given
                }
                try harness.functions.rawSet(harness.declared.count + 1, function)
                harness.declared.append(Declared(name: title, line: function.info?.lineDefined ?? 0, skipped: skipped, idiom: idiom))
            })
        }
        let recorders = try lua.newTable()
        try recorders.set("finishes", lua.function(name: "finishes", holding: self) { harness, call in
            let list: [FlowValue] = harness.finishes.map { f in
                var record: FlowRecord = ["name": .string(f.name), "reason": .string(f.reason)]
                if let result = f.result { record["result"] = result }
                return .record(record)
            }
            try call.pushResult(FlowValue.list(list))
        })
        try recorders.set("events", lua.function(name: "events", holding: self) { harness, call in
            let step = try call.argument(1, as: LuaFunction.self)
            var events: [String] = []
            let observation = harness.runtime.app.observe { events.append("\($0)") }
            defer { observation.cancel() }
            _ = try step.callValues()
            try call.pushResult(events)
        })
        try recorders.set("picture", lua.function(name: "picture", holding: self) { harness, call in
            try call.pushResult(harness.runtime.app.stateDescription)
        })
        try recorders.set("failing", lua.function(name: "failing", holding: self) { harness, call in
            harness.expectationFailures.append(try call.string(1))
        })
        try recorders.set("invariantFails", lua.function(name: "invariantFails", holding: self) { harness, call in
            // Whether the name is an invariant the scripts declare; if so, the next step is expected to break it.
            let name = try call.string(1)
            let declared = harness.runtime.declaredProperties.contains { $0.kind == .invariant && $0.name == name }
            if declared { harness.expectedToBreak.append(name) }
            try call.pushResult(declared)
        })
        try recorders.set("tabs", lua.function(name: "tabs", holding: self) { harness, call in
            // The tab bar showing: { { title = ..., badge = ... }, ..., selected = title }, or nothing.
            guard let tabs = harness.runtime.app.visibleTabs else { return }
            let table = try harness.runtime.lua.newTable()
            for (i, title) in tabs.titles.enumerated() {
                let tab = try harness.runtime.lua.newTable()
                try tab.set("title", title)
                if let badge = tabs.badges[i] { try tab.set("badge", badge) }
                try table.rawSet(i + 1, tab)
            }
            try table.set("selected", tabs.titles[tabs.selectedIndex])
            try call.pushResult(table)
        })
        try recorders.set("pages", lua.function(name: "pages", holding: self) { harness, call in
            // The pages showing: { { title = ... }, ..., selected = title }, or nothing.
            guard let pages = harness.runtime.app.window.visiblePages else { return }
            let table = try harness.runtime.lua.newTable()
            for (i, title) in pages.titles.enumerated() {
                let page = try harness.runtime.lua.newTable()
                try page.set("title", title)
                try table.rawSet(i + 1, page)
            }
            try table.set("selected", pages.titles[pages.selectedIndex])
            try call.pushResult(table)
        })
        try recorders.set("split", lua.function(name: "split", holding: self) { harness, call in
            // The split showing: { primary = { names... }, secondary = { ... }, supplementary = { ... } }, or nothing.
            let app = harness.runtime.app
            guard let split = app.window.shownSplit else { return }
            let table = try harness.runtime.lua.newTable()
            for (column, stack) in zip(split.columns, split.stacks) { try table.set(column.rawValue, stack.screens.map(\.name)) }
            try call.pushResult(table)
        })
        try recorders.set("storage", lua.function(name: "storage", holding: self) { harness, call in
            // The app's storage as a plain table of its values by key.
            try call.pushResult(FlowValue.record(harness.runtime.app.storage.values))
        })
        try recorders.set("presentation", lua.function(name: "presentation", holding: self) { harness, call in
            // The top modal's presentation: { style = ..., dismissable = ..., detent = ... }, or nothing.
            guard let top = harness.runtime.app.window.modals.last else { return }
            let table = try harness.runtime.lua.newTable()
            try table.set("style", top.presentation.style.rawValue)
            try table.set("dismissable", top.presentation.isSwipeable)
            if let detent = top.presentation.detents.first { try table.set("detent", detent) }
            try call.pushResult(table)
        })
        let expect = try lua.load(Expectations.source, name: "=expect", cached: true).call(recorders, as: LuaTable.self)
        try globals.set("expect", expect)
    }

    /// Notes every screen shown now; an alert by its title (`Alert: Wrong password`), as the flow graph
    /// draws it.
    private func noteShownScreens() {
        for screen in runtime.app.window.allScreens {
            if screen.type === runtime.app.alertType, let title = screen["title"]?.stringValue {
                reachedScreens.insert("Alert: " + title)
            } else {
                reachedScreens.insert(screen.name)
            }
        }
    }

    /// What the test reached of its app, against everything the app declares.
    var coverage: FlowCoverage {
        var coverage = FlowCoverage(app: appPath ?? file)
        for (name, type) in runtime.app.catalog.types where name != "Alert" {
            coverage.screens[name] = reachedScreens.contains(name)
            for output in type.outputs { coverage.outputs[name + "." + output.name] = reachedOutputs.contains(name + "." + output.name) }
        }
        // Alerts are made by the code that shows them: the ones shown are known, not the ones never shown.
        for name in reachedScreens where name.hasPrefix("Alert: ") { coverage.screens[name] = true }
        if let classes = try? runtime.module?.get("classes", as: LuaTable?.self) {
            for (key, _) in (try? classes.pairs()) ?? [] {
                if let name = key.stringValue { coverage.coordinators[name] = reachedCoordinators.contains(name) }
            }
        }
        return coverage
    }
}

/// What the lifecycle oracle found after a test.
struct LifecycleViolation: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
