import CoordinatorCore

/// A screen type written in Swift, used by the Lua flow by name (`self:push("Profile", ...)`). Each runtime
/// registers its own (`runtime.app.catalog.register(profileScreenType())`).
func profileScreenType() -> ScreenType {
    ScreenType(
        "Profile",
        inputs: [InputSpec("name", required: true), InputSpec("status")],
        outputs: [OutputSpec("save", payload: .value), OutputSpec("sync"), OutputSpec("logout")],
        title: "Profile",
        render: { screen in
            let name = screen["name"]?.stringValue ?? "?"
            let status = screen["status"]?.stringValue ?? ""
            return status.isEmpty ? "Name: \(name)" : "Name: \(name) (\(status))"
        }
    )
}
