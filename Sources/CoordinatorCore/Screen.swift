/// An input a screen type declares: data set from outside, which may change while the screen is shown.
public struct InputSpec: Hashable, Sendable {
    public var name: String
    /// A screen cannot be built without a required input.
    public var required: Bool
    public init(_ name: String, required: Bool = false) {
        self.name = name
        self.required = required
    }
}

/// An output a screen type declares: something the user does that the screen reports.
public struct OutputSpec: Hashable, Sendable {
    /// What an output carries.
    public enum Payload: Hashable, Sendable {
        /// Nothing (`onSelectCity`).
        case none
        /// Any value (`onLogin(credentials)`).
        case value
        /// One item of the list held by the named input (`onCitySelected(city)` from input `cities`).
        case choice(from: String)
    }

    public let name: String
    public var payload: Payload
    /// The name a script sets its handler under: `onSelectCity` for `selectCity` (and for `SelectCity`).
    public let handlerName: String

    public init(_ name: String, payload: Payload = .none) {
        self.name = name
        self.payload = payload
        handlerName = "on" + name.prefix(1).uppercased() + name.dropFirst()
    }

    /// Whether the name starts with a lowercase ASCII letter (`selectCity`, not `SelectCity`).
    var startsLowercase: Bool {
        guard let first = name.utf8.first else { return false }
        return first >= UInt8(ascii: "a") && first <= UInt8(ascii: "z")
    }
}

/// A kind of screen: its name, declared inputs and outputs, and how it renders as text.
///
/// Types are reference objects so that redefining one (a reloaded script) changes its live screens too.
///
/// ```swift
/// let userEdit = ScreenType("UserEdit", inputs: ["user"], outputs: [OutputSpec("selectCity")]) { screen in
///     "User: \(screen["user"]?["name"]?.displayText ?? "")"
/// }
/// ```
public final class ScreenType {
    public let name: String
    // Read on every output and input change, so exclusivity is not checked at run time. Safe: a type
    // lives on its app's thread, and each access is one read or one assignment that runs no code.
    @exclusivity(unchecked) public private(set) var inputs: [InputSpec]
    @exclusivity(unchecked) public private(set) var outputs: [OutputSpec]
    /// The slot of each output (``outputs``' order): its place among every output name the type has had,
    /// so that a redefinition keeps each name's slot (see ``OutputReceiver``).
    @exclusivity(unchecked) public private(set) var outputSlots: [Int]
    /// Every output name the type has had, in order of first definition: a name's slot is its index.
    private var slotNames: [String]
    /// Text for the screen's current inputs; when nil, the inputs are listed.
    public private(set) var render: ((Screen) throws -> String)?
    /// The title shown above the rendering (default: the type's name).
    public private(set) var title: String?

    public init(
        _ name: String, inputs: [InputSpec] = [], outputs: [OutputSpec] = [], title: String? = nil,
        render: ((Screen) throws -> String)? = nil
    ) {
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
        self.title = title
        self.render = render
        slotNames = []
        outputSlots = []
        outputSlots = outputs.map { slot(named: $0.name) }
    }

    /// The slot for an output name: the one it had before, or the next one.
    private func slot(named name: String) -> Int {
        if let slot = slotNames.firstIndex(of: name) { return slot }
        slotNames.append(name)
        return slotNames.count - 1
    }

    /// A type whose inputs are all optional.
    public convenience init(
        _ name: String, inputs: [String], outputs: [OutputSpec] = [], title: String? = nil,
        render: ((Screen) throws -> String)? = nil
    ) {
        self.init(name, inputs: inputs.map { InputSpec($0) }, outputs: outputs, title: title, render: render)
    }

    /// Takes another definition's inputs, outputs and rendering, so live screens follow the new definition.
    public func redefine(like other: ScreenType) {
        inputs = other.inputs
        outputs = other.outputs
        outputSlots = outputs.map { slot(named: $0.name) }
        render = other.render
        title = other.title
    }

    public func input(named name: String) -> InputSpec? { inputs.first { $0.name == name } }
    public func output(named name: String) -> OutputSpec? { outputs.first { $0.name == name } }
}

/// Where a screen's outputs go when no handler was set for them with ``Screen/on(_:_:)``: a scripting
/// bridge keeps the handlers its scripts set in its own language (the Lua bridge keeps a screen's in one
/// Lua table) and hears the outputs here, by slot, without a Swift closure per handler.
///
/// A slot numbers an output: ``ScreenType/outputSlots`` for the type's outputs (stable when the type is
/// redefined), `-1 - i` for the screen's own extra output `i` (an alert's actions). The receiver keeps
/// its handlers' state for undo itself; the screen only asks it.
///
/// ```swift
/// final class Recorder: OutputReceiver {
///     var heard: [Int] = []
///     func receive(output slot: Int, of screen: Screen, payload: FlowValue?) throws { heard.append(slot) }
///     func listens(to slot: Int) -> Bool { true }
///     func forget(slot: Int?) {}
/// }
/// screen.outputReceiver = Recorder()
/// ```
public protocol OutputReceiver: AnyObject {
    /// Runs the handler for the output in `slot`, if there is one.
    func receive(output slot: Int, of screen: Screen, payload: FlowValue?) throws
    /// Whether a handler listens to the output in `slot`.
    func listens(to slot: Int) -> Bool
    /// Drops the handler for the output in `slot`, or every handler when nil: the screen calls it when a
    /// Swift handler replaces the receiver's, or when its handlers are removed.
    func forget(slot: Int?)
}

/// One shown (or about to be shown) screen: a model with inputs, outputs and a text rendering.
///
/// A screen never pushes, pops or names another screen: it only reports outputs to whoever listens.
public final class Screen: Presentable {
    /// The operation level that last recorded it (see `Application.needsRecord`).
    var journalMark = 0
    public let id: Int
    public let type: ScreenType
    /// The screen's current inputs.
    public internal(set) var inputs: FlowRecord
    /// The coordinator that shows it.
    /// Exclusivity unchecked (read for every screen a signal crosses): one thread, single reads and writes.
    @exclusivity(unchecked) public internal(set) weak var owner: Coordinator?
    /// Whether it is in the window's hierarchy now.
    public internal(set) var isShown = false
    /// The last signal delivery that reached it (see `Application.send`).
    @exclusivity(unchecked) var signalMark = 0
    /// Bumped on each input change: the screen re-renders.
    public internal(set) var renderCount = 0
    /// Outputs of this instance beyond its type's (an alert's actions).
    let extraOutputs: [OutputSpec]
    // Looked up on every output and signal, so exclusivity is not checked at run time. Safe: an app and
    // its screens live on one thread (none is Sendable), and each access is one read or one assignment
    // that runs no code while it lasts (a handler is copied out before it is called).
    @exclusivity(unchecked) var handlers = HandlerTable<(FlowValue?) throws -> Void>()
    @exclusivity(unchecked) var signalHandlers = HandlerTable<(Signal) throws -> Void>()
    /// Hears the outputs that have no handler of the screen's own (a scripting bridge sets it once, before
    /// it sets handlers). Not part of the screen's undo: the receiver journals its handlers itself.
    @exclusivity(unchecked) public var outputReceiver: (any OutputReceiver)?
    /// The app it belongs to; weak, so a screen kept after its app is gone fails cleanly instead of crashing.
    weak var app: Application?
    private let live: LiveObjects

    init(app: Application, type: ScreenType, inputs: FlowRecord, extraOutputs: [OutputSpec] = []) {
        self.app = app
        self.live = app.live
        self.id = app.nextID()
        self.type = type
        self.inputs = inputs
        self.extraOutputs = extraOutputs
        live.screens += 1
    }

    deinit { live.screens -= 1 }

    func liveApp() throws -> Application {
        guard let app else { throw NavigationError(.notRunning, "screen \(name)'s app is gone") }
        return app
    }

    public var name: String { type.name }
    public var info: ScreenInfo { ScreenInfo(id: id, name: type.name) }
    public var title: String { type.title ?? type.name }
    /// The outputs the user can trigger.
    public var outputs: [OutputSpec] { type.outputs + extraOutputs }

    /// The output whose handler is set under `key` (`onSelectCity` → `selectCity`, or `SelectCity` for an
    /// alert's action named so), or nil. Where both exist, the lowercase one.
    public func output(forHandler key: String) -> String? { outputSlot(forHandler: key)?.output }

    /// ``output(forHandler:)`` with the output's slot (see ``OutputReceiver``).
    public func outputSlot(forHandler key: String) -> (output: String, slot: Int)? {
        // The type's outputs, then the extra ones; the first lowercase match wins, else the first match.
        var found: (output: String, slot: Int)?
        let outputs = type.outputs, slots = type.outputSlots
        for i in outputs.indices where outputs[i].handlerName == key {
            if outputs[i].startsLowercase { return (outputs[i].name, slots[i]) }
            if found == nil { found = (outputs[i].name, slots[i]) }
        }
        for i in extraOutputs.indices where extraOutputs[i].handlerName == key {
            if extraOutputs[i].startsLowercase { return (extraOutputs[i].name, -1 - i) }
            if found == nil { found = (extraOutputs[i].name, -1 - i) }
        }
        return found
    }

    /// The slot of an output (see ``OutputReceiver``), or nil when the screen has no such output.
    public func slot(ofOutput output: String) -> Int? { outputKind(output)?.slot }

    /// The slot of an output; an output the screen does not have is the error ``emit(_:payload:)`` gives.
    public func checkedSlot(ofOutput output: String) throws -> Int {
        guard let slot = slot(ofOutput: output) else { throw unknownOutput(output) }
        return slot
    }

    /// The value of an input, or nil.
    public subscript(input: String) -> FlowValue? { inputs[input] }

    /// Sets an input; the screen re-renders. An input its type does not declare is an error.
    public func set(_ input: String, to value: FlowValue?) throws {
        guard type.input(named: input) != nil else {
            throw NavigationError(.unknownInput, "screen \(name) has no input '\(input)' (inputs: \(type.inputs.map(\.name).joined(separator: ", ")))")
        }
        let app = try liveApp()
        app.recordScreen(self)
        inputs[input] = value
        renderCount += 1
        app.emit(.inputChanged(info, input: input))
    }

    /// Listens to an output; replaces an earlier listener. An output the screen does not have is an error.
    public func on(_ output: String, _ handler: @escaping (FlowValue?) throws -> Void) throws {
        guard type.output(named: output) != nil || extraOutputs.contains(where: { $0.name == output }) else {
            throw unknownOutput(output)
        }
        app?.recordScreen(self)
        handlers[output] = handler
        if let outputReceiver, let slot = slot(ofOutput: output) { outputReceiver.forget(slot: slot) }
    }

    /// Stops listening to an output (the receiver's handler too).
    public func removeHandler(for output: String) {
        if handlers[output] != nil {
            app?.recordScreen(self)
            handlers[output] = nil
        }
        if let outputReceiver, let slot = slot(ofOutput: output) { outputReceiver.forget(slot: slot) }
    }

    /// Stops listening to every output and signal (what a finished flow does to break reference cycles).
    public func removeAllHandlers() {
        if !handlers.isEmpty || !signalHandlers.isEmpty {
            app?.recordScreen(self)
            handlers.removeAll()
            signalHandlers.removeAll()
        }
        outputReceiver?.forget(slot: nil)
    }

    /// Whether something listens to the output: a handler set with ``on(_:_:)``, or the receiver's.
    public func hasHandler(for output: String) -> Bool {
        if handlers[output] != nil { return true }
        guard let outputReceiver, let slot = slot(ofOutput: output) else { return false }
        return outputReceiver.listens(to: slot)
    }

    /// Whether a handler set with ``on(_:_:)`` listens to the output (it goes before the receiver's).
    public func hasOwnHandler(for output: String) -> Bool { handlers[output] != nil }

    /// Reacts to a signal that reaches this screen.
    public func onSignal(_ name: String, _ handler: @escaping (Signal) throws -> Void) {
        app?.recordScreen(self)
        signalHandlers[name] = handler
    }

    /// Reports an output, as if the user acted: the payload is checked against the declaration, then the
    /// listener runs. Prefer ``Application/tap(_:payload:)``, which also undoes everything if a listener fails.
    public func emit(_ output: String, payload: FlowValue? = nil) throws {
        guard let (payloadKind, slot) = outputKind(output) else { throw unknownOutput(output) }
        switch payloadKind {
        case .none:
            if payload != nil { throw NavigationError(.badPayload, "output '\(output)' of \(name) takes no payload") }
        case .value:
            if payload == nil { throw NavigationError(.badPayload, "output '\(output)' of \(name) needs a payload") }
        case .choice(let from):
            let items = inputs[from]?.list ?? []
            guard let payload, items.contains(payload) else {
                throw NavigationError(.badPayload, "output '\(output)' of \(name) takes one of the items of '\(from)'" +
                    (items.isEmpty ? " (which is empty)" : ": " + items.map(\.displayText).joined(separator: ", ")))
            }
        }
        guard live.appIsAlive else { throw NavigationError(.notRunning, "screen \(name)'s app is gone") }
        if live.isObserved { try liveApp().emit(.outputEmitted(info, output: output)) }
        if !handlers.isEmpty, let handler = handlers[output] {
            try handler(payload)
        } else if let outputReceiver {
            try outputReceiver.receive(output: slot, of: self, payload: payload)
        }
    }

    /// The screen as text: the type's rendering, or its inputs listed.
    public func render() -> String {
        if let render = type.render {
            do { return try render(self) } catch { return "(rendering \(name) failed: \(error))" }
        }
        // Lists that outputs choose from are shown as actions, not repeated here.
        let choices = Set(outputs.compactMap { if case .choice(let from) = $0.payload { from } else { nil } })
        return type.inputs.filter { !choices.contains($0.name) }
            .compactMap { spec in inputs[spec.name].map { "\(spec.name): \($0.displayText)" } }
            .joined(separator: "\n")
    }

    /// What the output carries and its slot, or nil when the screen has no such output (looked up on every
    /// output: by index, without copying the specs).
    func outputKind(_ output: String) -> (payload: OutputSpec.Payload, slot: Int)? {
        let found = type.outputs.withUnsafeBufferPointer { specs -> (OutputSpec.Payload, Int)? in
            for i in specs.indices where specs[i].name == output { return (specs[i].payload, i) }
            return nil
        }
        if let (payload, i) = found { return (payload, type.outputSlots[i]) }
        return extraOutputs.withUnsafeBufferPointer { specs in
            for i in specs.indices where specs[i].name == output { return (specs[i].payload, -1 - i) }
            return nil
        }
    }

    func unknownOutput(_ output: String) -> NavigationError {
        let names = outputs.map(\.name)
        return NavigationError(.unknownOutput, "screen \(name) has no output '\(output)'" +
            (names.isEmpty ? " (it has none)" : " (outputs: \(names.joined(separator: ", ")))"))
    }

    // Presentable
    public var visibleScreen: Screen? { self }
    public var screens: [Screen] { [self] }
    public var containerName: String { name }
}

/// Every screen type an app has, and the factories that choose between variants.
///
/// The sources' `ControllersList` + `Assembly`: one place lists all screens; building one validates its
/// parameters. A factory name stands for a choice among types (the A/B "city list or city map") that
/// coordinators never see.
///
/// ```swift
/// app.catalog.register(ScreenType("CityList", inputs: ["cities"], outputs: [OutputSpec("citySelected", payload: .value)]))
/// app.catalog.register(ScreenType("CityMap", inputs: ["cities"], outputs: [OutputSpec("citySelected", payload: .value)]))
/// app.catalog.factory("CityPicker") { _ in useMap ? "CityMap" : "CityList" }
/// let screen = try app.catalog.make("CityPicker", inputs: ["cities": cities])  // a CityMap or a CityList
/// ```
public final class ScreenCatalog {
    weak var app: Application?
    public private(set) var types: [String: ScreenType] = [:]
    var factories: [String: (FlowRecord) throws -> String] = [:]

    init(app: Application) { self.app = app }

    /// Every screen type name, sorted.
    public var names: [String] { types.keys.sorted() }

    /// Adds a screen type; a type of the same name is redefined in place (its live screens follow). Inside an
    /// operation that fails, both are undone.
    @discardableResult
    public func register(_ type: ScreenType) -> ScreenType {
        if let existing = types[type.name] {
            let saved = ScreenType(existing.name, inputs: existing.inputs, outputs: existing.outputs, title: existing.title, render: existing.render)
            app?.recordForUndo(existing, part: "definition") { existing.redefine(like: saved) }
            existing.redefine(like: type)
            return existing
        }
        app?.recordForUndo(self, part: "types") { [saved = types] in self.types = saved }
        types[type.name] = type
        return type
    }

    /// Adds a factory: `make(name, ...)` builds the type the closure chooses for those inputs.
    public func factory(_ name: String, choose: @escaping (FlowRecord) throws -> String) {
        app?.recordForUndo(self, part: "factories") { [saved = factories] in self.factories = saved }
        factories[name] = choose
    }

    /// The type for a name, going through a factory where there is one.
    public func resolve(_ name: String, inputs: FlowRecord = [:]) throws -> ScreenType {
        var resolved = name
        if let factory = factories[name] { resolved = try factory(inputs) }
        guard let type = types[resolved] else {
            let known = names
            let via = resolved == name ? "" : " (chosen by factory '\(name)')"
            throw NavigationError(.unknownScreen, "unknown screen '\(resolved)'\(via)" +
                (known.isEmpty ? "; no screens are registered" : "; known screens: \(known.joined(separator: ", "))"))
        }
        return type
    }

    /// Builds a screen, checking its inputs against the type: unknown inputs and missing required ones are
    /// errors.
    public func make(_ name: String, inputs: FlowRecord = [:]) throws -> Screen {
        let type = try resolve(name, inputs: inputs)
        for key in inputs.keys where type.input(named: key) == nil {
            throw NavigationError(.unknownInput, "screen \(type.name) has no input '\(key)'" +
                (type.inputs.isEmpty ? " (it has none)" : " (inputs: \(type.inputs.map(\.name).joined(separator: ", ")))"))
        }
        if let missing = type.inputs.first(where: { $0.required && inputs[$0.name] == nil }) {
            throw NavigationError(.missingInput, "screen \(type.name) needs input '\(missing.name)'")
        }
        guard let app else { throw NavigationError(.notRunning, "the app is gone") }
        return Screen(app: app, type: type, inputs: inputs)
    }
}
