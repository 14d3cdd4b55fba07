import CoordinatorScript

/// Annotations for Lua editors (LuaLS, EmmyLua's analyzer: `---@meta` files) of the coordinator API and of an
/// app's own declarations (`coordrun annotations [SCRIPT] -o DIR`, docs/Editors.md).
///
/// The names come from the runtime itself — the `coordinator` module's fields, the methods every coordinator
/// and every screen has, the driver functions, `expect`'s checks — and each has its signature here (a drift
/// test keeps the two the same: every name exposed is annotated, every name annotated exists). With
/// an app, each screen type becomes a class with its inputs as fields and its outputs' handlers
/// (`onSelectCity`), each coordinator class a class over `coordinator.Coordinator` with its methods and the
/// fields its methods set on `self`; `push`, `present` and `setRoot` take a screen type's name and give that
/// type, so `self:push("Regoins")`, `s.onSelectCty` and `self:pussh` are flagged.
package enum Annotations {
    /// A file of annotations: its name in the output folder and its text.
    package struct File: Sendable, Equatable {
        /// The file's name (`coordinator.lua`).
        package let name: String
        /// Its text.
        package let text: String
    }

    /// The files for `runtime` (made with the driver functions, its app loaded when `app` is true): the
    /// library (`coordinator.lua`), the driver functions and the tests' globals (`driver.lua`), and with an
    /// app, its declarations (`app.lua`).
    package static func files(for runtime: ScriptRuntime, app: Bool) throws -> [File] {
        var files = [File(name: "coordinator.lua", text: library), File(name: "driver.lua", text: driver)]
        if app { files.append(File(name: "app.lua", text: declarations(of: runtime))) }
        return files
    }

    // MARK: The API's signatures, by the names the runtime exposes

    /// The `coordinator` module's fields.
    static let module: [(name: String, annotation: String)] = [
        ("coordinator", """
            ---Defines (or, on reload, redefines in place) a coordinator class: `local App = flow.coordinator "App"`.
            ---@generic T: coordinator.Coordinator
            ---@param name `T`
            ---@return T
            function flow.coordinator(name) end
            """),
        ("screen", """
            ---Defines a screen type: `flow.screen "Name" { inputs = {...}, outputs = {...}, render = fn }`, or
            ---`flow.screen(name, spec)`. A statement.
            ---@overload fun(name: string): fun(spec: coordinator.ScreenSpec)
            ---@param name string
            ---@param spec coordinator.ScreenSpec
            function flow.screen(name, spec) end
            """),
        ("app", """
            ---Declares the app: its root coordinator class, or one class per gateway state.
            ---@param flows coordinator.Coordinator|table<string, coordinator.Coordinator>
            function flow.app(flows) end
            """),
        ("view", """
            ---Declares what exploration compares of two states.
            ---@param view fun(state: table): any
            function flow.view(view) end
            """),
        ("event", """
            ---Declares an event the outside world sends (a push notification, a preference change): `flow.event "pushReceived" { payload = "value", examples = { { thread = 7 } } }`. `background` and `foreground` need none.
            ---@param name string
            ---@return fun(spec: { payload?: "value"|"none", examples?: any[] })
            function flow.event(name) end
            """),
        ("route", """
            ---Declares a deep link: `flow.route("shop://catalog/:category", { example = {...}, ... })`. `from` is where it starts: `"start"` (the app rebuilt, the default), `"current"` (where the app is) or a coordinator class's name (`"Browser"`: its running flow brought to the front, the modals above it dismissed, its tab selected).
            ---@param pattern string
            ---@param spec table
            function flow.route(pattern, spec) end
            """),
        ("factory", """
            ---A factory: `push(name)` builds the screen type `choose(inputs)` returns.
            ---@param name string
            ---@param choose fun(inputs: table): string
            function flow.factory(name, choose) end
            """),
        ("update", """
            ---Sets inputs on every shown screen that declares them: `flow.update("user", value)` or `flow.update { user = value }`.
            ---@param name string|table
            ---@param value? any
            function flow.update(name, value) end
            """),
        ("request", """
            ---Declares a kind of request the outside answers later: `flow.request "signIn" { examples = { ok = { user = "Ann" }, failed = { error = "offline" } } }`; the examples' keys are its outcomes. `secret = { "token" }` (those fields of an answer's value) or `secret = true` (the whole value) is never recorded in the steps or a snapshot.
            ---@param kind string
            ---@return fun(spec: { examples: table<string, any>, secret?: string[]|true })
            function flow.request(kind) end
            """),
        ("now", """
            ---The app's clock: seconds since the app began (virtual: it moves with `advance(seconds)`, or the host).
            ---@return number
            function flow.now() end
            """),
        ("idiom", """
            ---The device the app runs on: `"phone"` (the default; a popover shows as a page sheet) or `"pad"`, fixed for a launch (`coordrun --idiom pad`, `app(script, { idiom = "pad" })` in a test).
            ---@return "phone"|"pad"
            function flow.idiom() end
            """),
        ("random", """
            ---A random integer from 1 to `m` (`flow.random(6)`) or from `m` to `n` (`flow.random(2, 5)`), at most 64 values, drawn in a step and recorded with it: a replay, a snapshot and `:goto` draw the same, a flow test gives it with `random(k)` before the step, and exploration takes each value as a branch. Use it instead of `math.random`.
            ---@param m integer
            ---@param n? integer
            ---@return integer
            function flow.random(m, n) end
            """),
        ("restart", """
            ---Tears the whole app down and starts the flow of gateway state `state` in one step (a sign-out, a session that expired, another account): `flow.restart("authorization", { switching = true })`.
            ---@param state string
            ---@param args? any what the state's flow's `start` receives
            function flow.restart(state, args) end
            """),
        ("invariant", """
            ---Declares an invariant, true in every state: flow tests check it after every step, the REPL after every line, exploration in every state it reaches. `fn` reads the app (read-only) and returns whether it holds.
            ---@param name string
            ---@param fn fun(app: coordinator.AppView): boolean
            function flow.invariant(name, fn) end
            """),
        ("reachable", """
            ---Declares a state that can always be reached (no traps): from every state exploration reaches, some state where `fn` holds can be reached.
            ---@param name string
            ---@param fn fun(app: coordinator.AppView): boolean
            function flow.reachable(name, fn) end
            """),
        ("storage", """
            ---The app's storage, kept across launches (`relaunch()`, `coordrun --storage FILE`): `flow.storage.onboarded = true`; flow data only, a table read back is read-only (assign it again to change it).
            ---@type table<string, any>
            flow.storage = nil
            """),
        ("storageSecrets", """
            ---Declares keys of `flow.storage` that a snapshot never holds (a token): `flow.storageSecrets { "token" }`.
            ---@param keys string[]
            function flow.storageSecrets(keys) end
            """),
        ("gateway", """
            ---The app's authorization state: `flow.gateway.state = "main"`.
            ---@type { state: string }
            flow.gateway = nil
            """),
        ("classes", """
            ---The coordinator classes the scripts defined, by name.
            ---@type table<string, coordinator.Coordinator>
            flow.classes = nil
            """),
        ("freeze", """
            ---A read-only copy of plain data that screens share without copying it.
            ---@generic T
            ---@param data T
            ---@return T
            function flow.freeze(data) end
            """),
        ("copy", """
            ---A plain table you can change, with the data of `value` (frozen or not).
            ---@generic T
            ---@param value T
            ---@return T
            function flow.copy(value) end
            """),
    ]

    /// The methods every coordinator instance has (`self:push(...)`).
    static let coordinatorMethods: [(name: String, annotation: String)] = [
        ("push", """
            ---Pushes a new screen of type `name`; returns it.
            ---@generic S: coordinator.Screen
            ---@param name `S`
            ---@param inputs? table
            ---@param options? { animated?: boolean, transition?: string }
            ---@return S
            function Coordinator:push(name, inputs, options) end
            """),
        ("present", """
            ---Presents a new screen modally; returns it.
            ---@generic S: coordinator.Screen
            ---@param name `S`
            ---@param inputs? table
            ---@param options? { animated?: boolean, transition?: string, presentation?: "pageSheet"|"formSheet"|"fullScreen"|"popover", dismissable?: boolean, detents?: ("medium"|"large")[] }
            ---@return S
            function Coordinator:present(name, inputs, options) end
            """),
        ("setRoot", """
            ---Replaces the stack with a new screen; returns it.
            ---@generic S: coordinator.Screen
            ---@param name `S`
            ---@param inputs? table
            ---@param options? { hideBar?: boolean, animated?: boolean }
            ---@return S
            function Coordinator:setRoot(name, inputs, options) end
            """),
        ("pop", "---Pops the top screen.\nfunction Coordinator:pop() end"),
        ("popToRoot", "---Pops to the stack's first screen.\nfunction Coordinator:popToRoot() end"),
        ("dismiss", "---Dismisses what this coordinator presented.\nfunction Coordinator:dismiss() end"),
        ("selectTab", """
            ---Selects a tab by number (from 1) or title.
            ---@param tab integer|string
            function Coordinator:selectTab(tab) end
            """),
        ("alert", """
            ---Shows an alert: `self:alert { title = ..., message = ..., actions = { "OK", { "Cancel", style = "cancel" } } }`.
            ---@param spec { title: string, message?: string, actions?: (string|[string, fun()]|coordinator.AlertAction)[], style?: "alert"|"actionSheet" }
            ---@return coordinator.Screen
            function Coordinator:alert(spec) end
            """),
        ("run", """
            ---Runs a child flow; returns it (set its `onFinish`).
            ---@generic T: coordinator.Coordinator
            ---@param class T
            ---@param args? any
            ---@param options? { modal?: boolean, onFinish?: fun(result: any, reason: coordinator.FinishReason), transition?: string, presentation?: "pageSheet"|"formSheet"|"fullScreen"|"popover", dismissable?: boolean, detents?: ("medium"|"large")[] }
            ---@return T
            function Coordinator:run(class, args, options) end
            """),
        ("setTabs", """
            ---Shows a tab bar, each tab with its flow or an action: `self:setTabs { { "Feed", Feed }, { "Compose", action = fn }, { "Profile", Profile } }`; returns the flows, in order.
            ---@param tabs table
            ---@return any[]
            function Coordinator:setTabs(tabs) end
            """),
        ("setSplit", """
            ---Shows columns side by side, each with its flow: `self:setSplit { primary = { List }, secondary = { Detail } }` (optionally `supplementary`); returns `{ primary = ..., secondary = ..., supplementary = ... }`.
            ---@param columns { primary: table, secondary: table, supplementary?: table }
            ---@return { primary: any, secondary: any, supplementary?: any }
            function Coordinator:setSplit(columns) end
            """),
        ("showDetail", """
            ---Shows a new screen of type `name` as the split's secondary column, in place of its stack; returns it.
            ---@generic S: coordinator.Screen
            ---@param name `S`
            ---@param inputs? table
            ---@return S
            function Coordinator:showDetail(name, inputs) end
            """),
        ("setPages", """
            ---Shows pages the user swipes between, each with its flow: `self:setPages { { "Users", Users }, { "News", News } }`; returns the flows.
            ---@param pages table
            ---@return any[]
            function Coordinator:setPages(pages) end
            """),
        ("selectPage", """
            ---Shows a page by number (from 1) or title.
            ---@param page integer|string
            function Coordinator:selectPage(page) end
            """),
        ("finish", """
            ---Finishes this flow with a result (its parent's `onFinish` hears it).
            ---@param result? any
            function Coordinator:finish(result) end
            """),
        ("update", """
            ---Sets inputs on every shown screen that declares them: `self:update("user", value)` or `self:update { user = value }`.
            ---@param name string|table
            ---@param value? any
            function Coordinator:update(name, value) end
            """),
        ("send", """
            ---Sends a signal up the tree (`{ windows = "all" }`: through every window's tree too); returns the replies.
            ---@param name string
            ---@param payload? any
            ---@param options? { windows?: "all" }
            ---@return any[]
            function Coordinator:send(name, payload, options) end
            """),
        ("onSignal", """
            ---Handles a signal that reaches this coordinator (a second handler of the same name replaces the first).
            ---@param name string
            ---@param handler fun(payload: any, name: string): any, any
            function Coordinator:onSignal(name, handler) end
            """),
        ("after", """
            ---Runs `fn` once, `seconds` from now on the app's clock; returns the timer (`timer:cancel()`). Cancelled when this flow finishes.
            ---@param seconds number
            ---@param fn fun()
            ---@return coordinator.Timer
            function Coordinator:after(seconds, fn) end
            """),
        ("later", """
            ---Runs `fn` right after the running operation, as part of the same step and before the user can act again (iOS's `DispatchQueue.main.async`; `after(0, fn)` waits for the clock instead). If it fails, only its own changes are undone. Cancelled when this flow finishes.
            ---@param fn fun()
            ---@return coordinator.Later
            function Coordinator:later(fn) end
            """),
        ("every", """
            ---Runs `fn` every `seconds` on the app's clock; returns the timer (`timer:cancel()`). Cancelled when this flow finishes.
            ---@param seconds number
            ---@param fn fun()
            ---@return coordinator.Timer
            function Coordinator:every(seconds, fn) end
            """),
        ("request", """
            ---Starts a request the outside answers later (`flow.request`); set `r.onResult = function(outcome, value) ... end`. Cancelled when this flow finishes.
            ---@param kind string
            ---@param payload? any
            ---@return coordinator.Request
            function Coordinator:request(kind, payload) end
            """),
        ("onEvent", """
            ---Handles an event the outside world sends (`flow.event`, or `background` and `foreground`); every running flow with a handler hears it, from the root down.
            ---@param name string
            ---@param handler fun(payload: any, name: string)
            function Coordinator:onEvent(name, handler) end
            """),
        ("screens", "---The screens this coordinator shows.\n---@return coordinator.Screen[]\nfunction Coordinator:screens() end"),
        ("children", "---Its running child flows, oldest first; of one class (the class or its name) when given.\n---@param class? coordinator.Coordinator|string\n---@return coordinator.Coordinator[]\nfunction Coordinator:children(class) end"),
        ("child", "---Its newest running child flow of a class (the class or its name), or nil: the \"already open\" guard, `if self:child(Settings) then return end`.\n---@param class coordinator.Coordinator|string\n---@return coordinator.Coordinator?\nfunction Coordinator:child(class) end"),
        ("setBadge", """
            ---Sets a tab's badge (nil: none).
            ---@param tab integer|string
            ---@param badge? integer|string
            function Coordinator:setBadge(tab, badge) end
            """),
    ]

    /// The fields and methods every screen has (`screen:title()`, `screen.name`).
    static let screenMembers: [(name: String, annotation: String)] = [
        ("name", "---The screen type's name.\n---@type string\nScreen.name = nil"),
        ("id", "---The screen's number in the app.\n---@type integer\nScreen.id = nil"),
        ("title", "---The title shown above it.\n---@return string\nfunction Screen:title() end"),
        ("isShown", "---Whether it is in the window.\n---@return boolean\nfunction Screen:isShown() end"),
        ("render", "---Its text.\n---@return string\nfunction Screen:render() end"),
        ("input", "---An input's value (also one named like a method).\n---@param name string\n---@return any\nfunction Screen:input(name) end"),
        ("inputs", "---Every input that has a value.\n---@return table\nfunction Screen:inputs() end"),
        ("outputs", "---The names of its outputs.\n---@return string[]\nfunction Screen:outputs() end"),
        ("on", "---Sets a handler by the output's name (nil removes it).\n---@param output string\n---@param handler? fun(payload: any)\nfunction Screen:on(output, handler) end"),
        ("emit", "---Reports an output, as if the user acted.\n---@param output string\n---@param payload? any\nfunction Screen:emit(output, payload) end"),
        ("send", "---Sends a signal up from the screen; returns the replies.\n---@param name string\n---@param payload? any\n---@return any[]\nfunction Screen:send(name, payload) end"),
        ("onSignal", "---Handles a signal sent to the screen.\n---@param name string\n---@param handler fun(payload: any, name: string): any, any\nfunction Screen:onSignal(name, handler) end"),
    ]

    /// The driver functions (a REPL, a test, a script that walks its app).
    static let driverFunctions: [(name: String, annotation: String)] = [
        ("tap", "---The visible screen emits an output, as if the user tapped it.\n---@param output string\n---@param payload? any\nfunction tap(output, payload) end"),
        ("back", "---The system's Back.\nfunction back() end"),
        ("dismiss", "---The swipe-down of the whole top modal.\nfunction dismiss() end"),
        ("open", "---Opens a deep link the app declares; returns \"held\" when its route requires another gateway state (it continues once the app is there).\n---@param url string\n---@return \"held\"?\nfunction open(url) end"),
        ("relaunch", "---The app closes and launches again, as a new process would: its scripts run again; only `flow.storage` and the clock carry over.\nfunction relaunch() end"),
        ("openWindow", "---Opens another window of the app (an iPad's scene): its own root flow starts there, and the driver functions act on it.\nfunction openWindow() end"),
        ("window", "---Makes window `n` the one the driver functions act on; without `n`, the current one's number.\n---@param n? integer\n---@return integer?\nfunction window(n) end"),
        ("closeWindow", "---Closes window `n`: its flows finish (the last window open cannot close).\n---@param n integer\nfunction closeWindow(n) end"),
        ("windows", "---The numbers of the windows open, in opening order.\n---@return integer[]\nfunction windows() end"),
        ("tab", "---Selects a tab by number (from 1) or title.\n---@param tab integer|string\nfunction tab(tab) end"),
        ("swipeTo", "---Swipes to a page of the visible pages, by number (from 1) or title.\n---@param page integer|string\nfunction swipeTo(page) end"),
        ("swipe", "---Swipes the visible pages as a finger moving that way: \"left\" brings the next page, \"right\" the previous one.\n---@param direction \"left\"|\"right\"\nfunction swipe(direction) end"),
        ("top", "---The visible screen, or a split's column's top screen.\n---@param column? \"primary\"|\"supplementary\"|\"secondary\"\n---@return coordinator.AnyScreen\nfunction top(column) end"),
        ("answer", "---The outside answers a pending request (with a kind: the oldest of it) with an outcome its kind declares, and a value (default: the outcome's example).\n---@param request coordinator.Request|string\n---@param outcome string\n---@param value? any\nfunction answer(request, outcome, value) end"),
        ("pending", "---The requests waiting for their answers (of a kind), oldest first.\n---@param kind? string\n---@return coordinator.Request[]\nfunction pending(kind) end"),
        ("advance", "---Time passes: the app's clock moves on by `seconds`, and every timer due by then fires, in due order; returns how many fired.\n---@param seconds number\n---@return integer\nfunction advance(seconds) end"),
        ("event", "---The outside world sends an event the app declares (or `background`, `foreground`); returns whether a flow heard it.\n---@param name string\n---@param payload? any\n---@return boolean\nfunction event(name, payload) end"),
        ("sizeClass", "---The window's width, or (given one) a rotation: \"compact\" collapses a split into one stack, \"regular\" shows its columns side by side.\n---@param width? \"compact\"|\"regular\"\n---@return \"compact\"|\"regular\"?\nfunction sizeClass(width) end"),
        ("random", "---The value the next random draw (`flow.random`) takes: a flow test gives each draw this way, before the step that draws it.\n---@param value integer\nfunction random(value) end"),
        ("stack", "---The visible stack's screen names, bottom first.\n---@return string[]\nfunction stack() end"),
        ("tree", "---The coordinator tree.\n---@return { name: string, children: table[] }?\nfunction tree() end"),
        ("snapshot", "---The whole app as JSON.\n---@return string\nfunction snapshot() end"),
        ("restore", "---Rebuilds the app a snapshot describes; returns a warning when it was of other scripts.\n---@param json string\n---@param secrets? table|fun(name: string, step: integer): any\n---@return string?\nfunction restore(json, secrets) end"),
        ("reload", "---Runs the app's scripts again; the named file-level locals take their new value.\n---@param ... string|string[]\n---@return string\nfunction reload(...) end"),
    ]

    /// A test file's globals besides the driver functions.
    static let testGlobals: [(name: String, annotation: String)] = [
        ("app", "---Loads and starts the app the tests drive; each test starts with the storage given (empty by default).\n---@param script string\n---@param options? { state?: string, sizeClass?: \"compact\"|\"regular\", idiom?: \"phone\"|\"pad\", storage?: table<string, any> }\nfunction app(script, options) end"),
        ("test", "---Declares a test (`test(name, { idiom = \"pad\" }, body)`: it runs on that device).\n---@param name string\n---@param body fun()\n---@overload fun(name: string, options: { idiom?: \"phone\"|\"pad\" }, body: fun())\nfunction test(name, body) end"),
        ("skip", "---Declares a test that is listed, not run.\n---@param name string\n---@param body fun()\nfunction skip(name, body) end"),
    ]

    /// `expect`'s checks.
    static let expectations: [(name: String, annotation: String)] = [
        ("equal", "---Any two values (tables by content).\n---@param actual any\n---@param expected any\n---@param what? string\nfunction expect.equal(actual, expected, what) end"),
        ("screen", "---The visible screen, and the inputs named.\n---@param name string\n---@param inputs? table\nfunction expect.screen(name, inputs) end"),
        ("stack", "---The visible hierarchy from bottom to top.\n---@param names string[]\nfunction expect.stack(names) end"),
        ("alert", "---An alert is showing, with this title (and message).\n---@param spec { title: string, message?: string }\nfunction expect.alert(spec) end"),
        ("tabs", "---The tab bar's titles, in order (and the selected one).\n---@param spec { [integer]: string, selected?: string }\nfunction expect.tabs(spec) end"),
        ("pages", "---The pages' titles, in order (and the one shown).\n---@param spec { [integer]: string, selected?: string }\nfunction expect.pages(spec) end"),
        ("pending", "---A request of that kind waits for its answer (`n` of them, when given).\n---@param kind string\n---@param n? integer\nfunction expect.pending(kind, n) end"),
        ("split", "---The split's columns by screen type, bottom first: `expect.split { primary = { \"List\" }, secondary = { \"Detail\" } }`.\n---@param spec { primary?: string[], supplementary?: string[], secondary?: string[] }\nfunction expect.split(spec) end"),
        ("sizeClass", "---The window's width.\n---@param width \"compact\"|\"regular\"\nfunction expect.sizeClass(width) end"),
        ("storage", "---The app's storage holds these values (`expect.storage { onboarded = true }`), or this key this value (`expect.storage(\"token\", nil)`).\n---@param spec table<string, any>|string\n---@param value? any\nfunction expect.storage(spec, value) end"),
        ("badge", "---A tab's badge (nil: none).\n---@param title string\n---@param badge? integer|string\nfunction expect.badge(title, badge) end"),
        ("presentation", "---The top modal's presentation: its style, or the fields given (dismissable: whether the user can swipe it away; detent: a sheet's first).\n---@param spec \"pageSheet\"|\"formSheet\"|\"fullScreen\"|\"popover\"|{ style?: string, dismissable?: boolean, detent?: string }\nfunction expect.presentation(spec) end"),
        ("tree", "---The running coordinators, depth first, two spaces a level.\n---@param lines string[]\nfunction expect.tree(lines) end"),
        ("finished", "---A coordinator of that name finished during the test.\n---@param name string\n---@param spec? { result?: any, reason?: coordinator.FinishReason }\nfunction expect.finished(name, spec) end"),
        ("events", "---Running `step` caused these events, in order.\n---@param step fun()\n---@param events string[]\nfunction expect.events(step, events) end"),
        ("fails", "---Running `step` fails with a message containing the text, and the app is as before.\n---@param step fun()\n---@param part? string\nfunction expect.fails(step, part) end"),
        ("show", "---A value as the failure messages write it.\n---@param value any\n---@return string\nfunction expect.show(value) end"),
        ("invariantFails", "---The next step breaks the invariant `name` (`flow.invariant`): no failure then, one if it holds after that step.\n---@param name string\nfunction expect.invariantFails(name) end"),
    ]

    // MARK: The files

    /// `coordinator.lua`: the module, coordinators and screens.
    static var library: String {
        var text = """
            ---@meta coordinator
            -- Generated by `coordrun annotations` from the runtime: do not edit (docs/Editors.md).

            ---@alias coordinator.FinishReason "finished"|"systemBack"|"parentFinished"|"screensRemoved"

            ---@class coordinator.ScreenSpec
            ---@field title? string
            ---@field inputs? string[]
            ---@field required? string[]
            ---@field outputs? table
            ---@field render? fun(screen: any): string
            ---@field examples? table<string, any[]>
            ---@field look? coordinator.ScreenLook how it looks in a prototype (the web preview, a storyboard)

            ---How a screen type looks: every key optional, every name one of its inputs or outputs.
            ---@class coordinator.ScreenLook
            ---@field title? string the title drawn at the top
            ---@field text? string the text under it
            ---@field fields? (string|{ label?: string, input: string })[] inputs shown with their labels
            ---@field list? { from: string, title?: string, subtitle?: string } an input's items as rows
            ---@field controls? table<string, "text"|"secure"|"stars"|"stepper"|"toggle"|"button"> the control of each output that takes a value

            ---An alert's action with a function or a style: `{ "Delete", function() ... end, style = "destructive" }`.
            ---@class coordinator.AlertAction
            ---@field [1] string its title: the alert's output
            ---@field [2]? fun() what it does, after the alert has gone
            ---@field style? "default"|"cancel"|"destructive" what it does, as UIKit's action styles say (at most one cancel)

            ---A coordinator: a Lua class over the Swift coordinator (instance -> class -> these methods).
            ---@class coordinator.Coordinator
            ---@field router coordinator.Coordinator
            ---@field onFinish? fun(result: any, reason: coordinator.FinishReason)
            ---@field onTabSelected? fun(self: coordinator.Coordinator) runs whenever its tab becomes the selected one
            ---@field onPageSelected? fun(self: coordinator.Coordinator) runs whenever its page becomes the one shown
            ---@field onScreenLeft? fun(self: coordinator.Coordinator, screen: coordinator.Screen, bySystem: boolean)
            ---@field ui? boolean false on a class: a service that shows no screen
            local Coordinator = {}


            """
        for method in coordinatorMethods { text += method.annotation + "\n\n" }
        text += "---A screen: its inputs read and set as fields, its handlers as `on` fields.\n---@class coordinator.Screen\nlocal Screen = {}\n\n"
        text += "---A request waiting for the outside's answer (`self:request`).\n---@class coordinator.Request\n---@field kind string\n---@field payload any\n---@field pending boolean\n---@field onResult? fun(outcome: string, value: any)\nlocal Request = {}\n---Cancels it: its answer, if one comes, is dropped.\nfunction Request:cancel() end\n\n"
        text += "---The read-only app a property (`flow.invariant`, `flow.reachable`) reads.\n---@class coordinator.AppView\n---@field gateway string the gateway's state\n---@field storage table<string, any> the storage, read-only\n---@field now number the app's clock\nlocal AppView = {}\n---The visible screen.\n---@return coordinator.AnyScreen?\nfunction AppView.top() end\n---The visible stack's screen names, bottom first.\n---@return string[]\nfunction AppView.stack() end\n---The coordinator tree.\n---@return table?\nfunction AppView.tree() end\n---The screens shown anywhere in the window (of a type).\n---@param type? string\n---@return coordinator.AnyScreen[]\nfunction AppView.screens(type) end\n---The running coordinators (of a class).\n---@param class? string\n---@return table[]\nfunction AppView.flows(class) end\n\n"
        text += "---Work right after the running operation (`self:later`).\n---@class coordinator.Later\n---@field pending boolean whether it will still run\nlocal Later = {}\n---Cancels it: it never runs.\nfunction Later:cancel() end\n\n"
        text += "---A timer of the app's clock (`self:after`, `self:every`).\n---@class coordinator.Timer\n---@field pending boolean whether it will still fire\n---@field remaining number? seconds until it fires\n---@field every number? a repeating timer's period\nlocal Timer = {}\n---Cancels it: it never fires again.\nfunction Timer:cancel() end\n\n"
        text += "---A screen of any type (what `top()` gives): any field reads.\n---@class coordinator.AnyScreen: coordinator.Screen\n---@field [string] any\n\n"
        for member in screenMembers { text += member.annotation + "\n\n" }
        text += "---The `coordinator` module: `local flow = require \"coordinator\"`.\n---@class coordinator\nlocal flow = {}\n\n"
        for field in module { text += field.annotation + "\n\n" }
        return text + "return flow\n"
    }

    /// `driver.lua`: the driver functions and a test file's globals.
    static var driver: String {
        var text = "---@meta\n-- Generated by `coordrun annotations` from the runtime: do not edit (docs/Editors.md).\n\n"
        for function in driverFunctions + testGlobals { text += function.annotation + "\n\n" }
        text += "---A test's checks: each fails the test at its own line, with what was expected and what the app shows.\n---@class coordinator.Expect\nexpect = {}\n\n"
        for check in expectations { text += check.annotation + "\n\n" }
        return text
    }

    /// `app.lua`: the app's screen types (and factories) and coordinator classes.
    static func declarations(of runtime: ScriptRuntime) -> String {
        let types = runtime.app.catalog.types.sorted { $0.key < $1.key }
        // Every name is the app's: each goes into a comment line through LuaSyntax, so that none (a screen
        // named "A\nos.execute(...)", the script's own file name) can end the comment and become code.
        let name = LuaSyntax.commentText
        let script = runtime.scriptFiles.first?.split(separator: "/").last.map(String.init) ?? "the app"
        var text = "---@meta\n-- Generated by `coordrun annotations` from \(name(script)): do not edit (docs/Editors.md).\n\n"
        for factory in runtime.app.catalog.factoryNames { text += "---A factory: one of its variants' screens.\n---@class \(name(factory)): coordinator.AnyScreen\n\n" }
        for (type, spec) in types where type != "Alert" {
            text += "---@class \(name(type)): coordinator.Screen\n"
            for input in spec.inputs { text += "---@field \(name(input.name))\(input.required ? "" : "?") any\n" }
            for output in spec.outputs {
                let payload: String = switch output.payload {
                case .nothing: "fun()"
                case .value, .choice: "fun(payload: any)"
                }
                // An output there only sometimes says when: its handler is set as any other's.
                let when = spec.conditions[output.name].map { " offered only while its when (\(name($0.place ?? "a condition"))) holds" } ?? ""
                text += "---@field \(name(output.handlerName))? \(payload)\(when)\n"
            }
            text += "\n"
        }
        for coordinator in runtime.coordinatorClassNames {
            let members = runtime.members(ofCoordinatorClass: coordinator)
            text += "---@class \(name(coordinator)): coordinator.Coordinator\n"
            for method in members.methods { text += "---@field \(name(method)) fun(self: \(name(coordinator)), ...: any): any\n" }
            for field in members.fields { text += "---@field \(name(field)) any\n" }
            text += "\n"
        }
        return text
    }

    /// `.luacheckrc` for a project of flows: Lua 5.4, and in test files (`*_test.lua`) the driver functions,
    /// `app`, `test`, `skip` and `expect` with its checks (luacheck then flags `expect.stak`).
    package static var luacheckConfig: String {
        let globals = (driverFunctions + testGlobals).map { LuaSyntax.quoted($0.name) }.joined(separator: ", ")
        let checks = expectations.map { LuaSyntax.quoted($0.name) }.joined(separator: ", ")
        return """
            -- Generated by `coordrun annotations`: luacheck's view of a project of coordinator flows (docs/Editors.md).
            std = "lua54"
            max_line_length = false
            exclude_files = { "annotations/**", "**/.build/**" }
            files["**/*_test.lua"] = {
              read_globals = { \(globals),
                expect = { fields = { \(checks) } } },
            }

            """
    }

    // MARK: Drift

    /// The names the runtime exposes, by kind (`module`, `coordinator`, `screen`, `driver`, `expect`).
    package static func exposed(by runtime: ScriptRuntime) throws -> [String: Set<String>] {
        let module = try runtime.lua.evaluate("local f = require 'coordinator' local t = {} for k in pairs(f) do t[#t + 1] = k end return t", as: [String].self)
        let expect = try runtime.lua.load(Expectations.source, name: "=expect").call(try runtime.lua.newTable(), as: LuaTable.self)
        return [
            "module": Set(module),
            "coordinator": Set(runtime.coordinatorMethodNames),
            "screen": runtime.screenFields,
            "driver": Set(DriverFunctions.names),
            "expect": Set(try expect.pairs().compactMap(\.key.stringValue)),
        ]
    }

    /// The names annotated here, by kind (as ``exposed(by:)``).
    package static var annotated: [String: Set<String>] {
        ["module": Set(module.map(\.name)), "coordinator": Set(coordinatorMethods.map(\.name)), "screen": Set(screenMembers.map(\.name)),
         "driver": Set(driverFunctions.map(\.name)), "expect": Set(expectations.map(\.name))]
    }
}
