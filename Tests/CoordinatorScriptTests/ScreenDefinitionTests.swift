import Testing
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua

/// What a screen type's definition refuses (a name that cannot work, a list that is not there), what a
/// chosen item is read by, and how messages write data: in Lua, as the scripts do.
@Suite struct ScreenDefinitionTests {
    func define(_ spec: String) -> String? {
        let runtime = try? ScriptRuntime()
        return luaError { _ = try runtime?.run("local flow = require 'coordinator'\nflow.screen \"S\" " + spec) }?.message
    }

    @Test func anInputCannotTakeANameTheScreenAnswersItself() {
        // `screen.name` is the type's name and `screen.id` its number: such an input could be set, never read.
        #expect(define("{ inputs = { 'name' } }")?.contains("screen S: an input cannot be called 'name': screen.name is the screen's own type name") == true)
        #expect(define("{ required = { 'id' } }")?.contains("screen S: an input cannot be called 'id'") == true)
        #expect(define("{ inputs = { 'onSave' }, outputs = { 'save' } }")?.contains("input 'onSave' has the name of output 'save''s handler") == true)
        #expect(define("{ inputs = { 'userName', 'title', 'send' }, outputs = { 'save' } }") == nil) // methods may be shadowed
    }

    @Test func aChoiceMustComeFromAnInputTheScreenHas() {
        let message = define("{ inputs = { 'messages' }, outputs = { open = { from = 'items' } } }")
        #expect(message?.contains("screen S: output 'open' chooses from 'items', which is not one of its inputs (inputs: messages)") == true, "\(message ?? "")")
        #expect(define("{ outputs = { save = { label = 'subject' } } }") != nil)
        #expect(define("{ inputs = { 'messages' }, outputs = { open = { from = 'messages', label = 'subject' } } }") == nil)
    }

    /// `look` says how a screen type looks in a prototype: every part is read, and every name in it must be
    /// one the type declares, each mistake with its message.
    @Test func aLookIsReadAndItsNamesChecked() throws {
        let runtime = try ScriptRuntime()
        _ = try runtime.run("""
            local flow = require 'coordinator'
            flow.screen "Pay" { inputs = { "balance", "card", "items" }, outputs = { pin = "value", rating = "value", pick = { from = "items" } },
              look = { title = "Pay", text = "Choose", fields = { "balance", { label = "Card", input = "card" } },
                       list = { from = "items", title = "name", subtitle = "city" }, controls = { pin = "secure", rating = "stars" } } }
            """)
        let look = try #require(runtime.app.catalog.types["Pay"]?.look)
        #expect(look == ScreenLook(title: "Pay", text: "Choose", fields: [.init(input: "balance"), .init(label: "Card", input: "card")],
                                   list: .init(from: "items", title: "name", subtitle: "city"), controls: ["pin": .secure, "rating": .stars]))
        let spec = "{ inputs = { 'a' }, outputs = { go = 'value', tap = 'none' }, look = "
        #expect(define(spec + "{ colour = 'red' } }")?.contains("screen S: look's fields") == true)
        #expect(define(spec + "{ fields = { 'b' } } }")?.contains("screen S: its look shows 'b', which is not one of its inputs (inputs: a)") == true)
        #expect(define(spec + "{ list = { from = 'b' } } }")?.contains("its look shows 'b'") == true)
        #expect(define(spec + "{ list = { title = 'x' } } }")?.contains("list = { from = \"input\"") == true)
        #expect(define(spec + "{ controls = { nope = 'stars' } } }")?.contains("a control for 'nope', which is not one of its outputs") == true)
        #expect(define(spec + "{ controls = { tap = 'stars' } } }")?.contains("a control for 'tap', which takes no value") == true)
        #expect(define(spec + "{ controls = { go = 'slider' } } }")?.contains("each kind one of \"text\", \"secure\", \"stars\", \"stepper\", \"toggle\", \"button\"") == true)
        #expect(define(spec + "{ fields = { { label = 'A' } } } }")?.contains("a field is an input's name, or { label = ..., input = ... }") == true)
        #expect(define(spec + "{ controls = { go = 'toggle' }, fields = { 'a' } } }") == nil)
    }

    @Test func flowScreenIsAStatement() throws {
        let runtime = try ScriptRuntime()
        let results = try runtime.run("local flow = require 'coordinator'\nreturn flow.screen \"A\" { }")
        #expect(results.isEmpty)
        #expect(try runtime.run("local flow = require 'coordinator'\nreturn flow.screen('B', { })").isEmpty)
        #expect(runtime.app.catalog.names.contains("A") && runtime.app.catalog.names.contains("B"))
    }

    static let inbox = """
        local flow = require "coordinator"
        flow.screen "Inbox" { inputs = { "messages", "drafts" },
          outputs = { open = { from = "messages", label = "subject" }, edit = { from = "drafts" } } }
        local App = flow.coordinator "App"
        function App:start()
          local s = self:push("Inbox", { messages = { { id = 1, subject = "Hi" }, { id = 2, subject = "Yo" } },
                                         drafts = { { id = 3, n = "a" } } })
          s.onOpen = function() end
          s.onEdit = function() end
        end
        flow.app(App)
        """

    @Test func itemsAreReadByTheirLabelAndDataIsWrittenAsLua() throws {
        let folder = try TemporaryDirectory()
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: try folder.write("inbox.lua", Self.inbox))
        try runtime.start()
        let open = luaError { try runtime.run("tap('open', { id = 9 })") }?.message ?? ""
        #expect(open.hasSuffix("output 'open' of Inbox takes one of the items of 'messages': Hi, Yo"), "\(open)")
        let edit = luaError { try runtime.run("tap('edit', { id = 9 })") }?.message ?? ""
        #expect(edit.hasSuffix("output 'edit' of Inbox takes one of the items of 'drafts': {id = 3, n = \"a\"}"), "\(edit)")
    }
}
