import ArgumentParser
import CoordinatorOptions
import CoordinatorTools

/// `coordrun routes SCRIPT`: lists the routes the script declares and opens each with its example
/// parameters (docs/Links.md); exits 1 when one fails. A deep-link check for CI.
struct RoutesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "routes",
        abstract: "List the app's routes and open each with the example parameters it declares.",
        usage: "coordrun routes [<options>] <script>",
        discussion: """
            Each route opens as in a fresh app; a route that requires a gateway state opens twice: in that state, and \
            held in the start state until that state's flow runs. Prints a line per opening (where it led, or why it \
            failed), then `N routes, N failed`. Exit status: 0 every route opened, 1 a route failed, 2 the check \
            itself failed (the script does not load).
            """)

    @Argument(help: "The app's main script.", completion: .file(extensions: ["lua"]))
    var script: String

    /// `--state`, as every command that starts an app has it.
    @OptionGroup var gateway: StateOption

    @Option(help: ArgumentHelp("The most seconds one link may take to open (0: no limit).", valueName: "seconds"))
    var timeout: Double = 5

    @OptionGroup var limitOptions: LimitOptions

    mutating func validate() throws {
        try validateSeconds(timeout, "--timeout")
    }

    func run() throws {
        let streams = CoordRun.Streams()
        let results: [RouteCheck.Result]
        do {
            results = try RouteCheck.run(script: script, state: gateway.state, timeLimit: timeout > 0 ? timeout : nil, limits: limitOptions.limits)
        } catch {
            streams.notice(REPL.message(for: error))
            throw ExitCode(2)
        }
        if results.isEmpty { Terminal.writeOut("\(script) declares no routes\n") }
        for result in results {
            let link = result.url.map { " (" + $0 + ")" } ?? "", order = result.order.map { ", " + $0 } ?? ""
            if let failure = result.failure {
                Terminal.writeError(streams.err.error(TextStyle.inert("✘ \(result.route.pattern)\(link)\(order), \(result.route.location): \(failure)")) + "\n")
            } else {
                Terminal.writeOut(TextStyle.inert("✔ \(result.route.pattern)\(link)\(order) → \(result.stack.joined(separator: " > "))") + "\n")
            }
        }
        let failed = Set(results.filter { $0.failure != nil }.map(\.route.pattern)).count
        Terminal.writeOut("\(Set(results.map(\.route.pattern)).count) routes, \(failed) failed\n")
        if failed > 0 { throw ExitCode.failure }
    }
}
