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
    // Read on every screen made (a factory runs on a copy of the table's entry).
    /// Every registered type, by name.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    public private(set) var types: [String: ScreenType] = [:]
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    var factories: [String: (FlowRecord) throws -> String] = [:]
    let context: AppContext

    init(context: AppContext) { self.context = context }

    /// Every screen type name, sorted.
    public var names: [String] { types.keys.sorted() }
    /// The factories' names, sorted (each builds one of its variants' types).
    package var factoryNames: [String] { factories.keys.sorted() }

    /// Adds a screen type; a type of the same name is redefined in place (its live screens follow). Inside an
    /// operation that fails, both are undone.
    @discardableResult
    public func register(_ type: ScreenType) -> ScreenType {
        if let existing = types[type.name] {
            let saved = existing.copy()
            context.journal.recordAlways(.custom(born: 0) { existing.redefine(like: saved) })
            existing.redefine(like: type)
            return existing
        }
        context.journal.recordAlways(.custom(born: 0) { [saved = types] in self.types = saved })
        types[type.name] = type
        return type
    }

    /// Adds a factory: `make(name, ...)` builds the type the closure chooses for those inputs.
    public func factory(_ name: String, choose: @escaping (FlowRecord) throws -> String) {
        context.journal.recordAlways(.custom(born: 0) { [saved = factories] in self.factories = saved })
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
        try type.check(inputs: inputs)
        guard context.isAlive else { throw NavigationError(.notRunning, "the app is gone") }
        return Screen(context: context, type: type, inputs: inputs)
    }
}
