import Testing
import CoordinatorCore

@Suite struct ScenarioTests {
    @Test func loginThenPickACityThroughARegion() throws {
        let (app, root) = SourceApp.make()
        var events: [NavigationEvent] = []
        app.observe { events.append($0) }
        try app.start(root)
        #expect(app.names == ["Login"])

        try app.tap("login", payload: ["name": "Ann", "password": "nope"])
        #expect(app.names == ["Login", "Alert"])
        #expect(app.window.visibleScreen?["message"] == "Wrong password")
        #expect(navigationError { try app.back() }?.code == .alertNeedsAction)
        try app.tap("OK")
        #expect(app.names == ["Login"])

        try app.tap("login", payload: ["name": "Ann", "password": "secret"])
        #expect(app.gateway.state == .main)
        #expect(app.names == ["UserEdit"])
        #expect(app.treeNames == ["App", "Main"])

        try app.tap("selectCity")
        #expect(app.names == ["UserEdit", "Regions"])
        try app.tap("regionSelected", payload: SourceApp.regions[0])
        #expect(app.names == ["UserEdit", "Regions", "Cities"])
        try app.tap("citySelected", payload: ["name": "Dimitrovgrad"])
        #expect(app.names == ["UserEdit"])
        #expect(app.window.visibleScreen?["user"]?["city"] == ["name": "Dimitrovgrad"])
        #expect(try app.window.visibleScreen?.render() == "User: Ann\nCity: Dimitrovgrad")
        #expect(app.treeNames == ["App", "Main"])
        #expect(events.contains { if case .finished(let c, .finished, ["name": "Dimitrovgrad"]) = $0 { c.name == "CityPicker" } else { false } })
        #expect(events.contains { if case .gatewayChanged(from: .authorization, to: .main) = $0 { true } else { false } })
    }

    @Test func systemBackFromRegionsLeavesNoPickerAlive() throws {
        let (app, root) = SourceApp.make(state: .main)
        try app.start(root)
        let before = app.window.visibleScreen?["user"]
        try app.tap("selectCity")
        let picker = try #require(app.root?.children.first?.children.first)
        var reason: FinishReason?
        let oldHandler = picker.onFinish
        picker.onFinish = { result, why in reason = why; try oldHandler?(result, why) }
        try app.tap("regionSelected", payload: SourceApp.regions[1])
        try app.back()
        #expect(app.names == ["UserEdit", "Regions"])
        #expect(picker.isRunning)
        try app.back()
        #expect(app.names == ["UserEdit"])
        #expect(picker.status == .finished)
        #expect(picker.parent == nil)
        #expect(reason == .systemBack)
        #expect(app.treeNames == ["App", "Main"])
        #expect(app.window.visibleScreen?["user"] == before)
    }

    @Test func logoutReturnsToLoginWithNoMainFlowLeft() throws {
        let (app, root) = SourceApp.make(state: .main)
        try app.start(root)
        try app.tap("selectCity")
        try app.tap("regionSelected", payload: SourceApp.regions[2])
        try app.back()
        try app.back()
        try app.tap("logout")
        #expect(app.gateway.state == .authorization)
        #expect(app.names == ["Login"])
        #expect(app.treeNames == ["App", "Login"])
    }
}
