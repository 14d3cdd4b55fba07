import ArgumentParser
import CoordinatorTools

/// `--state`: the gateway state an app starts in, one declaration for every command that starts an app
/// (``StartOptions`` holds it, `coordrun routes` has it alone).
package struct StateOption: ParsableArguments {
    @Option(help: "The gateway state to start in (authorization, main, or any state the app declares).")
    package var state: String = "authorization"

    package init() {}
}

/// Where an app starts, one declaration for coordrun, `coordrun explore` and `coordrun serve`: `--state`,
/// `--size-class`, `--idiom`, `--open` (each link in turn), `--restore`, `--storage`.
package struct StartOptions: ParsableArguments {
    @OptionGroup package var gateway: StateOption

    @Option(
        name: .customLong("size-class"),
        help: ArgumentHelp("How wide the window starts: regular (a split's columns side by side) or compact (one stack, as on a phone).", valueName: "width")
    )
    package var sizeClass: String = SizeClass.regular.rawValue

    @Option(help: ArgumentHelp("""
        The device the app runs on: phone (a popover shows as a page sheet) or pad; flow.idiom() says which. The \
        window's width is --size-class's. coordrun explore takes both: each device searched, in one report.
        """, valueName: "device"))
    package var idiom: String = Idiom.phone.rawValue

    @Option(help: ArgumentHelp("""
        Start the app at this link (a route the app declares: docs/Links.md); given again, each next link is opened \
        in turn.
        """, valueName: "url"))
    package var open: [String] = []

    @Option(
        help: ArgumentHelp("Start the app where this snapshot was taken (a file written from snapshot()).", valueName: "file"),
        completion: .file(extensions: ["json"])
    )
    package var restore: String?

    @Option(help: ArgumentHelp("""
        Keep the app's storage (flow.storage) in this JSON file: read before the scripts run, written after each step \
        that changed it (explore only reads it).
        """, valueName: "file"), completion: .file(extensions: ["json"]))
    package var storage: String?

    package init() {}

    package func validate() throws {
        guard SizeClass(rawValue: sizeClass) != nil else {
            throw ValidationError("--size-class is regular or compact, not '\(sizeClass)'")
        }
        guard Idiom(rawValue: idiom) != nil || idiom == "both" else { throw ValidationError("--idiom is phone or pad (both, to explore), not '\(idiom)'") }
    }

    /// The devices they name: one, or both for an exploration (`coordrun explore --idiom both`).
    package var idioms: [Idiom] { idiom == "both" ? Idiom.allCases : [Idiom(rawValue: idiom) ?? .phone] }

    /// Refuses `--idiom both` for a command that runs an app: it runs on one device.
    package func requireOneIdiom() throws {
        if idioms.count > 1 { throw ValidationError("--idiom both is for coordrun explore: an app runs on one device (phone or pad)") }
    }

    /// How wide they say the window starts.
    package var width: SizeClass { SizeClass(rawValue: sizeClass) ?? .regular }

    /// Where they say the app starts.
    package var appStart: AppStart {
        AppStart(state: gateway.state, width: width, idiom: Idiom(rawValue: idiom) ?? .phone, open: open, restore: restore, storage: storage)
    }
}

/// Where an app starts (``StartOptions`` as a run uses them), and the one rule that starts it there.
package struct AppStart: Sendable {
    /// The gateway state to start in.
    package var state = "authorization"
    /// How wide the window starts.
    package var width = SizeClass.regular
    /// The device the app runs on (a snapshot says its own).
    package var idiom = Idiom.phone
    /// The links to open, in turn.
    package var open: [String] = []
    /// The snapshot to restore.
    package var restore: String?
    /// The file that keeps the app's storage.
    package var storage: String?

    package init(state: String = "authorization", width: SizeClass = .regular, idiom: Idiom = .phone, open: [String] = [],
                 restore: String? = nil, storage: String? = nil) {
        (self.state, self.width, self.idiom, self.open, self.restore, self.storage) = (state, width, idiom, open, restore, storage)
    }

    /// Keeps `runtime`'s storage in the file ``storage`` names (before its scripts load).
    package func useStorage(in runtime: ScriptRuntime) throws {
        if let storage { try runtime.useStorage(FileStorage(path: storage)) }
    }

    /// Makes `runtime` run on ``idiom``'s device (before its scripts load: they may ask).
    package func useIdiom(in runtime: ScriptRuntime) {
        runtime.app.setIdiom(idiom)
    }

    /// Starts the app of `runtime` (its scripts loaded) here: where the snapshot was taken (its secrets
    /// asked of `secrets`, when given), else at the first link, else at its start when its scripts declare
    /// an app; then opens the other links in turn. What the restore warns about.
    @discardableResult
    package func start(_ runtime: ScriptRuntime, secrets: ((SnapshotSecret) throws -> FlowValue)? = nil) throws -> RestoreWarning? {
        var links = open[...]
        var warning: RestoreWarning?
        runtime.app.setStartingSizeClass(width) // a snapshot says its own
        if let restore {
            warning = try secrets.map { try runtime.restore(contentsOf: restore, secrets: $0) } ?? runtime.restore(contentsOf: restore)
        } else if let first = links.popFirst() {
            try runtime.open(first)
        } else if runtime.declaresApplication {
            try runtime.start()
        }
        for link in links { try runtime.open(link) }
        return warning
    }
}

/// `--set NAME=VALUE` and `-e CHUNK`: the variant of an app a command runs, set before the app loads.
package struct VariantOptions: ParsableArguments {
    @Option(name: .customLong("set"), help: ArgumentHelp("""
        Set a global before the app loads (a variant: --set VARIANT=b). true, false and numbers are read as such, \
        anything else as a string.
        """, valueName: "name=value"))
    package var sets: [String] = []

    @Option(name: .customShort("e"), help: ArgumentHelp("Run this Lua chunk before the app loads (after --set).", valueName: "chunk"))
    package var chunks: [String] = []

    package init() {}
}
