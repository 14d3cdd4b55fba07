import ArgumentParser
import CoordinatorOptions
import CoordinatorTools

/// `coordrun annotations [SCRIPT] [-o DIR]`: LuaLS/EmmyLua annotations of the coordinator API, and of an app's
/// own screens and coordinators, for editors; and luacheck's configuration (docs/Editors.md).
struct AnnotationsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "annotations",
        abstract: "Write editor annotations (LuaLS, EmmyLua) of the coordinator API and, with a script, of its app's screens and coordinators.",
        usage: "coordrun annotations [<options>] [<script>]",
        discussion: """
            Writes coordinator.lua, driver.lua and (with a script) app.lua to the folder, and .luacheckrc beside it \
            with --luacheckrc. Point .luarc.json's workspace.library at the folder. Exit status: 2 when the script is \
            missing or does not load (as every subcommand), 1 when a file cannot be written.
            """)

    @Argument(
        help: "The app's main script: its screens and coordinator classes are annotated too (it is loaded, not started).",
        completion: .file(extensions: ["lua"])
    )
    var script: String?

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("The folder to write the annotations to.", valueName: "dir"), completion: .directory)
    var output = "annotations"

    @Option(help: ArgumentHelp("Also write luacheck's configuration for a project of flows to this file.", valueName: "file"), completion: .file())
    var luacheckrc: String?

    @Option(help: ArgumentHelp("The most seconds loading the script may take (0: no limit).", valueName: "seconds"))
    var timeout: Double = 10

    @OptionGroup var limitOptions: LimitOptions

    mutating func validate() throws {
        try validateSeconds(timeout, "--timeout")
    }

    func run() throws {
        let streams = CoordRun.Streams()
        let files: [Annotations.File]
        do { files = try Self.annotations(of: script, limits: limitOptions.limits, timeLimit: timeout > 0 ? timeout : nil) } catch {
            streams.notice(REPL.message(for: error))
            throw ExitCode(2) // as every subcommand whose script is missing or does not load
        }
        guard Files.makeFolders(output) else {
            streams.notice("cannot make the folder \(output)")
            throw ExitCode.failure
        }
        for file in files {
            guard let failure = Files.writing(file.text, to: output + "/" + file.name) else { continue }
            streams.notice(failure)
            throw ExitCode.failure
        }
        if let luacheckrc, let failure = Files.writing(Annotations.luacheckConfig, to: luacheckrc) {
            streams.notice(failure)
            throw ExitCode.failure
        }
        Terminal.writeOut("wrote \(files.map(\.name).joined(separator: ", ")) to \(output)\(luacheckrc.map { " and \($0)" } ?? "")\n")
    }

    /// The annotations of the API, and of the app `script` declares (loaded, not started) when given.
    static func annotations(of script: String?, limits: RuntimeLimits, timeLimit: Double? = nil) throws -> [Annotations.File] {
        let runtime = try limits.runtime(driverFunctions: true, timed: timeLimit != nil)
        defer { runtime.lua.close() }
        if let script { try runtime.lua.withTimeLimit(timeLimit) { try runtime.load(script: script) } }
        return try Annotations.files(for: runtime, app: script != nil)
    }
}
