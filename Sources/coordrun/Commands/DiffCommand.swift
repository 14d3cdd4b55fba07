import ArgumentParser
import CoordinatorOptions
import CoordinatorTools

/// `coordrun diff OLD NEW [-- SCRIPT]`: explores two versions of an app and says what the change does to
/// its flow (``FlowDiff``), for a review: screen types, outputs, the flow graph's edges, the screens
/// reached, routes and findings added and removed. Each version is a script, a folder, or a git revision.
struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Explore two versions of an app and show what the change does to its flow.",
        usage: """
            coordrun diff [<options>] <old-script> <new-script>
              coordrun diff [<options>] <old-folder> <new-folder> [-- <script>]
              coordrun diff [<options>] <old-revision> <new-revision> -- <script>
            """,
        discussion: """
            Each version is a script, a folder (the script after -- within it; default app.lua, else \
            scripts/app.lua), or a git revision of the repository here (main, HEAD, a commit; the script \
            after -- is the path from here, as in git diff main HEAD -- app.lua). Both are explored as \
            coordrun explore does, and compared by what a reviewer reads: screen types, outputs, the flow \
            graph's edges by their screens and labels, the screens reached, routes and findings; never by \
            state identities, which change with any edit of the code. When either search stops short of \
            every reachable state, the report says differences past it are unknown. Exit status: 0 no \
            differences, 1 differences, 2 either version could not be explored.
            """)

    @Argument(help: ArgumentHelp("The version before the change: a script, a folder, or a git revision.", valueName: "old"), completion: .file())
    var old: String

    @Argument(help: ArgumentHelp("The version after it.", valueName: "new"), completion: .file())
    var new: String

    @Argument(
        parsing: .postTerminator,
        help: ArgumentHelp("After --: the app's main script within each folder or revision.", valueName: "script"),
        completion: .file(extensions: ["lua"])
    )
    var script: [String] = []

    @Option(help: "The most steps from the start.")
    var depth = 12

    @Option(name: .customLong("max-states"), help: "The most states to find in each version.")
    var maxStates = 10_000

    @Option(name: .customLong("time-limit"), help: ArgumentHelp("The most seconds each version's search may take (0: no limit).", valueName: "seconds"))
    var timeLimit: Double = 0

    /// `--timeout`: the most seconds one action may run.
    @OptionGroup var actionTimeout: ActionTimeout

    @OptionGroup var gateway: StateOption

    @Flag(help: "Print the differences as JSON.")
    var json = false

    @Flag(help: "Print the differences as Markdown (for a pull request's comment or a job summary).")
    var markdown = false

    @Option(help: ArgumentHelp("""
        Draw both flows as one graph, what the change adds in green and what it removes in red (rendered by \
        Graphviz's dot).
        """, valueName: "file"), completion: .file())
    var svg: String?

    @OptionGroup var limitOptions: LimitOptions

    mutating func validate() throws {
        if json && markdown { throw ValidationError("--json and --markdown: choose one") }
        if script.count > 1 {
            throw ValidationError("after --: one script, and the options before -- (got \(script.joined(separator: " ")))")
        }
        try validateSeconds(timeLimit, "--time-limit")
    }

    func run() throws {
        let streams = CoordRun.Streams()
        var folders: [String] = []
        defer { folders.forEach(Files.removeTree) }
        var sides: [(name: String, side: FlowDiff.Side)] = []
        let progress = ProgressLine()
        for version in [old, new] {
            let located: Version
            do { located = try locate(version) } catch { streams.notice("\(error)"); throw ExitCode(2) }
            if let folder = located.folder { folders.append(folder) }
            do {
                sides.append((located.name, try explore(located.script, label: "diff: \(located.name): ")))
            } catch {
                progress.clear()
                streams.notice("cannot explore \(located.name): " + ExploreCommand.message(for: error))
                throw ExitCode(2)
            }
        }
        progress.clear()
        let diff = FlowDiff(old: sides[0].side, new: sides[1].side)
        let (oldName, newName) = (sides[0].name, sides[1].name)
        if json {
            Terminal.writeOut(diff.json(old: oldName, new: newName).prettyJSON + "\n")
        } else if markdown {
            Terminal.writeOut(diff.markdown(old: oldName, new: newName))
        } else {
            Terminal.writeOut(TextStyle.inert(diff.text(old: oldName, new: newName)))
        }
        if let svg {
            // As `explore --graph`: a file that cannot be written fails the command; a picture Graphviz cannot
            // draw does not (its graph is written beside, as DOT).
            if let failure = Files.writing("", to: svg) {
                streams.notice("--svg: \(failure)")
                throw ExitCode(2)
            }
            progress.say("diff: drawing the change (Graphviz)")
            let drawn = Graphviz.draw({ _ in diff.dot }, format: "svg", to: svg)
            progress.clear()
            if let why = drawn {
                Files.remove(svg)
                let source = (svg.hasSuffix(".svg") ? String(svg.dropLast(4)) : svg) + ".dot"
                if let failure = Files.writing(diff.dot, to: source) {
                    streams.notice("--svg: \(failure)")
                    throw ExitCode(2)
                }
                streams.notice("--svg: \(svg) could not be drawn (\(why)); the graph is in \(source)")
            }
        }
        if !diff.isEmpty { throw ExitCode.failure }
    }

    /// A version found: the script to explore, how the report names it, and the folder made for it (a
    /// revision's files), removed at the end.
    struct Version {
        let script: String, name: String, folder: String?
    }

    struct VersionError: Error, CustomStringConvertible {
        let description: String
    }

    /// Where `version` (a script, a folder, a git revision) has the app's script.
    func locate(_ version: String) throws -> Version {
        let inside = script.first
        if Files.isFolder(version) {
            let candidates = inside.map { [$0] } ?? ["app.lua", "scripts/app.lua"]
            guard let found = candidates.map({ version + "/" + $0 }).first(where: Files.exists) else {
                throw VersionError(description: "\(version) has no \(candidates.joined(separator: " or ")) (name the script after --)")
            }
            return Version(script: found, name: found, folder: nil)
        }
        if Files.exists(version) {
            guard inside == nil else { throw VersionError(description: "\(version) is a script: the script after -- names one within folders or revisions") }
            return Version(script: version, name: version, folder: nil)
        }
        guard let inside else {
            throw VersionError(description: """
                \(version) is no script or folder here; as a git revision, name the script after -- (coordrun diff \
                main HEAD -- app.lua)
                """)
        }
        let quoted = Processes.shellQuoted(version)
        guard Processes.output(of: "git rev-parse --verify --quiet \(Processes.shellQuoted(version + "^{commit}")) 2>/dev/null").status == 0 else {
            throw VersionError(description: "\(version) is no script, folder or git revision here")
        }
        func line(_ command: String) -> String { String(Processes.output(of: command + " 2>/dev/null").text.prefix { $0 != "\n" }) }
        let top = line("git rev-parse --show-toplevel"), prefix = line("git rev-parse --show-prefix")
        guard !top.isEmpty, let folder = Files.temporaryFolder("coordrun-diff") else {
            throw VersionError(description: "cannot take \(version)'s files out of git")
        }
        guard Processes.run("""
            git -C \(Processes.shellQuoted(top)) archive --format=tar \(quoted) 2>/dev/null | tar -x -C \
            \(Processes.shellQuoted(folder)) 2>/dev/null
            """, input: "") == 0 else {
            Files.removeTree(folder)
            throw VersionError(description: "cannot take \(version)'s files out of git (git archive)")
        }
        let path = folder + "/" + prefix + inside
        guard Files.exists(path) else {
            Files.removeTree(folder)
            throw VersionError(description: "\(version) has no \(prefix + inside)")
        }
        return Version(script: path, name: version + ":" + inside, folder: folder)
    }

    /// What exploring `script` finds, as the diff compares it; on a terminal, its progress after `label`.
    func explore(_ script: String, label: String) throws -> FlowDiff.Side {
        var options = Explorer.Options()
        options.depth = max(depth, 0)
        options.maxStates = max(maxStates, 1)
        options.stepTimeLimit = actionTimeout.limit
        options.timeLimit = timeLimit > 0 ? timeLimit : nil
        let maker = ExploreCommand.maker(script: script, state: gateway.state, width: .regular, limits: limitOptions.limits,
                                         stepTimeLimit: options.stepTimeLimit)
        let explorer = try Explorer(options: options, runtime: maker)
        ProgressLine().follow(explorer, label: label)
        let report = try explorer.run()
        return FlowDiff.Side(report: report, catalog: explorer.runtime.app.catalog, routes: explorer.runtime.declaredRoutes, script: script)
    }
}
