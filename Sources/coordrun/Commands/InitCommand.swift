import ArgumentParser
import CoordinatorOptions
import CoordinatorTools

/// `coordrun init NAME`: a new project of flows a person can run at once (docs/Editors.md).
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Make a new project: an app with two screens and a coordinator, its flow test, editor and luacheck settings, a README and a CI workflow.",
        usage: "coordrun init [--repository <url>] <name>",
        discussion: """
            The folder must not exist yet (or be an empty folder); nothing is written otherwise. Then: cd NAME && \
            coordrun test. The CI workflow builds coordrun from the coordinator runtime's git repository: \
            --repository, or else the GitHub repository variable COORDINATOR_REPOSITORY. Exit status: 2 without a \
            name or with a name that holds '..'; 1 when the name is taken by a file or a folder that is not empty, or \
            the folder cannot be made.
            """)

    @Argument(help: "The project's folder (made here).", completion: .directory)
    var name: String

    @Option(help: ArgumentHelp("""
        The coordinator runtime's git repository, which the CI workflow builds coordrun from (without it: the \
        repository variable COORDINATOR_REPOSITORY).
        """, valueName: "url"))
    var repository: String?

    func run() throws {
        let streams = CoordRun.Streams()
        // `coordrun init "$NAME"` with NAME unset must not make the project in the current folder or in /.
        guard !name.allSatisfy(\.isWhitespace) else {
            Terminal.writeError(streams.err.error(CoordRun.program + " init: a project name is required") + "\n")
            throw ExitCode(2)
        }
        // `new/../..` once named the current folder's parent, which the check below saw as missing (`new`
        // was): the path checked must be the path written, so a name that climbs is refused outright.
        guard !name.split(separator: "/").contains("..") else {
            streams.notice("""
                \(name): a project's name has no '..' in it (name the new folder itself: coordrun init notes, \
                coordrun init ~/work/notes); nothing was written
                """)
            throw ExitCode(2)
        }
        switch Files.target(name) {
        case .missing, .emptyFolder: break
        case .taken:
            streams.notice("\(name) exists and is not an empty folder: init makes a new project in a new folder, and writes nothing here")
            throw ExitCode.failure
        }
        let title = name.split(separator: "/").last.map(String.init) ?? name
        if let repository, repository.isEmpty || repository.contains(where: { $0.isWhitespace || $0 == "'" || $0 == "\"" || $0 == "$" || $0 == "`" }) {
            streams.notice("--repository \(repository): a git repository's URL, without spaces, quotes or $")
            throw ExitCode(2)
        }
        var files = Scaffold.files(title: title, repository: repository)
        do {
            for file in try AnnotationsCommand.annotations(of: nil, limits: RuntimeLimits()) {
                files.append(("annotations/" + file.name, file.text))
            }
        } catch {
            streams.notice(REPL.message(for: error))
            throw ExitCode.failure
        }
        for (path, text) in files {
            let full = name + "/" + path
            guard Files.makeFolders(LuaState.directory(of: full)) else {
                streams.notice("cannot write \(full): cannot make its folder")
                throw ExitCode.failure
            }
            if let failure = Files.writing(text, to: full) {
                streams.notice(failure)
                throw ExitCode.failure
            }
        }
        // The app's own declarations, now that its script is there.
        do {
            for file in try AnnotationsCommand.annotations(of: name + "/app.lua", limits: RuntimeLimits()) where file.name == "app.lua" {
                if let failure = Files.writing(file.text, to: name + "/annotations/app.lua") {
                    streams.notice(failure)
                    throw ExitCode.failure
                }
            }
        } catch {
            streams.notice("cannot annotate \(name)/app.lua: \(REPL.message(for: error))")
            throw ExitCode.failure
        }
        Terminal.writeOut("made \(name): cd \(name) && \(Processes.commandName()) test\n")
        if repository == nil {
            Terminal.writeOut("""
                its CI workflow builds coordrun from the repository variable COORDINATOR_REPOSITORY: set it on \
                GitHub, or make the project with --repository URL\n
                """)
        }
    }
}

/// The files of a new project (`coordrun init`), by path: the files in Scaffold/ beside this one, the README
/// with the project's title, the workflow with the runtime's repository when one is given.
enum Scaffold {
    static func files(title: String, repository: String? = nil) -> [(String, String)] {
        [
            ("app.lua", EmbeddedFile.appLua),
            ("app_test.lua", EmbeddedFile.appTestLua),
            (".luarc.json", EmbeddedFile.luarcJson),
            (".luacheckrc", Annotations.luacheckConfig),
            (".gitignore", EmbeddedFile.gitignore),
            ("README.md", TextTemplate.filling(EmbeddedFile.readmeMd, with: ["title": title])),
            (".github/workflows/flows.yml", workflow(repository: repository)),
        ]
    }

    /// The CI workflow (Scaffold/flows.yml): coordrun built from the runtime's repository (`repository`, or
    /// else the GitHub repository variable `COORDINATOR_REPOSITORY`, which its first comment explains), its
    /// build cached by the runtime's commit; the flow tests and the routes on each push; on a pull request,
    /// what it does to the flow (`coordrun diff`) as the job's summary, and as a comment when the pull
    /// request comes from this repository (a fork's token cannot write one).
    static func workflow(repository: String?) -> String {
        guard let repository else { return EmbeddedFile.flowsYml }
        return EmbeddedFile.flowsYml
            .replacing(" (the repository\n# variable COORDINATOR_REPOSITORY: Settings > Secrets and variables > Actions > Variables)", with: "")
            .replacing("COORDINATOR_REPOSITORY: ${{ vars.COORDINATOR_REPOSITORY }}", with: "COORDINATOR_REPOSITORY: " + repository)
    }
}
