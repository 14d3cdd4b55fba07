/// One shown (or about to be shown) screen: a model with inputs, outputs and a text rendering.
///
/// A screen never pushes, pops or names another screen: it only reports outputs to whoever listens.
public final class Screen: Presentable {
    /// A number that identifies it in the app.
    public let id: Int
    /// How it is presented, when it is a modal.
    public internal(set) var presentation = Presentation()
    /// Its type: declared inputs and outputs, rendering.
    public let type: ScreenType
    /// The screen's current inputs.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    public internal(set) var inputs: FlowRecord
    /// The coordinator that shows it, while it is shown (it owns the screen; the link goes when the screen
    /// leaves, and when the app ends).
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    public internal(set) var owner: Coordinator?
    /// The navigation stack it is on, while it is on one (nil when it is presented by itself: an alert).
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    var stack: NavigationStack?
    /// Whether it is in the window's hierarchy now.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    public internal(set) var isShown = false
    /// The last signal delivery that reached it (see `Application.send`).
    var signalMark = 0
    /// Bumped on each input change: the screen re-renders.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    package internal(set) var renderCount = 0
    /// Outputs of this instance beyond its type's (an alert's actions).
    let extraOutputs: [OutputSpec]
    // The three below are read on every output (a handler is copied out of the table before it is called).
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    var handlers = HandlerTable<(FlowValue?) throws -> Void>()
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    var signalHandlers = HandlerTable<SignalHandler>()
    /// Hears the outputs that have no handler of the screen's own (a scripting bridge sets it once, before
    /// it sets handlers). Not part of the screen's undo: the receiver journals its handlers itself.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    package var outputReceiver: (any OutputReceiver)?
    /// Whether choosing an output dismisses the screen first (an alert's actions do; the Back gesture
    /// cannot dismiss it).
    public let dismissesOnOutput: Bool
    let context: AppContext
    /// The operation level it was made in (see ``Journal/shouldLog(_:)``); if that level fails, whoever
    /// kept the screen finds it not shown (`Change.screenAdded`'s undo).
    package let born: Int
    /// Its entry among the objects its operation made (see ``MadeObject``), or -1.
    private var madeIndex = -1

    init(context: AppContext, type: ScreenType, inputs: FlowRecord, extraOutputs: [OutputSpec] = [], dismissesOnOutput: Bool = false) {
        self.context = context
        self.id = context.nextID()
        self.born = context.journal.markNew()
        self.type = type
        self.inputs = inputs
        self.extraOutputs = extraOutputs
        self.dismissesOnOutput = dismissesOnOutput
        context.live.screens += 1
        madeIndex = context.journal.noteMade(self)
        context.tracker?.add(self)
    }

    deinit {
        if madeIndex >= 0 { context.journal.forgetMade(self, at: madeIndex) }
        context.live.screens -= 1
    }

    func liveApp() throws -> Application { try context.liveApplication("screen \(name)") }

    /// Its type's name.
    public var name: String { type.name }
    /// Its identity for events.
    public var info: ScreenInfo { ScreenInfo(id: id, name: type.name) }
    /// The title shown above its rendering (its type's, or the type's name).
    public var title: String { type.title ?? type.name }
    /// The outputs it declares (its type's, an alert's actions): ``offeredOutputs()`` are those the user
    /// can trigger now.
    public var outputs: [OutputSpec] { type.outputs + extraOutputs }

    /// The outputs the user can trigger now: every one it declares whose condition (``OutputCondition``,
    /// Lua's `when`), if it has one, holds. Throws what a condition throws, and refuses one that changed
    /// the app (the change undone).
    public func offeredOutputs() throws -> [OutputSpec] {
        guard !type.conditions.isEmpty else { return outputs }
        return try outputs.filter { try offers($0.name) }
    }

    /// Whether `output` is offered now: it has no condition, or its condition holds (``offeredOutputs()``).
    public func offers(_ output: String) throws -> Bool {
        guard let condition = type.conditions[output] else { return true }
        let app = try liveApp()
        return try app.atomically {
            let before = app.changeCount
            let offered = try condition.test(self)
            guard app.changeCount == before else {
                throw NavigationError(.notOffered, """
                    the condition of output '\(output)' of \(name)\(condition.place.map { " (\($0))" } ?? "") changed \
                    the app: a condition only reads the screen
                    """)
            }
            return offered
        }
    }

    /// The output whose handler is set under `key` (`onSelectCity` → `selectCity`, or `SelectCity` for an
    /// alert's action named so), or nil. Where both exist, the lowercase one.
    package func output(forHandler key: String) -> String? { outputSlot(forHandler: key)?.output }

    /// ``output(forHandler:)`` with the output's slot (see ``OutputReceiver``).
    package func outputSlot(forHandler key: String) -> (output: String, slot: Int)? {
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
    package func slot(ofOutput output: String) -> Int? { outputKind(output)?.slot }

    /// The slot of an output; an output the screen does not have is the error ``emit(_:payload:)`` gives.
    package func checkedSlot(ofOutput output: String) throws -> Int {
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
        _ = try liveApp()
        setInput(input, to: value)
        context.events.emit(.inputChanged(info, input: input), in: context.journal)
    }

    /// Listens to an output; replaces an earlier listener. An output the screen does not have is an error.
    public func on(_ output: String, _ handler: @escaping (FlowValue?) throws -> Void) throws {
        guard type.output(named: output) != nil || extraOutputs.contains(where: { $0.name == output }) else {
            throw unknownOutput(output)
        }
        setHandler(handler, for: output)
        if let outputReceiver, let slot = slot(ofOutput: output) { outputReceiver.forget(slot: slot) }
    }

    /// Stops listening to an output (the receiver's handler too).
    public func removeHandler(for output: String) {
        if handlers[output] != nil { setHandler(nil, for: output) }
        if let outputReceiver, let slot = slot(ofOutput: output) { outputReceiver.forget(slot: slot) }
    }

    /// Stops listening to every output and signal (what a finished flow does to break reference cycles).
    public func removeAllHandlers() {
        if !handlers.isEmpty || !signalHandlers.isEmpty { clearHandlers() }
        outputReceiver?.forget(slot: nil)
    }

    /// Whether something listens to the output: a handler set with ``on(_:_:)``, or the receiver's.
    public func hasHandler(for output: String) -> Bool {
        if handlers[output] != nil { return true }
        guard let outputReceiver, let slot = slot(ofOutput: output) else { return false }
        return outputReceiver.listens(to: slot)
    }

    /// Whether a handler set with ``on(_:_:)`` listens to the output (it goes before the receiver's).
    package func hasOwnHandler(for output: String) -> Bool { handlers[output] != nil }

    /// Reacts to a signal that reaches this screen.
    public func onSignal(_ name: String, _ handler: @escaping (Signal) throws -> Void) {
        signalHandlersSet &+= 1
        setSignalHandler(SignalHandler(run: handler, serial: signalHandlersSet), for: name)
    }

    /// A signal's handler, with the number of its setting (``handlerSerial(signal:)``).
    struct SignalHandler {
        let run: (Signal) throws -> Void
        let serial: Int
    }

    /// Counts the signal handlers set, to tell one setting from another.
    private var signalHandlersSet = 0

    /// The number of the handler in place for signal `name` (nil: none): a front that set a handler, and
    /// noted the number then, knows whether its handler is still the one the screen keeps.
    package func handlerSerial(signal name: String) -> Int? { signalHandlers[name]?.serial }

    /// Reports an output, as if the user acted: the payload is checked against the declaration, then the
    /// listener runs. Prefer ``Application/tap(_:payload:)``, which also undoes everything if a listener fails.
    public func emit(_ output: String, payload: FlowValue? = nil) throws {
        guard let (payloadKind, slot) = outputKind(output) else { throw unknownOutput(output) }
        if !type.conditions.isEmpty, let condition = type.conditions[output], try !offers(output) {
            throw NavigationError(.notOffered, "output '\(output)' of \(name) is not offered now: its condition" +
                (condition.place.map { " (\($0))" } ?? "") + " is false")
        }
        switch payloadKind {
        case .nothing:
            if payload != nil { throw NavigationError(.badPayload, "output '\(output)' of \(name) takes no payload") }
        case .value:
            if payload == nil { throw NavigationError(.badPayload, "output '\(output)' of \(name) needs a payload") }
        case .choice(let from):
            let items = inputs[from]?.listValue ?? []
            guard let payload, items.contains(payload) else {
                let spec = type.outputs.first { $0.name == output }
                let shown = items.prefix(10).map { spec?.text(ofItem: $0, notation: context.notation) ?? $0.displayText }
                throw NavigationError(.badPayload, "output '\(output)' of \(name) takes one of the items of '\(from)'" +
                    (items.isEmpty ? " (which is empty)" : ": " + shown.joined(separator: ", ") + (items.count > 10 ? ", ... (\(items.count) items)" : "")))
            }
        }
        guard context.isAlive else { throw NavigationError(.notRunning, "screen \(name)'s app is gone") }
        context.events.emit(.outputEmitted(info, output: output), in: context.journal)
        if dismissesOnOutput, isShown {
            // The answer is taken before the screen goes (its going drops the handlers set on it) and given
            // once it has gone, as UIKit runs an alert action's handler after dismissing the alert.
            let handler = handlers[output]
            let answer = handler == nil ? try outputReceiver?.answer(output: slot, of: self) : nil
            try liveApp().navigator(for: owner).dismissModal(self)
            if let handler { try handler(payload) } else if let answer { _ = try answer(payload) }
            return
        }
        if !handlers.isEmpty, let handler = handlers[output] {
            try handler(payload)
        } else if let outputReceiver, try outputReceiver.receive(output: slot, of: self, payload: payload) {
            // heard
        } else if !dismissesOnOutput { // an alert's action without a handler still dismisses it
            context.unheard.note((info, output))
        }
    }

    /// The screen as text: its type's rendering function's text, or its inputs listed (lists that outputs
    /// choose from left out: they are the screen's actions). Throws what the rendering function throws.
    public func render() throws -> String {
        if let render = type.render { return try render(self) }
        // Lists that outputs choose from are shown as actions, not repeated here.
        let choices = Set(outputs.compactMap { if case .choice(let from) = $0.payload { from } else { nil } })
        return type.inputs.filter { !choices.contains($0.name) }
            .compactMap { spec in inputs[spec.name].map { "\(spec.name): \($0.displayText)" } }
            .joined(separator: "\n")
    }

    /// What the output carries and its slot, or nil when the screen has no such output (looked up on every
    /// output: by index, without copying the specs).
    func outputKind(_ output: String) -> (payload: OutputSpec.Payload, slot: Int)? {
        let found = type.outputs.withUnsafeBufferPointer { specs -> (OutputSpec.Payload, Int)? in // SAFETY[buffer-read]
            for i in specs.indices where specs[i].name == output { return (specs[i].payload, i) }
            return nil
        }
        if let (payload, i) = found { return (payload, type.outputSlots[i]) }
        return extraOutputs.withUnsafeBufferPointer { specs in // SAFETY[buffer-read]
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
