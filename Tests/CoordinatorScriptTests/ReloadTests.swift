import Testing
import Foundation
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua

/// Reload keeps the live app and gives it the new code.
@Suite struct ReloadTests {
    let folder: TemporaryDirectory
    let script: String
    let original: String
    let runtime: ScriptRuntime

    /// The source app, copied to a temporary folder, three screens deep: UserEdit > Regions > Cities.
    init() throws {
        folder = try TemporaryDirectory()
        original = try #require(readFile(repositoryRoot + "/scripts/app.lua"))
        script = try folder.write("app.lua", original)
        try folder.write("cities.lua", try #require(readFile(repositoryRoot + "/scripts/cities.lua")))
        runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: script)
        try runtime.start()
        try runtime.run("tap('login', { name = 'Ann', password = 'secret' }) tap('selectCity') tap('regionSelected', top().regions[1])")
    }

    func edit(_ old: String, _ new: String, in text: String? = nil) throws {
        let base = text ?? original
        #expect(base.contains(old), "the script has \(old)")
        try folder.write("app.lua", base.replacingOccurrences(of: old, with: new))
    }

    var picture: String {
        runtime.app.window.allScreens.map { "\($0.id):\($0.name):\($0.inputs)" }.joined(separator: "\n")
            + "\n" + runtime.app.window.hierarchyDescription
    }

    @Test func aChangedHandlerAnswersTheNextTapAndNothingElseMoves() throws {
        let before = picture
        let tree = try runtime.run("return tree()").map { try FlowValue(lua: $0) }
        try edit("list.onCitySelected = function(city) self:finish(city) end",
                 "list.onCitySelected = function(city) self:finish { name = city.name .. ' (new code)' } end")
        let report = try runtime.reload()
        #expect(report.updatedHandlers == 1) // the inner handler
        #expect(report.movedHandlers == 1) // the outer one whose text holds it: rebuilt, its own code unchanged
        #expect(report.unchangedHandlers == 4) // onSelectCity, onLogout, Regions' onCitySelected, the picker's onFinish
        #expect(report.keptHandlers.isEmpty)
        #expect(report.files.map { $0.split(separator: "/").last.map(String.init) ?? "" } == ["app.lua", "cities.lua"])
        #expect(picture == before)
        #expect(try runtime.run("return tree()").map { try FlowValue(lua: $0) } == tree)
        #expect(try runtime.run("return stack()")[0].tableValue?.decode([String].self) == ["UserEdit", "Regions", "Cities"])
        try runtime.run("tap('citySelected', top().cities[2])")
        #expect(try runtime.run("return top().name, top().user.city.name") == ["UserEdit", "Dimitrovgrad (new code)"])
        // The outer handler, rebuilt around the same `self`, still updates the same user.
        #expect(try runtime.run("return top().user.name") == ["Ann"])
    }

    @Test func classMethodsAndScreenTypesChangeForLiveInstances() throws {
        try edit("""
              outputs = { citySelected = { from = "cities" } },
              render = function(screen) return "Cities of " .. screen.region end,
            """, """
              inputs = { "region", "cities", "note" },
              outputs = { "refresh", citySelected = { from = "cities" } },
              render = function(screen) return "Towns of " .. screen.region end,
            """)
        try runtime.reload()
        let screen = try #require(runtime.app.window.visibleScreen)
        #expect(try screen.render() == "Towns of Ulyanovsk Oblast")
        #expect(screen.outputs.map(\.name) == ["refresh", "citySelected"])
        try runtime.run("top().note = 'set on a live screen'")
        #expect(screen["note"] == "set on a live screen")
        #expect(screen["region"] == "Ulyanovsk Oblast")
    }

    @Test func aFailedReloadChangesNothing() throws {
        let before = picture
        try runtime.run("marker = 1")
        // The script redefines a screen type, a method and a global, then fails.
        try edit("return \"Cities of \" .. screen.region", "return \"BROKEN \" .. screen.region")
        let edited = try #require(readFile(script))
        try folder.write("app.lua", edited.replacingOccurrences(of: "local Main = flow.coordinator \"Main\"",
                                                                with: "marker = 2\nlocal Main = flow.coordinator \"Main\"\nerror('half way')"))
        let error = try #require(luaError { try runtime.reload() })
        #expect(error.message.hasPrefix("reload failed, nothing changed: "))
        #expect(error.message.contains("app.lua:") && error.message.hasSuffix("half way"))
        #expect(picture == before)
        #expect(try runtime.app.window.visibleScreen?.render() == "Cities of Ulyanovsk Oblast")
        #expect(try runtime.run("return marker") == [1])
        // A syntax error, too.
        try folder.write("app.lua", original + "\nfunction (")
        #expect(luaError { try runtime.reload() }?.kind == .syntax)
        #expect(picture == before)
        // The app still works, with the old code.
        try runtime.run("tap('citySelected', top().cities[2])")
        #expect(try runtime.run("return top().user.city.name") == ["Dimitrovgrad"])
    }

    @Test func aHandlerThatNeedsAVariableItNeverHadKeepsItsOldCodeAndSaysWhy() throws {
        try edit("""
              regions.onRegionSelected = function(region)
                local list = self:push("Cities", { region = region.name, cities = region.cities })
                list.onCitySelected = function(city) self:finish(city) end
            """, """
              local counter = 0
              regions.onRegionSelected = function(region)
                local list = self:push("Cities", { region = region.name, cities = region.cities })
                list.onCitySelected = function(city) counter = counter + 1; self:finish(city) end
            """)
        let report = try runtime.reload()
        #expect(report.keptHandlers.count == 2)
        #expect(report.keptHandlers.allSatisfy { $0.contains("'counter'") })
        #expect(report.description.contains("2 not applied"))
        try runtime.run("tap('citySelected', top().cities[2])")
        #expect(try runtime.run("return top().user.city.name") == ["Dimitrovgrad"])
    }
}

