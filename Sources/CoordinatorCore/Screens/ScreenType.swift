/// An input a screen type declares: data set from outside, which may change while the screen is shown.
public struct InputSpec: Hashable, Sendable {
    /// The input's name (`user`).
    public var name: String
    /// A screen cannot be built without a required input.
    public var required: Bool
    /// An input named `name`, optional unless `required`.
    public init(_ name: String, required: Bool = false) {
        self.name = name
        self.required = required
    }
}

/// An output a screen type declares: something the user does that the screen reports.
public struct OutputSpec: Hashable, Sendable {
    /// What an output carries.
    public enum Payload: Hashable, Sendable {
        /// Nothing (`onSelectCity`). Not `.none`, which `Optional` has: `payload == .none` would compare
        /// with nil.
        case nothing
        /// Any value (`onLogin(credentials)`).
        case value
        /// One item of the list held by the named input (`onCitySelected(city)` from input `cities`).
        case choice(from: String)
    }

    /// The output's name (`selectCity`).
    public let name: String
    /// What it carries.
    public var payload: Payload
    /// What of its payload is secret (a password, a PIN): never recorded in ``Application/steps``, so never
    /// written into a snapshot; a snapshot's restore asks for it again.
    public var secret: SecretParts
    /// For an output that chooses an item: the field each item is read by, in menus, messages and graphs
    /// (`label = "subject"` shows a message by its subject); nil: an item's `name` field, else the item.
    public var itemLabel: String?
    /// The name a script sets its handler under: `onSelectCity` for `selectCity` (and for `SelectCity`).
    package let handlerName: String

    /// An output named `name` carrying `payload`, of which `secret` is never recorded; a choice's items are
    /// read by their field `itemLabel`.
    public init(_ name: String, payload: Payload = .nothing, secret: SecretParts = .nothing, itemLabel: String? = nil) {
        self.name = name
        self.payload = payload
        self.secret = secret
        self.itemLabel = itemLabel
        handlerName = "on" + name.prefix(1).uppercased() + name.dropFirst()
    }

    /// An item of the output's list as a person reads it: its ``itemLabel`` field, else its `name` field,
    /// else the item in `notation` (the app's data notation: Lua's in a scripted app).
    package func text(ofItem item: FlowValue, notation: (FlowValue) -> String) -> String {
        if let itemLabel, let label = item[itemLabel] { return label.displayText(otherwise: notation) }
        return item.displayText(otherwise: notation)
    }

    /// The payload as ``Application/steps`` records it: each secret part replaced by `{"$secret": name}`
    /// (the field's name, or the output's for a whole secret payload).
    package func recorded(_ payload: FlowValue?) -> FlowValue? { secret.recorded(payload, wholeName: name) }

    /// Whether the name starts with a lowercase ASCII letter (`selectCity`, not `SelectCity`).
    var startsLowercase: Bool {
        guard let first = name.utf8.first else { return false }
        return first >= UInt8(ascii: "a") && first <= UInt8(ascii: "z")
    }
}

/// When an output is offered (Lua's `when`): a test of the screen as it is now, and where it is written.
/// An output whose condition is false is not one of the screen's actions: tools do not list or try it, and
/// tapping it is an error naming the condition.
public struct OutputCondition {
    /// Where the condition is written (`app.lua:12`), for messages; nil when it has no place in a script.
    public let place: String?
    /// Whether the output is offered on the screen now. It reads; it never changes the app (a condition
    /// that does is an error, and the change is undone).
    public let test: (Screen) throws -> Bool

    /// A condition written at `place`.
    public init(place: String? = nil, _ test: @escaping (Screen) throws -> Bool) {
        self.place = place
        self.test = test
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
    /// The name screens of this type are made by.
    public let name: String
    // Read on every output and input change.
    /// The inputs it declares.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    public private(set) var inputs: [InputSpec]
    /// The outputs it declares.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    public private(set) var outputs: [OutputSpec]
    /// The slot of each output (``outputs``' order): its place among every output name the type has had,
    /// so that a redefinition keeps each name's slot (see ``OutputReceiver``).
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    package private(set) var outputSlots: [Int]
    /// Every output name the type has had, in order of first definition: a name's slot is its index.
    private var slotNames: [String]
    /// Text for the screen's current inputs; when nil, the inputs are listed.
    public private(set) var render: ((Screen) throws -> String)?
    /// The title shown above the rendering (default: the type's name).
    public private(set) var title: String?
    /// Example payloads of its outputs that take a value, by output name: what exploration
    /// (`coordrun explore`) tries for them (`login`: a right and a wrong password).
    public private(set) var examples: [String: [FlowValue]] = [:]
    /// When each of its outputs that is not always there is offered, by output name (``OutputCondition``).
    public private(set) var conditions: [String: OutputCondition] = [:]
    /// How it says it looks, for what draws it as a prototype (``ScreenLook``); nil: drawn from its inputs.
    package private(set) var look: ScreenLook?

    /// A type named `name` with its inputs and outputs, the title shown above its rendering (default: the
    /// name) and the text its screens render to (default: their inputs listed).
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

    /// A type whose inputs are all optional. (With an empty list, `inputs: []`, the other initializer is
    /// meant: both would do the same.)
    @_disfavoredOverload
    public convenience init(
        _ name: String, inputs: [String], outputs: [OutputSpec] = [], title: String? = nil,
        render: ((Screen) throws -> String)? = nil
    ) {
        self.init(name, inputs: inputs.map { InputSpec($0) }, outputs: outputs, title: title, render: render)
    }

    /// Takes another definition's inputs, outputs and rendering, so live screens follow the new definition.
    package func redefine(like other: ScreenType) {
        inputs = other.inputs
        outputs = other.outputs
        outputSlots = outputs.map { slot(named: $0.name) }
        render = other.render
        title = other.title
        examples = other.examples
        conditions = other.conditions
        look = other.look
    }

    /// A type with this one's definition (inputs, outputs, rendering, title, examples, conditions): what a
    /// redefinition undone puts back.
    package func copy() -> ScreenType {
        let copy = ScreenType(name, inputs: inputs, outputs: outputs, title: title, render: render)
        copy.examples = examples
        copy.conditions = conditions
        copy.look = look
        return copy
    }

    /// Sets when its outputs that are not always there are offered (``conditions``). An output it does not
    /// declare is an error.
    public func setConditions(_ conditions: [String: OutputCondition]) throws {
        for name in conditions.keys.sorted() where output(named: name) == nil {
            throw NavigationError(.unknownOutput, "screen \(self.name): a condition for '\(name)', which is not one of its outputs")
        }
        self.conditions = conditions
    }

    /// Sets how it looks (``look``). A field or a list of an input it does not declare, or a control for
    /// an output it does not declare or one that takes no value, is an error.
    package func setLook(_ look: ScreenLook?) throws {
        if let look {
            for input in look.fields.map(\.input) + [look.list?.from].compactMap({ $0 }) where self.input(named: input) == nil {
                throw NavigationError(.unknownInput, "screen \(name): its look shows '\(input)', which is not one of its inputs" +
                    (inputs.isEmpty ? " (it has none)" : " (inputs: \(inputs.map(\.name).joined(separator: ", ")))"))
            }
            for output in look.controls.keys.sorted() {
                guard let spec = self.output(named: output) else {
                    throw NavigationError(.unknownOutput, "screen \(name): its look has a control for '\(output)', which is not one of its outputs")
                }
                guard spec.payload == .value else {
                    throw NavigationError(.badPayload, """
                        screen \(name): its look has a control for '\(output)', which takes no value (a control \
                        enters an output's value)
                        """)
                }
            }
        }
        self.look = look
    }

    /// Sets the example payloads of its outputs that take a value (``examples``). An output it does not
    /// declare, or one that takes no value, is an error.
    public func setExamples(_ examples: [String: [FlowValue]]) throws {
        for name in examples.keys.sorted() {
            guard let output = output(named: name) else {
                throw NavigationError(.unknownOutput, "screen \(self.name): examples for '\(name)', which is not one of its outputs")
            }
            guard output.payload == .value else {
                throw NavigationError(.badPayload, """
                    screen \(self.name): examples for '\(name)', which takes no value (only outputs that take any \
                    value have examples)
                    """)
            }
        }
        self.examples = examples
    }

    /// Checks a screen's inputs against the declaration, as building the screen does: an input it does not
    /// declare, or a required one missing, is an error.
    public func check(inputs: FlowRecord) throws {
        for key in inputs.keys where input(named: key) == nil {
            throw NavigationError(.unknownInput, "screen \(name) has no input '\(key)'" +
                (self.inputs.isEmpty ? " (it has none)" : " (inputs: \(self.inputs.map(\.name).joined(separator: ", ")))"))
        }
        if let missing = self.inputs.first(where: { $0.required && inputs[$0.name] == nil }) {
            throw NavigationError(.missingInput, "screen \(name) needs input '\(missing.name)'")
        }
    }

    /// The input declared under `name`, or nil.
    public func input(named name: String) -> InputSpec? { inputs.first { $0.name == name } }
    /// The output declared under `name`, or nil.
    public func output(named name: String) -> OutputSpec? { outputs.first { $0.name == name } }
}

