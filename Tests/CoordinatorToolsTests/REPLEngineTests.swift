import Testing
import CoordinatorCore
import CoordinatorScript
import CoordinatorTools
import TestSupport

@Suite struct REPLEngineTests {
    @Test func anAppDeclaredOnALineStartsAndAFailingStartIsReportedOnce() throws {
        let runtime = try ScriptRuntime()
        var errors: [String] = []
        let repl = try REPL(runtime: runtime, output: REPL.Output(write: { _ in }, error: { errors.append($0) }))
        repl.handle("flow = require 'coordinator' flow.screen 'S' {}")
        repl.handle("Broken = flow.coordinator 'Broken' function Broken:start() error('cannot start') end")
        #expect(!repl.handle("flow.app(Broken)"))
        #expect(errors.count == 1 && errors.first?.contains("cannot start") == true)
        #expect(repl.handle("x = 1")) // the next lines do not try again
        #expect(errors.count == 1)
        repl.handle("Good = flow.coordinator 'Good' function Good:start() self:push('S') end")
        #expect(repl.handle("flow.app(Good)"))
        #expect(runtime.app.window.visibleScreen?.name == "S")
    }

    /// At a terminal `:record` writes anywhere the user names, but never over a file the session did not
    /// write (`:record app.lua` once overwrote the app); a file it wrote it may write again.
    @Test func recordingNeverWritesOverAFileTheSessionDidNotWrite() throws {
        let folder = try TemporaryDirectory()
        let theirs = try folder.write("theirs_test.lua", "-- theirs\n")
        let session = try REPLTranscript()
        session.line(":record \(theirs)")
        #expect(session.errors.joined().contains("was not recorded by the running session"), "\(session.errors)")
        #expect(readFile(theirs) == "-- theirs\n")
        let mine = folder.path + "/mine.lua"
        for _ in 1...2 {
            #expect(session.line(":record \(mine)").contains("recording to \(mine)"))
            #expect(session.line(":record stop").contains("recorded \(mine)"))
        }
        #expect(readFile(mine)?.hasSuffix("end)\n") == true)
    }

    /// A line that typed a secret is never kept as typed, also when it failed: a line editor's history keeps
    /// the steps it took with the secret masked, or a placeholder when it took none.
    @Test func aLineThatTypedASecretIsKeptMaskedEvenWhenItFailed() throws {
        let session = try REPLTranscript()
        session.line("tap('login', { name = 'Ann', password = 'hunter2' })")
        #expect(session.repl.typedSecret?.masked == #"tap("login", {name = "Ann", password = "•••"})"#)
        session.line(":1") // the alert's OK
        session.line("tap('login', { name = 'Ann', password = 'hunter3' }) error('then it fails')")
        #expect(session.repl.typedSecret?.masked == "(a line that typed a secret)" && !session.errors.isEmpty)
        session.line("x = 1")
        #expect(session.repl.typedSecret == nil)
    }

    @Test func aTapThatNoHandlerHearsIsNamedInTheREPLToo() throws {
        let session = try REPLTranscript()
        #expect(session.line("top().onLogin = nil") == "")
        #expect(session.line("tap('login', { name = 'Ann' })") == "(nothing handles login on Login#4)\n")
        #expect(session.line("for i = 1, 3 do tap('login', {}) end") == "(nothing handles login on Login#4, and 2 more)\n")
    }

    /// A signal no coordinator or screen hears (the sender never hears its own) is said as a tap nothing
    /// handles is, in the REPL and in run mode; one a handler hears, even one that finishes its flow, is not.
    @Test func aSignalNothingHearsIsNamedInTheREPLAndRunMode() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("signals.lua", """
            local flow = require "coordinator"
            flow.screen "A" { outputs = { "ping", "leave", "open" } }
            local Child = flow.coordinator "Child"
            function Child:start() self:push("A").onLeave = function() self:send("bye") end end
            local App = flow.coordinator "App"
            function App:start()
              local a = self:push("A")
              a.onPing = function() self:send("ping") end
              a.onOpen = function() self:run(Child) end
              self:onSignal("ping", function() end) -- its own: not heard
              self:onSignal("bye", function() self:finish() end)
            end
            flow.app(App)
            """)
        let session = try REPLTranscript(mode: .run, script: script)
        #expect(session.line("ping") == "(the tap changed nothing on screen)\n(nothing hears the signal ping from App#2)\n")
        let repl = try REPLTranscript(script: script)
        #expect(!repl.line("tap('open')").contains("nothing hears"))
        let left = repl.line("tap('leave')") // App hears it and finishes: heard
        #expect(!left.contains("nothing hears") && repl.errors.isEmpty, "\(left)")
    }

    @Test func runModeSaysWhenATapReachesNoHandlerAndFailsOnABrokenRendering() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("app.lua", """
            local flow = require "coordinator"
            flow.screen "A" { outputs = { "go", "idle", "broken", next = "value" } }
            flow.screen "B" { render = function(s) return s.nothing.field end }
            local App = flow.coordinator "App"
            function App:start()
              local a = self:push("A")
              a.onGo = function() went = true end
              a.onBroken = function() self:push("B") end
              a.onNext = function(v) nexted = v end
            end
            flow.app(App)
            """)
        let session = try REPLTranscript(mode: .run, script: script)
        #expect(session.line("idle") == "(nothing handles idle on A#3)\n")
        #expect(session.line("2") == "(nothing handles idle on A#3)\n")
        // A tap that changes nothing on screen says so.
        #expect(session.line("go") == "(the tap changed nothing on screen)\n")
        // An output named like a Lua global is the output where the visible screen has it.
        #expect(session.line("next 5") == "(the tap changed nothing on screen)\n")
        #expect(session.line("=nexted") == "5\n")
        // The rendering of the screen a line shows is part of the line: it fails, and B is not pushed.
        #expect(session.line("broken") == "")
        #expect(session.errors.first?.hasPrefix("rendering B failed: \(script):3: attempt to index a nil value") == true, "\(session.errors)")
        #expect(session.repl.runtime.app.window.visibleStack.map(\.name) == ["A"])
    }

    /// Run mode numbers only the outputs offered now (`when`), offers one as soon as its inputs allow, and
    /// refuses a typed one that is not, naming its `when`.
    @Test func runModeOffersAnOutputOnlyWhileItsWhenHolds() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("when.lua", """
            local flow = require "coordinator"
            flow.screen "Profile" { inputs = { "own" }, outputs = { "toggle", settings = { when = function(p) return p.own end } } }
            flow.screen "Settings" {}
            local App = flow.coordinator "App"
            function App:start()
              local profile = self:push("Profile", { own = false })
              profile.onToggle = function() profile.own = not profile.own end
              profile.onSettings = function() self:push("Settings") end
            end
            flow.app(App)
            """)
        let session = try REPLTranscript(mode: .run, script: script)
        session.repl.show()
        let start = session.text
        #expect(start.contains("  1. toggle\n") && !start.contains("settings"), "\(start)")
        #expect(session.line("2") == "")
        #expect(session.errors.last == "stdin:1: there is no action 2 (1-1)", "\(session.errors)")
        session.line("settings")
        #expect(session.errors.last?.hasPrefix("stdin:2: output 'settings' of Profile is not offered now: its condition (\(script):2) is false") == true, "\(session.errors)")
        #expect(session.line("toggle").contains("  2. settings\n"))
        session.line("2")
        #expect(session.repl.runtime.app.window.visibleStack.map(\.name) == ["Profile", "Settings"])
    }

    @Test func anOutputThatHidesADriverFunctionIsNamedWithTheWayToTheFunction() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("inbox.lua", """
            local flow = require "coordinator"
            flow.screen "Inbox" { inputs = { "items" }, outputs = { open = { from = "items" } } }
            local App = flow.coordinator "App"
            function App:start() self:push("Inbox", { items = { "a" } }).onOpen = function() end end
            flow.app(App)
            """)
        let session = try REPLTranscript(mode: .run, script: script)
        #expect(session.repl.hiddenDriverFunctions == "note: screen Inbox's output 'open' hides the driver function open(...) while Inbox is visible: type _G.open(...) for the function\n")
        session.line("open(\"x://y\")")
        #expect(session.errors.first?.hasSuffix("takes one of the items of 'items': a (here 'open' is this screen's output, which hides the driver function: type _G.open(...) for it)") == true, "\(session.errors)")
        session.line("_G.open(\"x://y\")")
        #expect(session.errors.first?.contains("no route matches x://y") == true, "\(session.errors)")
        // Once a session: the next mistake with the output is its message alone.
        session.line("open(\"x://y\")")
        #expect(session.errors.first?.hasSuffix("takes one of the items of 'items': a") == true, "\(session.errors)")
        // A session that showed the notes at its start does not repeat them.
        let told = try REPLTranscript(mode: .run, script: script)
        #expect(told.repl.noteHiddenDriverFunctions() == told.repl.hiddenDriverFunctions)
        told.line("open(\"x://y\")")
        #expect(told.errors.first?.hasSuffix("takes one of the items of 'items': a") == true, "\(told.errors)")
    }

    /// A navigation mistake typed at the prompt is its one-line message, as the REPL's own mistakes are;
    /// an error with the app's code (or a function typed earlier) on the way keeps lua's traceback.
    @Test func aMistakeTypedAtThePromptIsOneLineAndTheAppsErrorsKeepTheirTraceback() throws {
        let session = try REPLTranscript(script: repositoryRoot + "/examples/shop.lua")
        session.line("tap('nosuch')")
        #expect(session.errors == ["stdin:1: screen Categories has no output 'nosuch' (outputs: open)"], "\(session.errors)")
        session.line("function f() tap('nosuch') end")
        session.line("f()")
        #expect(session.errors.count == 1 && session.errors[0].contains("stack traceback:") && session.errors[0].contains("in function 'f'"), "\(session.errors)")
        session.line("error('plain')")
        #expect(session.errors.count == 1 && session.errors[0].hasPrefix("stdin:4: plain\nstack traceback:"), "\(session.errors)")
    }

    /// A signal sent at the prompt that nobody answered prints no empty list of replies; asked for with `=`
    /// or `return`, the replies print as any value.
    @Test func aSignalSentAtThePromptPrintsNoEmptyReplies() throws {
        let session = try REPLTranscript(script: repositoryRoot + "/examples/shop.lua")
        #expect(session.line("top():send('cartChanged', 2)") == "")
        #expect(session.errors.isEmpty, "\(session.errors)")
        #expect(session.line("=top():send('cartChanged', 2)") == "{}\n")
        #expect(session.line("return top():send('cartChanged', 2)") == "{}\n")
        #expect(session.line("(function() return {} end)()") == "{}\n") // no signal: printed as lua prints it
    }

    @Test func historyShowsWhatAShortcutDid() throws {
        let session = try REPLTranscript(mode: .run)
        session.line("login { name = 'Ann', password = 'secret' }")
        session.line("1")
        let history = session.line(":history")
        // The login's password is secret: the line is shown as the step it took, the password masked, and
        // never as typed.
        #expect(history == """
              1    tap("login", {name = "Ann", password = "•••"})
            * 2    tap("selectCity")  (typed: 1)

            """, "\(history)")
    }

    @Test func eventsWriteDataAsLua() throws {
        let session = try REPLTranscript(mode: .run)
        session.line("login { name = 'Ann', password = 'secret' }")
        let events = session.line(":events")
        #expect(events.contains("(finished) -> {name = \"Ann\"}\n"), "\(events)")
    }

    @Test func insideTapsQuotesTheOutputsComplete() throws {
        let session = try REPLTranscript(mode: .repl)
        let repl = session.repl
        #expect(repl.completions(for: "l", lineBefore: "tap(\"") == ["login"])
        #expect(repl.completions(for: "", lineBefore: "tap( '") == ["login"])
        #expect(repl.completions(for: "lo", lineBefore: "x = 1; tap(\"").contains("login"))
        #expect(repl.completions(for: "o", lineBefore: "mytap(\"").contains("os")) // another function: Lua's names
    }

    /// Inside the quotes of the driver functions for pages, widths, columns, events, requests and links, their names complete.
    @Test func insidePagesWidthsAndColumnsQuotesTheirNamesComplete() throws {
        let pages = try REPLTranscript(mode: .repl, script: repositoryRoot + "/examples/pages.lua").repl
        #expect(pages.completions(for: "N", lineBefore: "swipeTo(\"") == ["News"])
        #expect(pages.completions(for: "", lineBefore: "swipe('") == ["left", "right"])
        let split = try REPLTranscript(mode: .repl, script: repositoryRoot + "/examples/split.lua").repl
        #expect(split.completions(for: "c", lineBefore: "sizeClass(\"") == ["compact"])
        #expect(split.completions(for: "", lineBefore: "top(\"") == ["primary", "secondary"])
        #expect(split.completions(for: "", lineBefore: "swipe('").isEmpty) // no pages showing
        let ride = try REPLTranscript(mode: .repl, script: repositoryRoot + "/examples/ride.lua")
        #expect(ride.repl.completions(for: "dr", lineBefore: "event(\"") == ["driverAssigned"])
        ride.line("tap('request')")
        #expect(ride.repl.completions(for: "", lineBefore: "answer(\"") == ["book"])
        let bank = try REPLTranscript(mode: .repl, script: repositoryRoot + "/examples/bank.lua").repl
        #expect(bank.completions(for: "bank://t", lineBefore: "open(\"") == ["bank://transfer?to=savings"])
        #expect(bank.completions(for: "rel", lineBefore: "") == ["relaunch", "reload"])
    }

    @Test func expressionsPrintTheirValuesLikeLua() throws {
        let session = try REPLTranscript()
        #expect(session.line("1 + 1") == "2\n")
        #expect(session.line("=2 * 3") == "6\n")
        #expect(session.line("return 'a', 1, nil") == "a\t1\tnil\n")
        #expect(session.line("x = 5") == "") // a statement prints nothing
        #expect(session.line("{ 3, 2, 1, name = 'n' }") == "{ 3, 2, 1, name = \"n\" }\n")
    }

    @Test func anIncompleteChunkWaitsForMoreLines() throws {
        let session = try REPLTranscript()
        session.line("sum = 0")
        #expect(session.repl.prompt == "> ")
        session.line("for i = 1, 3 do")
        #expect(session.repl.isContinuing)
        #expect(session.repl.prompt == ">> ")
        session.line("  sum = sum + i")
        session.line("end")
        #expect(!session.repl.isContinuing)
        #expect(session.line("sum") == "6\n")
        // Open at the end of input: its syntax error, reported.
        session.line("if true then")
        #expect(!session.repl.endOfInput())
        #expect(session.errors.first?.contains("stdin:6:") == true && session.errors.first?.contains("<eof>") == true) // the session line the chunk began on
        #expect(!session.repl.isContinuing)
    }

    @Test func aFailingLineIsReportedWithItsPlaceAndChangesNothing() throws {
        let session = try REPLTranscript()
        let before = session.repl.runtime.app.window.visibleStack.map(\.id)
        #expect(!session.repl.handle("tap('login', { name = 'Ann', password = 'secret' }); error('boom')"))
        #expect(session.errors.first?.hasPrefix("stdin:1: boom") == true)
        #expect(session.repl.runtime.app.window.visibleStack.map(\.id) == before)
        #expect(session.text == "") // nothing changed, so no screen is shown
    }

    @Test func aLineThatChangesTheScreenShowsIt() throws {
        let session = try REPLTranscript()
        let shown = session.line("tap('login', { name = 'Ann', password = 'secret' })")
        #expect(shown == """
            == Profile (UserEdit) ==
            User: Ann
            City: Moscow
              :1. selectCity
              :2. logout
            stack: UserEdit

            """)
    }

    @Test func runModeTakesNumbersBackAndOutputNames() throws {
        let session = try REPLTranscript(mode: .run)
        #expect(session.line("login { name = 'Ann', password = 'secret' }").hasPrefix("== Profile (UserEdit) =="))
        #expect(session.line("1").hasPrefix("== Choose a city (Regions) =="))
        session.line("back")
        #expect(session.repl.runtime.app.window.visibleScreen?.name == "UserEdit")
        // Numbers out of range, however large or small, are errors, never a crash.
        for number in ["0", "99", "-9223372036854775808", "9223372036854775807"] {
            #expect(!session.repl.handle(number))
            #expect(session.errors.first?.contains("there is no action") == true)
        }
        // Not an output of this screen and not a variable: a mistyped output, an error naming the outputs.
        #expect(session.line("login") == "")
        #expect(session.errors.first == "stdin:\(session.repl.lineNumber): 'login' is neither an output of UserEdit (outputs: selectCity, logout) nor a Lua variable")
        #expect(session.line("next").hasPrefix("function: ")) // a global: Lua
        #expect(session.repl.runtime.app.window.visibleScreen?.name == "UserEdit")
    }

    @Test func colonCommandsInspectTheApp() throws {
        let session = try REPLTranscript()
        #expect(session.line(":help").contains(":tree"))
        #expect(session.line(":tree").hasPrefix("App#"))
        #expect(session.line(":screen").hasPrefix("Login#"))
        #expect(session.line(":hierarchy").contains("Login"))
        session.line("tap('login', { name = 'Ann', password = 'secret' })")
        let lastEvent = session.line(":events 1")
        #expect(lastEvent.contains("push UserEdit") && lastEvent.split(separator: "\n").count == 1)
        #expect(!session.repl.handle(":nonsense"))
        #expect(session.errors.first?.contains("unknown command ':nonsense' (:help lists them)") == true)
        #expect(!session.repl.handle(":99"))
    }

    @Test func completionKnowsGlobalsFieldsScreensAndCoordinators() throws {
        let session = try REPLTranscript()
        let repl = session.repl
        #expect(repl.completions(for: "ta", lineBefore: "").contains("tap"))
        #expect(repl.completions(for: "whi", lineBefore: "") == ["while"])
        #expect(repl.completions(for: ":tr", lineBefore: "") == [":tree"])
        #expect(repl.completions(for: "lo", lineBefore: "").contains("login")) // the visible screen's output
        #expect(repl.completions(for: "top():ti", lineBefore: "") == ["top():title"])
        #expect(repl.completions(for: "top().onL", lineBefore: "") == ["top().onLogin"])
        #expect(repl.completions(for: "string.up", lineBefore: "") == ["string.upper"])
        #expect(REPL.trailingExpression("print(top():ren") == "top():ren")
    }

    @Test func aCoordinatorInstanceCompletesItsClassMethods() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("probe.lua", """
            local flow = require "coordinator"
            flow.screen "Home" {}
            local Probe = flow.coordinator "Probe"
            function Probe:start() probe = self; self:push("Home") end
            function Probe:reload() end
            flow.app(Probe)
            """)
        let session = try REPLTranscript(script: script)
        let methods = session.repl.completions(for: "probe:rel", lineBefore: "")
        #expect(methods == ["probe:reload"])
        #expect(session.repl.completions(for: "probe:pu", lineBefore: "") == ["probe:push"]) // the base methods too
    }

    @Test func frozenDataPrintsAsItsFields() throws {
        let session = try REPLTranscript()
        #expect(session.line("require('coordinator').freeze { 1, 2 }") == "{ 1, 2 }\n")
        #expect(session.line("require('coordinator').freeze { name = 'x', n = 1 }") == "{ n = 1, name = \"x\" }\n")
    }

    /// docs/Embedding.md's REPL example, as written.
    @Test func theEmbeddingGuideExample() throws {
        let runtime = try ScriptRuntime()
        try runtime.load(script: repositoryRoot + "/scripts/app.lua")
        try runtime.start()
        var transcript = ""
        let repl = try REPL(runtime: runtime, mode: .repl) { transcript += $0 }
        repl.handle("=stack()")
        #expect(transcript == "{ \"Login\" }\n")
        repl.handle("for i = 1, 2 do")
        #expect(repl.isContinuing && repl.prompt == ">> ")
        repl.handle("end")
        #expect(!repl.isContinuing)
        #expect(repl.completions(for: "top():ti", lineBefore: "") == ["top():title"])
    }

    /// Errors name the line of the session (`input:N:`), also for commands and navigation mistakes, and a
    /// chunk's lines count from the line it began on (they all said `input:1`).
    @Test func errorsNameTheSessionLine() throws {
        let session = try REPLTranscript(mode: .run)
        session.line("x = 1")
        session.line("back")
        #expect(session.errors == ["stdin:2: there is nothing to go back to (Login is the root screen)"])
        session.line(":nosuch")
        #expect(session.errors.first?.hasPrefix("stdin:3: unknown command ':nosuch'") == true)
        session.line("for i = 1, 2 do")
        session.line("  nosuch()")
        session.line("end")
        #expect(session.errors.first?.hasPrefix("stdin:5: attempt to call a nil value (global 'nosuch')") == true)
        #expect(session.errors.first?.contains("\tstdin:5: in main chunk") == true)
        session.line("login { name = print }")
        #expect(session.errors.first?.hasPrefix("stdin:7: ") == true)
        // A function defined earlier fails at its own line, not at the line that called it.
        session.line("function f()")
        session.line("  error('in f')")
        session.line("end")
        session.line("f()")
        #expect(session.errors.first?.hasPrefix("stdin:9: in f") == true, "\(session.errors)")
    }
}
