import Testing
import TestSupport
import CoordinatorTools

/// Editor annotations come from the runtime: every name it exposes is annotated and every annotated name
/// exists (a name the runtime gains without annotations, or loses, fails here), and an app's screens and
/// coordinators become classes.
@Suite struct AnnotationsTests {
    @Test func everyNameTheRuntimeExposesIsAnnotatedAndNoOther() throws {
        let runtime = try ScriptRuntime(driverFunctions: true)
        let exposed = try Annotations.exposed(by: runtime)
        let annotated = Annotations.annotated
        #expect(Set(exposed.keys) == Set(annotated.keys))
        for (kind, names) in exposed {
            let documented = annotated[kind] ?? []
            #expect(names.subtracting(documented).isEmpty, "\(kind): exposed, not annotated: \(names.subtracting(documented).sorted())")
            #expect(documented.subtracting(names).isEmpty, "\(kind): annotated, not exposed: \(documented.subtracting(names).sorted())")
        }
        #expect(exposed["expect"]?.contains("show") == true && exposed["coordinator"]?.contains("update") == true)
    }

    @Test func anAppsScreensAndCoordinatorsBecomeClasses() throws {
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: repositoryRoot + "/scripts/app.lua")
        let files = try Annotations.files(for: runtime, app: true)
        #expect(files.map(\.name) == ["coordinator.lua", "driver.lua", "app.lua"])
        let app = try #require(files.last?.text)
        #expect(app.contains("---@class Regions: coordinator.Screen\n---@field federal? any\n---@field regions? any\n---@field onCitySelected? fun(payload: any)\n---@field onRegionSelected? fun(payload: any)\n"), "\(app)")
        // A coordinator class: its methods, and the fields its methods set on self (so reading `self.usr` is a typo).
        #expect(app.contains("---@class CityPicker: coordinator.Coordinator\n---@field start fun(self: CityPicker, ...: any): any\n"), "\(app)")
        #expect(app.contains("---@class Main: coordinator.Coordinator\n---@field start fun(self: Main, ...: any): any\n---@field user any\n"), "\(app)")
        let library = try #require(files.first?.text)
        #expect(library.hasPrefix("---@meta coordinator\n") && library.contains("function Coordinator:push(name, inputs, options) end"))
        // push gives the screen type it names (a template generic: an unknown name is flagged).
        #expect(library.contains("---@generic S: coordinator.Screen\n---@param name `S`"), "\(library)")
    }
}
