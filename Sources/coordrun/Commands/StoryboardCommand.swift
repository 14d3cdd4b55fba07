import ArgumentParser
import CoordinatorOptions
import CoordinatorTools

/// `coordrun storyboard SCRIPT -o DIR`: the app as a storyboard anyone can open (``Storyboard``), a static
/// page for a designer, a reviewer, a CI artefact or GitHub Pages.
struct StoryboardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storyboard",
        abstract: "Write the app as a storyboard: one self-contained page with its flow and every screen as it looks.",
        usage: "coordrun storyboard [<options>] <script> -o <dir>",
        discussion: """
            Explores the app as coordrun explore does, then writes DIR/index.html: the flow graph (each screen \
            a link to its cards, each arrow to its transition) and, for every screen type, a card for each look \
            exploration reached it in (at most --max-cards a type): its title, its rendering, its actions and the \
            steps that lead there. No server, no script and nothing fetched: it opens from the file, as a CI \
            artefact or on GitHub Pages. With --coverage, the screens flow tests reached are marked. Exit \
            status: 0 written, 2 the app could not be explored or the page not written.
            """)

    @Argument(help: "The app's main script.", completion: .file(extensions: ["lua"]))
    var script: String

    @Option(
        name: [.short, .customLong("output")],
        help: ArgumentHelp("The folder to write index.html to (made when missing).", valueName: "dir"),
        completion: .directory
    )
    var output: String

    @Option(name: .customLong("max-cards"), help: ArgumentHelp("The most cards a screen type shows.", valueName: "n"))
    var maxCards = 200

    @Option(
        help: ArgumentHelp("Mark the screens flow tests reached (a file from coordrun test --coverage-json).", valueName: "file"),
        completion: .file(extensions: ["json"])
    )
    var coverage: String?

    @Option(help: "The most steps from the start.")
    var depth = 12

    @Option(name: .customLong("max-states"), help: "The most states to find.")
    var maxStates = 10_000

    /// `--timeout`: the most seconds one action may run.
    @OptionGroup var actionTimeout: ActionTimeout

    @OptionGroup var gateway: StateOption

    @OptionGroup var limitOptions: LimitOptions

    mutating func validate() throws {
        if maxCards < 1 { throw ValidationError("--max-cards: at least 1") }
    }

    func run() throws {
        let streams = CoordRun.Streams()
        var tested: Set<String>?
        if let coverage {
            guard let text = Files.readFile(coverage), let value = try? FlowValue(json: text) else {
                streams.notice("--coverage: cannot read \(coverage) (a file from coordrun test --coverage-json)")
                throw ExitCode(2)
            }
            tested = Set((value.listValue ?? [value]).flatMap { $0["screens"]?["reached"]?.listValue?.compactMap(\.stringValue) ?? [] })
        }
        var options = Explorer.Options()
        options.depth = max(depth, 0)
        options.maxStates = max(maxStates, 1)
        options.stepTimeLimit = actionTimeout.limit
        let storyboard: Storyboard
        let progress = ProgressLine()
        do {
            let explorer = try Explorer(options: options, runtime: ExploreCommand.maker(script: script, state: gateway.state, width: .regular,
                                                                                          limits: limitOptions.limits, stepTimeLimit: options.stepTimeLimit))
            progress.follow(explorer, label: "storyboard: ")
            let report = try explorer.run()
            progress.say("storyboard: the screens' cards")
            storyboard = try Storyboard(report: report, explorer: explorer, maxCards: maxCards, tested: tested)
        } catch {
            progress.clear()
            streams.notice("cannot explore \(script): " + ExploreCommand.message(for: error))
            throw ExitCode(2)
        }
        progress.clear()
        guard Files.makeFolders(output), let folder = Files.temporaryFolder("coordrun-storyboard") else {
            streams.notice("cannot make the folder \(output)")
            throw ExitCode(2)
        }
        defer { Files.removeTree(folder) }
        // The picture inside the page: from its <svg> on (the XML declaration and doctype are the file's).
        // One Graphviz cannot draw leaves the page without it, its graph beside the page as DOT.
        let inline: String
        progress.say("storyboard: drawing the flow (Graphviz)")
        let drawn = Graphviz.svg({ storyboard.dot(clustered: $0) })
        progress.clear()
        switch drawn {
        case .success(let svg):
            inline = svg.firstRange(of: "<svg").map { String(svg[$0.lowerBound...]) } ?? svg
        case .failure(let why):
            let source = output + "/flow.dot"
            if let failure = Files.writing(storyboard.dot, to: source) {
                streams.notice(failure)
                throw ExitCode(2)
            }
            streams.notice("the flow could not be drawn (\(why)); its graph is in \(source)")
            inline = Storyboard.undrawnFlow(why.description)
        }
        let page = output + "/index.html"
        let title = script.split(separator: "/").last.map(String.init) ?? script
        if let failure = Files.writing(storyboard.html(title: title, svg: inline), to: page) {
            streams.notice(failure)
            throw ExitCode(2)
        }
        let count = storyboard.cards.reduce(0) { $0 + $1.cards.count }
        Terminal.writeOut("storyboard: \(page) (\(storyboard.cards.count) screen types, \(count) cards, \(storyboard.graph.edges.count) transitions)\n")
    }
}
