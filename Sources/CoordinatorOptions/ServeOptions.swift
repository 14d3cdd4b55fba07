import ArgumentParser
import CoordinatorTools

/// `coordrun serve`'s command line, one declaration for both programs: coordrun's `serve` (its help, its
/// shell completion and its validation come from here, whether or not the preview's program is built) and
/// coordrun-serve, the program it runs.
package struct ServeOptions: ParsableArguments {
    /// What the help says of `serve`.
    package static let abstract = """
        Serve a live web preview of the app: the visible screen as a card to click, the tree, the events, time travel \
        and links.
        """
    /// The help's discussion.
    package static let discussion = """
        Every action a page takes is a line of the session's REPL (its history, :record). Exit status: 1 when the \
        app does not load or the port cannot be opened.
        """
    /// The usage line.
    package static let usage = "coordrun serve [<options>] <script>"

    @Argument(help: "The app's main script.", completion: .file(extensions: ["lua"]))
    package var script: String

    @Option(help: ArgumentHelp("The port to listen on (0: any free port; the address is printed).", valueName: "port"))
    package var port: UInt16 = 8080

    @Option(help: ArgumentHelp("""
        The address to listen on: loopback unless told otherwise; on every address, each request carries the token \
        the printed URL holds (whoever has it runs Lua in the preview).
        """, valueName: "address"))
    package var host = "127.0.0.1"

    @Flag(help: "Reload the app's scripts whenever one of them is saved; every open page shows the result.")
    package var watch = false

    /// `--state`, `--open`, `--restore`: where the app starts, as in coordrun.
    @OptionGroup package var start: StartOptions

    @Option(name: .customLong("snapshot-key"), help: ArgumentHelp("""
        Sign the snapshots the page downloads with this key, and restore only those it signed (a page cannot restore \
        a forged one).
        """, valueName: "file"), completion: .file())
    package var snapshotKey: String?

    /// `--timeout`: the most seconds one action may run.
    @OptionGroup package var actionTimeout: ActionTimeout

    @OptionGroup package var limitOptions: LimitOptions

    package init() {}

    package mutating func validate() throws {
        try start.requireOneIdiom()
    }
}
