import CoordinatorCore
import CoordinatorLua

/// Screens in Lua: screen types declared with `flow.screen "Name" { inputs = { ... }, required = { ... },
/// outputs = { ... }, title = "...", render = function(screen) ... end, examples = { output = { payload, ...
/// } } }` (registered in the app's catalog, again on reload: the catalog redefines a type in place, for
/// the live screens too), and the screen userdata: its inputs as fields (`screen.user`, assignable), its
/// `onOutput` fields as handlers (`screen.onSelectCity = function() ... end`) and ``ScreenMethods``.
final class ScreenBridge {
    /// The names a screen answers in Lua besides its inputs and handlers (methods, `name`, `id`).
    private(set) var fields: Set<String> = []
    /// Each screen type's rendering function, by type name (a reload says when one's code changed).
    private(set) var renders: [String: LuaFunction] = [:]
    private let lua: LuaState
    private let app: Application

    init(lua: LuaState, app: Application) {
        self.lua = lua
        self.app = app
    }

    /// Registers the screen userdata: `name`, `id`, its inputs as fields, `onOutput` handler fields, and
    /// ``ScreenMethods``.
    func install(in runtime: ScriptRuntime) throws {
        // Methods are looked up after inputs, so an input may be called `title`, `render` or `send`.
        var methods: [String: LuaFunction] = [:]
        for (name, body) in ScreenMethods.all {
            methods[name] = lua.function(name: name, holding: runtime) { runtime, call in
                try body(runtime, call.object(1, as: Screen.self), call)
            }
        }
        fields = Set(methods.keys).union(["name", "id"])
        try lua.register(Screen.self, name: "Screen") { s in
            s.readOnly("name") { $0.name }
            s.readOnly("id") { $0.id }
            s.index { screen, call in
                guard let key = call.value(1).stringValue else { return }
                if let (_, slot) = screen.outputSlot(forHandler: key) {
                    // The handler a script set (what it set, so a helper can wrap it); nil for none or a Swift one.
                    if let handlers = screen.outputReceiver as? ScreenHandlers { try handlers.slots.push(slot + 1, onto: call.stack) }
                    else { try call.pushResult(LuaValue.nil) }
                } else if screen.type.input(named: key) != nil {
                    if let value = screen[key] { try call.pushResult(value) }
                } else if let method = methods[key] {
                    try call.pushResult(method)
                }
            }
            s.newIndex(holding(runtime) { runtime, screen, call in
                guard call.type(1) == .string else {
                    throw LuaError(.runtime, "screen \(screen.name) fields are named by strings")
                }
                let key = try call.string(1)
                if let (output, slot) = screen.outputSlot(forHandler: key) {
                    switch call.type(2) {
                    case .nil, .none, .function: return try runtime.screens.setHandler(screen, output: output, slot: slot, toValueAt: 2, of: call)
                    default: throw LuaError(.runtime, "screen \(screen.name): \(key) must be a function (or nil)")
                    }
                }
                guard screen.type.input(named: key) != nil else {
                    let inputs = screen.type.inputs.map(\.name).joined(separator: ", ")
                    let outputs = screen.outputs.map(\.handlerName).joined(separator: ", ")
                    throw LuaError(.runtime, """
                        screen \(screen.name) has no input or output '\(key)' (inputs: \
                        \(inputs.isEmpty ? "none" : inputs); handlers: \(outputs.isEmpty ? "none" : outputs))
                        """)
                }
                let value = call.type(2).rawValue <= LuaType.nil.rawValue ? nil : try FlowValue.read(from: call.stack, at: call.index(2), path: key)
                try screen.set(key, to: value)
            })
            s.toString { "Screen \($0.info)" }
        }
    }

    /// Sets the screen's Lua handler for `output` (in `slot`) to the function or nil at `argument` of `call`.
    func setHandler(_ screen: Screen, output: String, slot: Int, toValueAt argument: Int, of call: borrowing LuaCall) throws {
        let handlers: ScreenHandlers
        switch screen.outputReceiver {
        case let own as ScreenHandlers: handlers = own
        case nil:
            handlers = ScreenHandlers(lua, app: app, for: screen, isNew: false)
            screen.outputReceiver = handlers
            if let owner = screen.owner as? ScriptedCoordinator { owner.adopt(screen) }
        case .some:
            throw LuaError(.runtime, "screen \(screen.name)'s outputs go to a Swift receiver: scripts cannot handle them")
        }
        if screen.hasOwnHandler(for: output) { screen.removeHandler(for: output) } // the last handler set wins
        try handlers.setHandler(slot, toValueAt: call.index(argument), in: call.stack)
    }

    /// Registers the screen type `name` that `spec` describes.
    func define(name: String, spec: LuaTable, in runtime: ScriptRuntime) throws {
        var inputs: [InputSpec] = []
        if let list = try spec.get("inputs", as: [LuaValue]?.self) {
            for item in list {
                if let name = item.stringValue { inputs.append(InputSpec(name)) }
                else { throw LuaError(.runtime, "screen \(name): inputs are names (strings)") }
            }
        }
        let required = try spec.get("required", as: [String]?.self) ?? []
        for name in required where !inputs.contains(where: { $0.name == name }) { inputs.append(InputSpec(name)) }
        inputs = inputs.map { InputSpec($0.name, required: required.contains($0.name)) }

        var outputs: [OutputSpec] = []
        var conditions: [String: LuaFunction] = [:]
        if let table = try spec.get("outputs", as: LuaTable?.self) {
            for item in try table.decode([LuaValue].self) {
                guard let output = item.stringValue else { throw LuaError(.runtime, "screen \(name): outputs are names, or name = payload") }
                outputs.append(OutputSpec(output))
            }
            var keyed: [OutputSpec] = [] // Lua keeps no order for keyed fields: they follow, by name
            for (key, value) in try table.pairs() where key.stringValue != nil {
                let output = key.stringValue ?? ""
                switch value {
                case .string(let kind) where kind.string == "value": keyed.append(OutputSpec(output, payload: .value))
                case .string(let kind) where kind.string == "none": keyed.append(OutputSpec(output))
                case .table(let options):
                    let (spec, when) = try Self.output(output, of: name, options: options)
                    keyed.append(spec)
                    if let when { conditions[output] = when }
                default:
                    throw LuaError(.runtime, "screen \(name): output '\(output)' must be \"value\", \"none\", or a table of from, label, secret, payload, when")
                }
            }
            outputs += keyed.sorted { $0.name < $1.name }
        }
        try Self.check(name, inputs: inputs, outputs: outputs)
        let render = try spec.get("render", as: LuaFunction?.self)
        let title = try spec.get("title", as: String?.self)
        var renderer: ((Screen) throws -> String)?
        if let render {
            runtime.reloads.scriptFunctions.append(render)
            renderer = { (screen: Screen) throws -> String in
                try render.call(LuaObject(screen), as: String.self)
            }
        }
        let type = ScreenType(name, inputs: inputs, outputs: outputs, title: title, render: renderer)
        var offered: [String: OutputCondition] = [:]
        for (output, when) in conditions {
            runtime.reloads.scriptFunctions.append(when)
            // Called with the screen, whose fields read its inputs as they are now (as a rendering is): it
            // decides, it does not change (setting an input is refused, by ``Screen/offers(_:)``).
            offered[output] = OutputCondition(place: Self.place(of: when)) { screen in
                try when.call(LuaObject(screen), as: LuaValue.self).isTruthy
            }
        }
        try type.setConditions(offered)
        if let table = try spec.get("examples", as: LuaTable?.self) {
            var examples: [String: [FlowValue]] = [:]
            for (key, value) in try table.pairs() {
                guard let output = key.stringValue, case .table(let list) = value else {
                    throw LuaError(.runtime, "screen \(name): examples = { output = { payload, ... } }")
                }
                examples[output] = try list.decode([FlowValue].self)
            }
            do { try type.setExamples(examples) } catch let error as NavigationError { throw LuaError(.runtime, error.message) }
        }
        if let look = try spec.get("look", as: LuaTable?.self) {
            do { try type.setLook(try Self.look(of: name, look)) } catch let error as NavigationError { throw LuaError(.runtime, error.message) }
        }
        renders[name] = render
        runtime.app.catalog.register(type)
    }

    /// `look = { title = ..., text = ..., fields = { "balance", { label = "Card", input = "card" } }, list =
    /// { from = "items", title = "name", subtitle = "city" }, controls = { pin = "secure" } }`, every key
    /// optional (``ScreenLook``); what the screen type declares is checked by ``ScreenType/setLook(_:)``.
    private static func look(of name: String, _ table: LuaTable) throws -> ScreenLook {
        let place = "screen \(name): look"
        try table.checkKeys(["title", "text", "fields", "list", "controls"], of: place + "'s fields")
        var fields: [ScreenLook.Field] = []
        for item in try table.rawGet("fields", as: [LuaValue]?.self) ?? [] {
            switch item {
            case .string(let input): fields.append(ScreenLook.Field(input: input.string))
            case .table(let field):
                try field.checkKeys(["label", "input"], of: place + "'s field")
                guard let input = try field.rawGet("input", as: String?.self) else {
                    throw LuaError(.runtime, "\(place): a field is an input's name, or { label = ..., input = ... }")
                }
                fields.append(ScreenLook.Field(label: try field.rawGet("label", as: String?.self), input: input))
            default: throw LuaError(.runtime, "\(place): a field is an input's name, or { label = ..., input = ... }")
            }
        }
        var list: ScreenLook.List?
        if let spec = try table.rawGet("list", as: LuaTable?.self) {
            try spec.checkKeys(["from", "title", "subtitle"], of: place + "'s list")
            guard let from = try spec.rawGet("from", as: String?.self) else {
                throw LuaError(.runtime, "\(place): list = { from = \"input\", title = \"field\", subtitle = \"field\" }")
            }
            list = ScreenLook.List(from: from, title: try spec.rawGet("title", as: String?.self), subtitle: try spec.rawGet("subtitle", as: String?.self))
        }
        var controls: [String: ScreenLook.Control] = [:]
        if let spec = try table.rawGet("controls", as: LuaTable?.self) {
            for (key, value) in try spec.pairs() {
                let kinds = ScreenLook.Control.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                guard let output = key.stringValue, let kind = value.stringValue.flatMap(ScreenLook.Control.init(rawValue:)) else {
                    throw LuaError(.runtime, "\(place): controls = { output = kind }, each kind one of \(kinds)")
                }
                controls[output] = kind
            }
        }
        return ScreenLook(title: try table.rawGet("title", as: String?.self), text: try table.rawGet("text", as: String?.self),
                          fields: fields, list: list, controls: controls)
    }

    /// The names a screen answers in Lua whatever its inputs (`screen.name`, `screen.id`): an input cannot
    /// take them.
    static let reservedInputNames: Set<String> = ["name", "id"]

    /// Refuses what a screen type cannot mean: an input named like a screen's own field or like an output's
    /// handler, an output choosing from an input the type does not have.
    private static func check(_ name: String, inputs: [InputSpec], outputs: [OutputSpec]) throws {
        for input in inputs where reservedInputNames.contains(input.name) {
            throw LuaError(.runtime, """
                screen \(name): an input cannot be called '\(input.name)': screen.\(input.name) is the screen's own \
                \(input.name == "id" ? "number" : "type name"); call it, for example, \
                '\(input.name == "id" ? "itemId" : "userName")'
                """)
        }
        for input in inputs {
            if let output = outputs.first(where: { $0.handlerName == input.name }) {
                throw LuaError(.runtime, """
                    screen \(name): input '\(input.name)' has the name of output '\(output.name)''s handler \
                    (screen.\(input.name) = function ... end sets the handler): rename the input
                    """)
            }
        }
        for output in outputs {
            guard case .choice(let from) = output.payload else {
                if output.itemLabel != nil { throw LuaError(.runtime, """
                    screen \(name): output '\(output.name)' has a label but chooses from no list (label goes with \
                    from = 'input')
                    """) }
                continue
            }
            if !inputs.contains(where: { $0.name == from }) {
                let names = inputs.map(\.name).joined(separator: ", ")
                throw LuaError(.runtime, """
                    screen \(name): output '\(output.name)' chooses from '\(from)', which is not one of its inputs \
                    (inputs: \(names.isEmpty ? "none" : names))
                    """)
            }
        }
    }

    /// An output declared by a table: `{ from = "input", label = "field" }` (an item of a list),
    /// `{ secret = ... }` or `{ payload = "value" }` (any value), `{ payload = "none" }` or nothing (no
    /// payload), each with an optional `when = function(inputs) ... end` (offered only while it is true).
    private static func output(_ output: String, of name: String, options: LuaTable) throws -> (OutputSpec, LuaFunction?) {
        let place = "screen \(name): output '\(output)'"
        try options.checkKeys(["from", "label", "secret", "payload", "when"], of: place + "'s fields")
        var when: LuaFunction?
        switch try options.rawGet("when", as: LuaValue.self) {
        case .nil: break
        case .function(let function): when = function
        default: throw LuaError(.runtime, "\(place): when is a function of the screen's inputs (when = function(inputs) return inputs.isOwn end)")
        }
        let payload = try options.rawGet("payload", as: String?.self)
        if let payload, payload != "value", payload != "none" {
            throw LuaError(.runtime, "\(place): payload is \"value\" or \"none\", not '\(payload)'")
        }
        if let from = try options.rawGet("from", as: String?.self) {
            guard try options.rawGet("secret", as: LuaValue.self) == .nil else {
                throw LuaError(.runtime, "\(place) chooses an item of '\(from)', which the app has: it cannot be secret")
            }
            guard payload == nil else { throw LuaError(.runtime, "\(place): from = '\(from)' says the payload (an item of the list): leave out payload") }
            return (OutputSpec(output, payload: .choice(from: from), itemLabel: try options.rawGet("label", as: String?.self)), when)
        }
        if let secret = try SecretParts(declared: try options.rawGet("secret", as: LuaValue.self), in: place, of: "payload") {
            guard payload != "none" else { throw LuaError(.runtime, "\(place): a secret is a payload, so payload cannot be \"none\"") }
            return (OutputSpec(output, payload: .value, secret: secret), when)
        }
        if try options.rawGet("label", as: LuaValue.self) != .nil {
            throw LuaError(.runtime, "\(place) has a label but chooses from no list (label goes with from = 'input')")
        }
        if payload == "value" { return (OutputSpec(output, payload: .value), when) }
        guard payload != nil || when != nil else {
            throw LuaError(.runtime, """
                \(place) = { from = 'input' } names the list input its payload comes from; { secret = { 'field', ... \
                } } or { secret = true } takes a value whose fields (or the whole) are never recorded; { payload = \
                \"value\" } takes any value; when = function(inputs) ... end offers it only while it returns true
                """)
        }
        return (OutputSpec(output), when)
    }

    /// Where a Lua function is written (`app.lua:12`), for messages.
    static func place(of function: LuaFunction) -> String? {
        guard let info = function.info, info.isLua else { return nil }
        let chunk = info.source.hasPrefix("@") || info.source.hasPrefix("=") ? String(info.source.dropFirst()) : info.source
        return "\(chunk):\(info.lineDefined)"
    }

    /// The screen `coordinator:push(name, inputs)` (and present, setRoot) shows, with a receiver for the
    /// handlers the script will set: made here, where nothing else holds the screen yet, its handlers need
    /// no undo in this operation.
    func make(_ call: borrowing LuaCall, for coordinator: Coordinator) throws -> Screen {
        let screen = try app.catalog.make(call.string(1), inputs: call.optional(2, as: FlowRecord.self) ?? [:])
        screen.outputReceiver = ScreenHandlers(lua, app: app, for: screen, isNew: true)
        if let owner = coordinator as? ScriptedCoordinator { owner.adopt(screen) }
        return screen
    }
}

extension Screen {
    /// Its text, or the rendering's error with the screen named (`rendering Home failed: app.lua:8: ...`):
    /// what a line (REPL) or a step (flow tests) that shows the screen fails with.
    package func checkedRendering() throws -> String {
        do {
            return try render()
        } catch var error as LuaError {
            error.message = "rendering \(name) failed: " + error.message
            throw error
        }
    }
}

extension Application {
    /// Runs `body` (a step of the user, a link, a REPL line) as one operation that also renders the screen
    /// it leaves visible and decides which of its outputs are offered: a screen that does not render, or
    /// whose output's condition fails, fails it, and the app is as before. How flow tests, exploration,
    /// the route check and the REPL take a step. With `changed`, only when it says what the user sees
    /// changed (a line that changed nothing renders nothing); `rendered` gets the screen and its text.
    package func atomicallyRendering<R>(changed: (() -> Bool)? = nil, rendered: ((Screen, String) -> Void)? = nil,
                                        _ body: () throws -> R) throws -> R {
        try atomically {
            let result = try body()
            if changed?() ?? true, let screen = window.visibleScreen {
                let text = try screen.checkedRendering()
                _ = try screen.offeredOutputs() // its conditions decide, without error
                rendered?(screen, text)
            }
            return result
        }
    }
}
