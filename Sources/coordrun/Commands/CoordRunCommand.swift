import ArgumentParser
import CoordinatorOptions
import CoordinatorTools

/// The command tree: `coordrun` and its subcommands (`test`, `routes`, `explore`). `coordrun`'s own
/// arguments are lua.c's command line (``Invocation``): the tree takes a command line only when it starts
/// with a subcommand, asks for help or for completion scripts, or is `--version` alone, so that a script and
/// its arguments always reach the script as they do with `lua`.
struct CoordRunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coordrun",
        abstract: "Run, walk, test and explore coordinator flows written in Lua 5.4: a drop-in for lua.",
        usage: """
            coordrun [options] [script [args]]
              coordrun <subcommand> [<arguments>]
            """,
        discussion: """
            Without a subcommand, coordrun reads its command line as lua 5.4 does: lua's options first, in \
            order (-e stat runs 'stat', -l mod and -l g=mod require a module into a global, -i enters the \
            REPL after the script, -v shows the version, -E ignores LUA_INIT and LUA_PATH, -W turns warnings \
            on, -- stops handling options, - runs standard input), then coordrun's own options below, then \
            the script and its arguments (arg, and the script's ...).

            A script that declares an app (flow.app) is walked: coordrun shows the visible screen, then reads \
            lines: NUMBER triggers that action, back goes back, OUTPUT [PAYLOAD] emits an output, :COMMAND \
            (:help lists them), anything else is Lua. With -i, a Lua REPL over the app instead. A script that \
            declares no app runs as plain Lua, as with lua.
            """,
        version: "coordrun \(CoordRun.version)\n\(LuaState.copyright)",
        subcommands: [
            TestCommand.self,
            RoutesCommand.self,
            ExploreCommand.self,
            DiffCommand.self,
            StoryboardCommand.self,
            ServeCommand.self,
            AnnotationsCommand.self,
            CheckCommand.self,
            InitCommand.self
        ]
    )

    /// coordrun's own options, listed in the help (lua's command line reads them: ``Invocation``).
    @OptionGroup var options: CoordRunOptions

    /// The first arguments that belong to the tree rather than to lua's command line.
    static let treeArguments: Set<String> = [
        "test",
        "routes",
        "explore",
        "diff",
        "storyboard",
        "serve",
        "annotations",
        "check",
        "init",
        "help",
        "--help",
        "-h",
        "--experimental-dump-help"
    ]

    /// Whether the command line (without the program's name) is the tree's.
    static func takes(_ arguments: [String]) -> Bool {
        guard let first = arguments.first else { return false }
        return treeArguments.contains(first) || first.hasPrefix("--generate-completion-script")
            || (arguments == ["--version"])
    }

    /// The subcommand called `name` (`test`, `routes`, `explore`), which ``CoordRun`` runs on its own.
    static func subcommand(named name: String) -> ParsableCommand.Type? {
        configuration.subcommands.first { $0.configuration.commandName == name }
    }

    /// Reached only when the tree parsed lua's command line itself (it does not: see ``takes(_:)``).
    func run() throws {
        Processes.exit(CoordRun.run([CoordRun.program] + CommandLine.arguments.dropFirst()))
    }
}

/// `coordrun serve SCRIPT`: the web preview, which is its own program (`coordrun-serve`, beside coordrun: its
/// HTTP server links Foundation, which coordrun does not, so that coordrun starts as fast as lua). coordrun
/// reads the command line as the program does (``ServeOptions``), then runs it with the same arguments
/// (docs/Preview.md).
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: ServeOptions.abstract, usage: ServeOptions.usage, discussion: ServeOptions.discussion)

    /// The preview's command line, declared here too: its help, completion and mistakes come from coordrun,
    /// built or not the preview's program.
    @OptionGroup var options: ServeOptions

    /// Runs the preview's program with the command line as given (after `serve`).
    func run() throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let given = arguments.firstIndex(of: "serve").map { Array(arguments[($0 + 1)...]) } ?? []
        Processes.runSibling("coordrun-serve", given)
    }
}
