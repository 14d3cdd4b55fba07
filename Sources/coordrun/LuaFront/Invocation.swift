import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CoordinatorOptions
import CoordinatorTools

/// coordrun's own options, written before the script like `lua`'s (`coordrun --watch -i app.lua`).
struct CoordRunOptions: ParsableArguments {
    @Flag(help: "Reload the app's scripts whenever one of them is saved.")
    var watch = false

    /// `--sandbox`, `--memory-limit`, `--instruction-limit`: the same options as the subcommands'.
    @OptionGroup var limits: LimitOptions

    @Option(help: ArgumentHelp(
        "The most seconds one line may run, and the start (LUA_INIT, -e, -l, the script, the app's start) as a whole.",
        valueName: "seconds"
    ))
    var timeout: Double?

    mutating func validate() throws {
        if let timeout { try validateSeconds(timeout, "--timeout") }
        try start.requireOneIdiom()
        if let history, history < 1 { throw ValidationError("--history must be at least 1 line (it was \(history))") }
    }

    /// `--timeout` as a time limit (nil: none).
    var timeLimit: Double? { timeout.map { max($0, 0.001) } }

    /// `--state`, `--open`, `--restore`: where the app starts, as in `coordrun explore` and `coordrun serve`.
    @OptionGroup var start: StartOptions

    @Option(help: ArgumentHelp("""
        The most session lines time travel keeps (default 10000); past it the oldest go, and :history says where \
        travel starts.
        """, valueName: "lines"))
    var history: Int?

    @Option(
        help: ArgumentHelp("Sign the snapshots taken with the key in this file, and restore only snapshots it signed (docs/Links.md).", valueName: "file"),
        completion: .file()
    )
    var snapshotKey: String?

    /// Each long option (`--timeout`) and whether it takes a value (the next argument, or `--name=value`),
    /// from ArgumentParser's own description of these options (`_dumpHelp()`, the JSON its
    /// `--experimental-dump-help` prints): read when a command line has a long option.
    static let longOptions: [String: Bool] = {
        guard let dump = try? JSONDecoder().decode(ArgumentDump.self, from: Data(_dumpHelp().utf8)) else { return [:] }
        var options: [String: Bool] = [:]
        for argument in dump.command.arguments ?? [] where argument.kind != "positional" {
            for name in argument.names ?? [] where name.kind == "long" { options["--" + name.name] = argument.kind == "option" }
        }
        return options
    }()

    /// The parts of ArgumentParser's description of the options read here (its ToolInfoV0 format).
    private struct ArgumentDump: Decodable {
        struct Command: Decodable { let arguments: [Argument]? }
        struct Argument: Decodable {
            struct Name: Decodable {
                /// `long`, `short` or `longWithSingleDash`.
                let kind: String
                let name: String
            }
            /// `positional`, `option` (takes a value) or `flag`.
            let kind: String
            let names: [Name]?
        }
        let command: Command
    }
}

/// coordrun's own options as a run uses them: ArgumentParser reads them (``CoordRunOptions``) only when
/// the command line has some, else they are the defaults, and starting costs no parsing at all (most runs
/// name none: `coordrun app.lua`, `coordrun -e ...`).
struct RunSettings {
    var watch = false
    var limits = RuntimeLimits()
    /// `--timeout` as a time limit (nil: none).
    var timeLimit: Double?
    /// Where the app starts (`--state`, `--open`, `--restore`).
    var start = AppStart()
    var snapshotKey: String?
    var history: Int?

    /// The defaults.
    init() {}

    /// What the options say.
    init(_ options: CoordRunOptions) {
        watch = options.watch
        limits = options.limits.limits
        timeLimit = options.timeLimit
        start = options.start.appStart
        snapshotKey = options.snapshotKey
        history = options.history
    }

    /// The settings of a command line's long options (`--timeout 2`, ...): parsed and validated by
    /// ArgumentParser when there are any.
    static func parse(_ longOptions: [String]) throws -> RunSettings {
        if longOptions.isEmpty { return RunSettings() }
        // An option that takes one value, given twice, is a mistake ArgumentParser would settle silently
        // by keeping the last: it is refused (--open alone may be repeated: each link opens in turn).
        var seen: Set<Substring> = []
        for option in longOptions where option.hasPrefix("--") {
            let name = option.prefix { $0 != "=" }
            guard CoordRunOptions.longOptions[String(name)] == true, name != "--open" else { continue }
            if !seen.insert(name).inserted { throw ValidationError("\(name) was given more than once: give it once") }
        }
        return RunSettings(try CoordRunOptions.parse(longOptions))
    }
}

/// The command line, read as the stand-alone `lua` reads its own (lua.c's `collectargs`), with coordrun's
/// long options beside `lua`'s: `coordrun [options] [script [args]]`.
///
/// `lua`'s options are positional (`-e` and `-l` run in the order given, the first argument that is not an
/// option is the script and everything after it is the script's), which is why they are read here rather
/// than by ArgumentParser; coordrun's long options are collected on the way and parsed by it.
struct Invocation {
    /// What `-e`, `-l` and `-W` do, in order.
    enum Step: Equatable {
        case execute(String)
        case require(global: String, module: String)
        case warningsOn
    }

    /// The script: a file, or standard input (`-`).
    enum Script: Equatable {
        case file(String)
        case standardInput
    }

    var steps: [Step] = []
    var interactive = false
    var showVersion = false
    /// `--version`: coordrun's version after Lua's.
    var printsCoordrunVersion = false
    var ignoreEnvironment = false
    var help = false
    var script: Script?
    /// Every argument with its index in `arg`: the script at 0, its arguments after, the interpreter and
    /// its options before (negative), as lua.c's `createargtable`.
    var argTable: [(index: Int, value: String)] = []
    /// The script's arguments (`...` in its main chunk): `arg[1]`, `arg[2]`, ...
    var scriptArguments: [String] = []
    /// coordrun's own long options, as given.
    var longOptions: [String] = []

    /// Whether `-e` was given (without a script and without `-i`, nothing else runs then).
    var hasExecute: Bool { steps.contains { if case .execute = $0 { true } else { false } } }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads `argv` (the program's name first).
    init(_ argv: [String]) throws {
        var i = 1
        var first = argv.count // the script's index, or argv.count when there is none
        scan: while true {
            guard i < argv.count else { first = argv.count; break scan } // only options: no script
            let argument = argv[i]
            first = i
            guard argument.hasPrefix("-") else { break scan }
            let option = Array(argument.utf8)
            if argument == "--" { first = i + 1; break scan }
            if argument == "-" { break scan }
            if argument.hasPrefix("--") {
                let name = String(argument.prefix { $0 != "=" })
                if name == "--help" { help = true; i += 1; continue }
                if name == "--version" { printsCoordrunVersion = true; showVersion = true; i += 1; continue }
                guard let takesValue = CoordRunOptions.longOptions[name] else { throw Failure(description: "unrecognized option '\(argument)'") }
                longOptions.append(argument)
                if takesValue, !argument.contains("=") {
                    guard i + 1 < argv.count else { throw Failure(description: "'\(name)' needs argument") }
                    longOptions.append(argv[i + 1])
                    i += 1
                }
                i += 1
                continue
            }
            let rest = String(decoding: option.dropFirst(2), as: UTF8.self)
            switch option[1] {
            case UInt8(ascii: "E"), UInt8(ascii: "W"), UInt8(ascii: "i"), UInt8(ascii: "v"):
                guard option.count == 2 else { throw Failure(description: "unrecognized option '\(argument)'") }
                switch option[1] {
                case UInt8(ascii: "E"): ignoreEnvironment = true
                case UInt8(ascii: "W"): steps.append(.warningsOn)
                case UInt8(ascii: "i"): interactive = true; showVersion = true
                default: showVersion = true
                }
            case UInt8(ascii: "e"), UInt8(ascii: "l"):
                var value = rest
                if rest.isEmpty {
                    i += 1
                    guard i < argv.count, !argv[i].hasPrefix("-") else {
                        throw Failure(description: "'\(argument)' needs argument")
                    }
                    value = argv[i]
                }
                if option[1] == UInt8(ascii: "e") {
                    steps.append(.execute(value))
                } else if let equals = value.firstIndex(of: "=") {
                    steps.append(.require(global: String(value[..<equals]), module: String(value[value.index(after: equals)...])))
                } else {
                    steps.append(.require(global: value, module: value))
                }
            default:
                throw Failure(description: "unrecognized option '\(argument)'")
            }
            i += 1
            first = i
        }
        if first < argv.count {
            script = argv[first] == "-" && argv[first - 1] != "--" ? .standardInput : .file(argv[first])
        }
        let zero = first < argv.count ? first : 0
        argTable = argv.indices.map { ($0 - zero, argv[$0]) }
        scriptArguments = first < argv.count ? Array(argv[(first + 1)...]) : []
    }

    /// lua.c's usage text, as `lua` prints it after a command line it does not understand (coordrun's own
    /// options and subcommands are in `coordrun --help`).
    static func usage(program: String) -> String {
        """
        usage: \(program) [options] [script [args]]
        Available options are:
          -e stat   execute string 'stat'
          -i        enter interactive mode after executing 'script'
          -l mod    require library 'mod' into global 'mod'
          -l g=mod  require library 'mod' into global 'g'
          -v        show version information
          -E        ignore environment variables
          -W        turn warnings on
          --        stop handling options
          -         stop handling options and execute stdin
        """
    }
}
