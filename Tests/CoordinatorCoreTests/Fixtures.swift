import CoordinatorCore

/// The sources' app in Swift: login → user edit → city pick.
enum SourceApp {
    static let regions: FlowValue = [
        ["name": "Ulyanovsk Oblast", "cities": [["name": "Ulyanovsk"], ["name": "Dimitrovgrad"]]],
        ["name": "Samara Oblast", "cities": [["name": "Samara"], ["name": "Tolyatti"]]],
        ["name": "Republic of Tatarstan", "cities": [["name": "Kazan"], ["name": "Yelabuga"]]],
    ]
    static let federal: FlowValue = [["name": "Moscow"], ["name": "Saint Petersburg"]]

    static func make(state: AppState = .authorization) -> (Application, ApplicationCoordinator) {
        let app = Application(state: state)
        app.catalog.register(ScreenType("Login", outputs: [OutputSpec("login", payload: .value)]))
        app.catalog.register(ScreenType("UserEdit", inputs: ["user"], outputs: [OutputSpec("selectCity"), OutputSpec("logout")]) { s in
            "User: \(s["user"]?["name"]?.displayText ?? "")\nCity: \(s["user"]?["city"]?.displayText ?? "")"
        })
        app.catalog.register(ScreenType("Regions", inputs: ["federal", "regions", "counts"], outputs: [
            OutputSpec("citySelected", payload: .choice(from: "federal")),
            OutputSpec("regionSelected", payload: .choice(from: "regions")),
        ]))
        app.catalog.register(ScreenType("Cities", inputs: [InputSpec("cities", required: true)], outputs: [
            OutputSpec("citySelected", payload: .choice(from: "cities"))
        ]))
        let root = ApplicationCoordinator(name: "App")
        root.flows[.authorization] = { LoginCoordinator(name: "Login") }
        root.flows[.main] = { MainCoordinator(name: "Main") }
        return (app, root)
    }
}

final class LoginCoordinator: Coordinator {
    override func start(_ args: FlowValue?) throws {
        let screen = try push("Login")
        try screen.on("login") { [unowned self] credentials in
            guard credentials?["password"]?.stringValue == "secret" else {
                try self.alert(title: "Login failed", message: "Wrong password")
                return
            }
            self.app?.gateway.state = .main
            try self.finish(["name": credentials?["name"] ?? "?"])
        }
    }
}

final class MainCoordinator: Coordinator {
    var user: FlowValue = [:]

    override func start(_ args: FlowValue?) throws {
        user = ["name": "Ann", "city": ["name": "Moscow"]]
        let screen = try push("UserEdit", inputs: ["user": user])
        try screen.on("selectCity") { [unowned self] _ in
            let picker = CityPickerCoordinator(name: "CityPicker")
            picker.onFinish = { [unowned self] city, _ in
                guard let city else { return }
                self.user = self.user.with("city", city)
                try self.app?.update("user", to: self.user)
            }
            try self.run(picker)
        }
        try screen.on("logout") { [unowned self] _ in
            self.app?.gateway.state = .authorization
            try self.finish()
        }
    }
}

final class CityPickerCoordinator: Coordinator {
    override func start(_ args: FlowValue?) throws {
        let regions = try push("Regions", inputs: ["federal": SourceApp.federal, "regions": SourceApp.regions])
        try regions.on("citySelected") { [unowned self] city in try self.finish(city) }
        try regions.on("regionSelected") { [unowned self] region in
            let cities = try self.push("Cities", inputs: ["cities": region?["cities"] ?? []])
            try cities.on("citySelected") { [unowned self] city in try self.finish(city) }
        }
    }
}

/// A coordinator whose start runs a closure (for small scenarios in tests).
final class ScriptCoordinator: Coordinator {
    let body: (ScriptCoordinator) throws -> Void
    init(_ name: String, _ body: @escaping (ScriptCoordinator) throws -> Void = { _ in }) {
        self.body = body
        super.init(name: name)
    }
    override func start(_ args: FlowValue?) throws { try body(self) }
}

extension Application {
    var names: [String] { window.visibleStack.map(\.name) }
    var treeNames: [String] { root?.subtree.map(\.name) ?? [] }

    /// An app with screen types A...E (input `value`, outputs `next` and `done`) and a started root.
    static func simple() throws -> (Application, ScriptCoordinator) {
        let app = Application()
        for name in ["A", "B", "C", "D", "E"] {
            app.catalog.register(ScreenType(name, inputs: ["value"], outputs: [OutputSpec("next"), OutputSpec("done", payload: .value)]))
        }
        let root = ScriptCoordinator("Root")
        try app.start(root)
        return (app, root)
    }
}

func navigationError(_ body: () throws -> Void) -> NavigationError? {
    do { try body() } catch let error as NavigationError { return error } catch { return nil }
    return nil
}

/// Everything observable about an app's navigation state, for "nothing changed" checks.
func snapshot(_ app: Application) -> String {
    var lines = [app.window.hierarchyDescription, "gateway: \(app.gateway.state)"]
    func tree(_ c: Coordinator, _ indent: String) {
        lines.append(indent + "\(c.info) \(c.status.rawValue) screens: \(c.screens.map(\.info))")
        for child in c.children { tree(child, indent + "  ") }
    }
    if let root = app.root { tree(root, "") }
    for screen in app.window.allScreens {
        lines.append("\(screen.info) \(screen.inputs.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })")
    }
    return lines.joined(separator: "\n")
}
