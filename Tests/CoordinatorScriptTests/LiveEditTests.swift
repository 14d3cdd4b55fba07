import Testing
import Foundation
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorTools
import CoordinatorLua

/// Live edit keeps one consistent state: after a reload every live closure sees the same file-level
/// variables, handlers added to code that already ran reach the live screens it made, and the report says
/// what changed.
@Suite struct LiveEditTests {
    /// The app's state in a file-level local, read and written by two handlers.
    static let counterApp = """
        local flow = require "coordinator"
        local counter = { n = 0 }          -- app state in a file-level local
        flow.screen "C" { inputs = { "n" }, outputs = { "inc", "show" }, render = function(s) return "n = " .. s.n end }
        local App = flow.coordinator "App"
        function App:start()
          local s = self:push("C", { n = counter.n })
          s.onShow = function() shown = counter.n end
          s.onInc = function() counter.n = counter.n + 1; s.n = counter.n end
        end
        flow.app(App)
        """

    let folder: TemporaryDirectory
    let runtime: ScriptRuntime

    init() throws {
        folder = try TemporaryDirectory()
        runtime = try ScriptRuntime(driverFunctions: true)
    }

    func load(_ text: String) throws {
        try runtime.load(script: folder.write("app.lua", text))
        try runtime.start()
    }

    func edit(_ text: String, _ old: String, _ new: String) throws -> String {
        #expect(text.contains(old), "the script has \(old)")
        let edited = text.replacingOccurrences(of: old, with: new)
        _ = try folder.write("app.lua", edited)
        return edited
    }

    func value(_ expression: String) throws -> LuaValue {
        try runtime.run("return " + expression).first ?? .nil
    }

    /// What waits for the outside keeps its place and takes the new code: a pending timer (an inline
    /// function and a local one passed by name), a pending request's `onResult`, an event's handler.
    @Test func pendingTimersRequestsAndEventHandlersTakeTheirNewCode() throws {
        let app = """
            local flow = require "coordinator"
            flow.request "load" { examples = { ok = { n = 1 } } }
            flow.event "ping" {}
            flow.screen "C" { inputs = { "log" } }
            local App = flow.coordinator "App"
            function App:start()
              local s = self:push("C", { log = "" })
              local function tick() s.log = s.log .. "tick " end
              self:every(10, tick)
              self:after(15, function() s.log = s.log .. "once " end)
              self:request("load").onResult = function(outcome) s.log = s.log .. "answer " end
              self:onEvent("ping", function() s.log = s.log .. "ping " end)
            end
            flow.app(App)
            """
        try load(app)
        try runtime.run("advance(10)")
        #expect(try value("top().log") == "tick ")
        var edited = try edit(app, "s.log .. \"tick \"", "s.log .. \"TICK \"")
        edited = try edit(edited, "s.log .. \"once \"", "s.log .. \"ONCE \"")
        edited = try edit(edited, "s.log .. \"answer \"", "s.log .. outcome:upper() .. \" \"")
        _ = try edit(edited, "s.log .. \"ping \"", "s.log .. \"PING \"")
        let report = try runtime.reload()
        #expect(report.keptHandlers.isEmpty, "\(report.keptHandlers)")
        #expect(report.changedHandlers.count == 4, "\(report.changedHandlers)")
        try runtime.run("advance(5) advance(5) answer('load', 'ok') event('ping')")
        #expect(try value("top().log") == "tick ONCE TICK OK PING ")
        #expect(runtime.app.clock.now == 20)
    }

    @Test func editingOneHandlerKeepsOneCounter() throws {
        try load(Self.counterApp)
        try runtime.run("tap('inc') tap('inc')")
        _ = try edit(Self.counterApp, "s.onInc = function() counter.n",
                     "s.onInc = function() print_count = (print_count or 0) + 1; counter.n")
        let report = try runtime.reload()
        #expect(report.changedHandlers.map(\.function) == ["s.onInc in App:start (\(folder.path)/app.lua:8)"])
        #expect(report.unchangedHandlers == 1) // onShow
        try runtime.run("tap('inc') tap('show')")
        #expect(try value("top().n") == 3)
        #expect(try value("shown") == 3) // the untouched handler sees the same counter
        #expect(try value("print_count") == 1)
    }

    @Test func handlersBelowAnEditOnlyMoveAndKeepTheState() throws {
        // One line added above both handlers: they move, their code is the same.
        try load(Self.counterApp)
        try runtime.run("tap('inc') tap('inc') tap('inc')")
        _ = try edit(Self.counterApp, "local App = flow.coordinator \"App\"", "local App = flow.coordinator \"App\"\n-- a comment")
        let report = try runtime.reload()
        #expect(report.changedHandlers.isEmpty)
        #expect(report.movedHandlers == 2)
        #expect(report.description.hasSuffix("no live code changed"))
        try runtime.run("tap('inc') tap('show')")
        #expect(try value("shown") == 4)
        #expect(try value("top().n") == 4)
        // A moved handler's errors name its new line.
        _ = try edit(Self.counterApp, "s.onShow = function() shown = counter.n end", "s.onShow = function() error('boom') end")
        try runtime.reload()
        let error = luaError { try runtime.run("tap('show')") }
        #expect(error?.message.contains("app.lua:7: boom") == true)
    }

    @Test func aHandlerAddedToStartReachesTheScreenStartMade() throws {
        try load(Self.counterApp)
        try runtime.run("tap('inc')")
        var text = try edit(Self.counterApp, "outputs = { \"inc\", \"show\" }", "outputs = { \"inc\", \"show\", \"reset\" }")
        text = try edit(text, "  s.onInc = function() counter.n = counter.n + 1; s.n = counter.n end\n",
                        "  s.onInc = function() counter.n = counter.n + 1; s.n = counter.n end\n  s.onReset = function() counter.n = 0; s.n = 0; reset_by = self end\n")
        let report = try runtime.reload()
        #expect(report.addedHandlers.count == 1)
        #expect(report.addedHandlers.first?.hasSuffix("on C#3") == true)
        #expect(report.changedScreenTypes == ["C: outputs +reset (live: C#3)"])
        try runtime.run("tap('reset') tap('show')")
        #expect(try value("top().n") == 0)
        #expect(try value("shown") == 0)
        #expect(try value("tostring(reset_by)") == "App#2") // `self` is the coordinator that ran start
        // Removed again: the screen loses it (the type still declares the output: nothing handles it).
        _ = try folder.write("app.lua", text.replacingOccurrences(of: "  s.onReset = function() counter.n = 0; s.n = 0; reset_by = self end\n", with: ""))
        let second = try runtime.reload()
        #expect(second.removedHandlers.count == 1)
        try runtime.run("tap('inc') tap('reset')")
        #expect(try value("top().n") == 1)
    }

    @Test func aHandlerThatNeedsALocalNoLiveHandlerSharesIsNamed() throws {
        try load(Self.counterApp)
        var text = try edit(Self.counterApp, "outputs = { \"inc\", \"show\" }", "outputs = { \"inc\", \"show\", \"reset\" }")
        text = try edit(text, "  local s = self:push(\"C\", { n = counter.n })\n",
                        "  local step = 2\n  local s = self:push(\"C\", { n = counter.n })\n  s.onReset = function() counter.n = step end\n")
        let report = try runtime.reload()
        #expect(report.addedHandlers.isEmpty)
        #expect(report.keptHandlers.count == 1)
        #expect(report.keptHandlers.first?.contains("'step', a local of App:start") == true)
        #expect(report.description.contains("not applied"))
    }

    @Test func newHandlersInCodeWithNoLiveObjectWaitAndSaySo() throws {
        let text = """
            local flow = require "coordinator"
            flow.screen "A" { outputs = { "next" } }
            flow.screen "B" { outputs = { "done" } }
            local App = flow.coordinator "App"
            function App:start()
              local a = self:push("A")
              a.onNext = function()
                local b = self:push("B")
              end
            end
            flow.app(App)
            """
        try load(text)
        _ = try edit(text, "    local b = self:push(\"B\")\n", "    local b = self:push(\"B\")\n    b.onDone = function() done = true end\n")
        let report = try runtime.reload()
        #expect(report.waitingHandlers.count == 1)
        #expect(report.waitingHandlers.first?.hasPrefix("b.onDone in a.onNext in App:start") == true)
        try runtime.run("tap('next') tap('done')") // the handler that made B runs the new code
        #expect(try value("done") == true)
    }

    @Test func aHandlerAddedInsideAHandlerReachesTheScreenThatHandlerMade() throws {
        let text = """
            local flow = require "coordinator"
            flow.screen "A" { outputs = { "next" } }
            flow.screen "B" { outputs = { "done", "undo" } }
            local App = flow.coordinator "App"
            function App:start()
              local a = self:push("A")
              a.onNext = function()
                local step = 1
                local b = self:push("B")
                b.onDone = function() done = step end
              end
            end
            flow.app(App)
            """
        try load(text)
        try runtime.run("tap('next')")
        _ = try edit(text, "    b.onDone = function() done = step end\n",
                     "    b.onDone = function() done = step end\n    b.onUndo = function() undone = step + 1; self:pop() end\n")
        let report = try runtime.reload()
        #expect(report.addedHandlers.count == 1 && report.addedHandlers.first?.hasPrefix("b.onUndo in a.onNext in App:start") == true,
                "\(report)")
        try runtime.run("tap('undo')") // `step` and `self` shared with the handler onDone, which captured step
        #expect(try value("undone") == 2)
        #expect(try runtime.run("return stack()").first?.tableValue?.decode([String].self) == ["A"])
    }

    @Test func staticDataCanBeTakenAndStateIsKept() throws {
        let text = """
            local flow = require "coordinator"
            local CITIES <const> = { "Moscow" }
            local visits = { count = 0 }
            local helpers = {}
            function helpers.describe() return "v1" end
            flow.screen "C" { inputs = { "n" }, outputs = { "visit" } }
            local App = flow.coordinator "App"
            function App:start()
              local s = self:push("C", { n = 0 })
              s.onVisit = function() visits.count = visits.count + 1; count = visits.count; extra = visits.extra; last = CITIES[#CITIES] .. " " .. helpers.describe() end
            end
            flow.app(App)
            """
        try load(text)
        try runtime.run("tap('visit')")
        #expect(try value("last") == "Moscow v1")
        var edited = try edit(text, "{ \"Moscow\" }", "{ \"Moscow\", \"Kazan\" }")
        edited = try edit(edited, "{ count = 0 }", "{ count = 0, extra = true }")
        edited = try edit(edited, "return \"v1\"", "return \"v2\"")
        let report = try runtime.reload()
        #expect(report.renewedLocals.count == 1)
        #expect(report.renewedLocals.first?.hasPrefix("CITIES (") == true)
        #expect(report.keptLocals.count == 1)
        #expect(report.keptLocals.first?.contains("visits") == true)
        #expect(report.keptLocals.first?.contains(":reload visits") == true)
        try runtime.run("tap('visit')")
        #expect(try value("last") == "Kazan v2") // new static data, the helper's new code
        #expect(try value("count") == 2) // the same visits table
        #expect(try value("extra") == .nil)
        // The state was kept; asked for fresh, it takes the new initializer.
        let fresh = try runtime.reload(fresh: ["visits"])
        #expect(fresh.renewedLocals.contains { $0.hasPrefix("visits (") && $0.hasSuffix("(asked for)") })
        try runtime.run("tap('visit')")
        #expect(try value("count") == 1)
        #expect(try value("extra") == true)
        let unknown = try runtime.reload(fresh: ["nosuch"])
        #expect(unknown.renewedLocals == ["nosuch: no file-level local of a reloaded file has this name"])
    }

    @Test func aLocalFunctionTakesItsNewCodeAndAScalarKeepsItsValue() throws {
        let text = """
            local flow = require "coordinator"
            local taps = 0
            local function describe(n) return "v1 " .. n end
            flow.screen "C" { outputs = { "tap" } }
            local App = flow.coordinator "App"
            function App:start()
              self:push("C").onTap = function() taps = taps + 1; said = describe(taps) end
            end
            flow.app(App)
            """
        try load(text)
        try runtime.run("tap('tap') tap('tap')")
        #expect(try value("said") == "v1 2")
        _ = try edit(text, "return \"v1 \" .. n", "return \"v2 \" .. n")
        let report = try runtime.reload()
        #expect(report.changedHandlers.isEmpty) // the handler did not change; the function it calls did
        #expect(report.changedFunctions == ["describe (\(folder.path)/app.lua:3)"])
        #expect(report.description.hasPrefix("reloaded \(folder.path)/app.lua: 1 function changed"), "\(report)")
        #expect(report.keptLocals.isEmpty && report.keptHandlers.isEmpty)
        try runtime.run("tap('tap')")
        #expect(try value("said") == "v2 3")
    }

    @Test func anEditedRenderingIsReportedAndTheREPLDrawsTheScreenAgain() throws {
        let text = """
            local flow = require "coordinator"
            flow.screen "C" { inputs = { "n" }, render = function(s) return "n is " .. s.n end }
            local App = flow.coordinator "App"
            function App:start() self:push("C", { n = 1 }) end
            flow.app(App)
            """
        let script = try folder.write("app.lua", text)
        let session = try REPLTranscript(script: script)
        session.repl.show()
        _ = try edit(text, "\"n is \"", "\"n = \"")
        let out = session.line(":reload")
        #expect(out.hasPrefix("reloaded \(script): 1 screen type changed\n  screen      C: render (live: C#"), "\(out)")
        #expect(out.contains("== C ==\nn = 1\n"), "\(out)") // drawn again with the new code
        // A reload that changes nothing on screen draws nothing.
        #expect(!session.line(":reload").contains("== C =="))
    }

    @Test func aModuleEditedTakesEffectThroughTheLocalThatRequiredIt() throws {
        _ = try folder.write("names.lua", "return { first = 'Ann' }\n")
        let text = """
            local flow = require "coordinator"
            local names = require "names"
            flow.screen "C" { outputs = { "greet" } }
            local App = flow.coordinator "App"
            function App:start() self:push("C").onGreet = function() greeted = names.first end end
            flow.app(App)
            """
        try load(text)
        _ = try folder.write("names.lua", "return { first = 'Bob' }\n")
        let report = try runtime.reload()
        #expect(report.keptLocals.isEmpty)
        try runtime.run("tap('greet')")
        #expect(try value("greeted") == "Bob")
    }

    @Test func aReloadInTheSandboxKeepsOneState() throws {
        let sandboxed = try ScriptRuntime(driverFunctions: true, sandbox: true)
        try sandboxed.load(script: folder.write("app.lua", Self.counterApp))
        try sandboxed.start()
        try sandboxed.run("tap('inc') tap('inc')")
        _ = try edit(Self.counterApp, "s.onInc = function() counter.n", "s.onInc = function() counter.n = counter.n + 10; counter.n")
        #expect(try sandboxed.reload().changedHandlers.count == 1)
        try sandboxed.run("tap('inc') tap('show')")
        #expect(try sandboxed.run("return shown, top().n") == [13, 13])
    }

    @Test func methodsAddedAndRemovedAreReportedAndApplied() throws {
        let text = """
            local flow = require "coordinator"
            flow.screen "C" { outputs = { "go" } }
            local App = flow.coordinator "App"
            function App:start() self:push("C") end
            function App:old() return 1 end
            flow.app(App)
            """
        try load(text)
        var edited = try edit(text, "function App:old() return 1 end", "function App:help() return 2 end")
        let report = try runtime.reload()
        #expect(report.addedMethods == ["App:help"])
        #expect(report.removedMethods == ["App:old"])
        #expect(try runtime.run("return require('coordinator').classes.App.old").first == .nil)
        #expect(try runtime.run("return require('coordinator').classes.App.help()").first == 2)
        edited = try edit(edited, "function App:help() return 2 end", "function App:help() return 2 end -- same")
        #expect(try runtime.reload().removedMethods.isEmpty)
    }
}
