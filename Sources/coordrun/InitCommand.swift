import ArgumentParser
import CoordinatorOptions
import CoordinatorTools

/// `coordrun init NAME`: a new project of flows a person can run at once (docs/Editors.md).
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Make a new project: an app with two screens and a coordinator, its flow test, editor and luacheck settings, a README and a CI workflow.",
        usage: "coordrun init <name>",
        discussion: "The folder must not exist yet (or be an empty folder); nothing is written otherwise. Then: cd NAME && coordrun test. Exit status: 2 without a name; 1 when the name is taken by a file or a folder that is not empty, or the folder cannot be made.")

    @Argument(help: "The project's folder (made here).")
    var name: String

    func run() throws {
        let streams = CoordRun.Streams()
        // `coordrun init "$NAME"` with NAME unset must not make the project in the current folder or in /.
        guard !name.allSatisfy(\.isWhitespace) else {
            Terminal.writeError(streams.err.error(CoordRun.program + " init: a project name is required") + "\n")
            throw ExitCode(2)
        }
        switch Files.target(name) {
        case .missing, .emptyFolder: break
        case .taken:
            streams.notice("\(name) exists and is not an empty folder: init makes a new project in a new folder, and writes nothing here")
            throw ExitCode.failure
        }
        let title = name.split(separator: "/").last.map(String.init) ?? name
        var files = Scaffold.files(title: title)
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
    }
}

/// The files of a new project (`coordrun init`), by path.
enum Scaffold {
    static func files(title: String) -> [(String, String)] {
        [
            ("app.lua", app),
            ("app_test.lua", test),
            (".luarc.json", luarc),
            (".luacheckrc", Annotations.luacheckConfig),
            (".gitignore", "# coordrun test --junit and --json reports\n*.xml\nresults.json\n"),
            ("README.md", readme(title)),
            (".github/workflows/flows.yml", workflow),
        ]
    }

    static let app = """
        -- The app: a list of notes and a note's page. Run it: coordrun app.lua
        local flow = require "coordinator"

        flow.screen "Notes" {
          title = "Notes",
          inputs = { "notes" },
          outputs = { open = { from = "notes", label = "title" }, "add" },
          render = function(screen) return #screen.notes .. " notes" end,
        }

        flow.screen "Note" {
          inputs = { "note" },
          outputs = { "delete" },
          render = function(screen) return screen.note.title .. "\\n" .. screen.note.text end,
        }

        local App = flow.coordinator "App"

        function App:start()
          self.notes = { { title = "Groceries", text = "milk, bread" }, { title = "Ideas", text = "a flow per screen" } }
          local list = self:push("Notes", { notes = self.notes })
          list.onOpen = function(note)
            local page = self:push("Note", { note = note })
            page.onDelete = function()
              for i, n in ipairs(self.notes) do if n.title == note.title then table.remove(self.notes, i) break end end
              list.notes = self.notes
              self:pop()
            end
          end
          list.onAdd = function()
            self.notes[#self.notes + 1] = { title = "Note " .. (#self.notes + 1), text = "" }
            list.notes = self.notes
          end
        end

        flow.app(App)

        """

    static let test = """
        -- The app's flow tests: coordrun test
        app "app.lua"

        test("the list opens a note, and Back returns to it", function()
          expect.screen "Notes"
          tap("open", top().notes[1])
          expect.screen("Note", { note = { title = "Groceries", text = "milk, bread" } })
          back()
          expect.stack { "Notes" }
        end)

        test("deleting a note takes it off the list", function()
          tap("open", top().notes[2])
          tap("delete")
          expect.stack { "Notes" }
          expect.equal(#top().notes, 1, "notes left")
        end)

        """

    static let luarc = """
        {
          "$schema": "https://raw.githubusercontent.com/LuaLS/vscode-lua/master/setting/schema.json",
          "runtime": { "version": "Lua 5.4" },
          "workspace": { "library": ["annotations"], "checkThirdParty": false },
          "diagnostics": { "globals": [], "disable": ["unnecessary-if"] }
        }

        """

    static func readme(_ title: String) -> String {
        """
        # \(title)

        Flows written in Lua for the coordinator runtime.

        | command | what it does |
        |---|---|
        | `coordrun app.lua` | walk the app in the terminal: numbers tap, `back` goes back, anything else is Lua |
        | `coordrun -i app.lua` | a Lua REPL over the live app (`:help`) |
        | `coordrun test` | run the flow tests (`*_test.lua`); `--junit report.xml` for CI |
        | `coordrun explore app.lua` | every state the app can reach, with its faults |
        | `coordrun serve app.lua` | the app as a live web page |
        | `coordrun annotations app.lua -o annotations` | refresh the editor annotations after changing screens or coordinators |

        Editors read `annotations/` through `.luarc.json` (LuaLS, EmmyLua); `luacheck .` reads `.luacheckrc`.

        """
    }

    static let workflow = """
        # Runs the flow tests and opens every route on each push (coordrun from the coordinator runtime's repository).
        name: flows
        on: [push, pull_request]
        jobs:
          flows:
            runs-on: ubuntu-latest
            container: swift:6.0
            steps:
              - uses: actions/checkout@v4
              - name: coordrun
                run: |
                  apt-get update && apt-get install -y liblua5.4-dev libedit-dev pkg-config git
                  git clone --depth 1 "${COORDINATOR_REPOSITORY:-https://github.com/OWNER/coordinator.git}" /tmp/coordinator
                  swift build --package-path /tmp/coordinator -c release --product coordrun
                  echo /tmp/coordinator/.build/release >> "$GITHUB_PATH"
              - run: coordrun test --junit flow-tests.xml
              - run: coordrun routes app.lua
              - uses: actions/upload-artifact@v4
                if: always()
                with:
                  name: flow-tests
                  path: flow-tests.xml

        """
}
