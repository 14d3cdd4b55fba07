import ArgumentParser
import CoordinatorOptions
import CoordinatorTools

/// `coordrun init NAME`: a new project of flows a person can run at once (docs/Editors.md).
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Make a new project: an app with two screens and a coordinator, its flow test, editor and luacheck settings, a README and a CI workflow.",
        usage: "coordrun init [--repository <url>] <name>",
        discussion: "The folder must not exist yet (or be an empty folder); nothing is written otherwise. Then: cd NAME && coordrun test. The CI workflow builds coordrun from the coordinator runtime's git repository: --repository, or else the GitHub repository variable COORDINATOR_REPOSITORY. Exit status: 2 without a name or with a name that holds '..'; 1 when the name is taken by a file or a folder that is not empty, or the folder cannot be made.")

    @Argument(help: "The project's folder (made here).", completion: .directory)
    var name: String

    @Option(help: ArgumentHelp("The coordinator runtime's git repository, which the CI workflow builds coordrun from (without it: the repository variable COORDINATOR_REPOSITORY).", valueName: "url"))
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
            streams.notice("\(name): a project's name has no '..' in it (name the new folder itself: coordrun init notes, coordrun init ~/work/notes); nothing was written")
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
            Terminal.writeOut("its CI workflow builds coordrun from the repository variable COORDINATOR_REPOSITORY: set it on GitHub, or make the project with --repository URL\n")
        }
    }
}

/// The files of a new project (`coordrun init`), by path.
enum Scaffold {
    static func files(title: String, repository: String? = nil) -> [(String, String)] {
        [
            ("app.lua", app),
            ("app_test.lua", test),
            (".luarc.json", luarc),
            (".luacheckrc", Annotations.luacheckConfig),
            (".gitignore", "# coordrun test --junit and --json reports, the storyboard and the flow diff\n*.xml\nresults.json\nstoryboard/\nflow-diff.*\n"),
            ("README.md", readme(title)),
            (".github/workflows/flows.yml", workflow(repository: repository)),
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
          "diagnostics": { "globals": [] }
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
        | `coordrun serve app.lua` | the app as a live web page: a clickable prototype |
        | `coordrun storyboard app.lua -o storyboard` | every screen as a card and the flow, one page to open from its file |
        | `coordrun diff main HEAD -- app.lua` | what a change does to the flow, for a review |
        | `coordrun annotations app.lua -o annotations` | refresh the editor annotations after changing screens or coordinators |
        | `coordrun check` | the editor's checks from the command line (luacheck, the language server) |

        Editors read `annotations/` through `.luarc.json` (LuaLS, EmmyLua); `luacheck .` reads `.luacheckrc`.
        `.github/workflows/flows.yml` runs the tests and opens every route on each push, uploads the storyboard
        with the test report, and shows the flow diff on each pull request.

        """
    }

    /// The CI workflow: coordrun built from the runtime's repository (`repository`, or the GitHub repository
    /// variable `COORDINATOR_REPOSITORY`), its build cached by the runtime's commit; the flow tests and the
    /// routes on each push; on a pull request, what it does to the flow (`coordrun diff`) as the job's
    /// summary, and as a comment when the pull request comes from this repository (a fork's token cannot
    /// write one).
    static func workflow(repository: String?) -> String {
        let source = repository ?? "${{ vars.COORDINATOR_REPOSITORY }}"
        return """
            # Runs the flow tests, opens every route and draws the storyboard (an artifact) on each push; on a pull
            # request, shows what it does to the flow (coordrun diff). coordrun is built from the coordinator runtime's repository\(repository == nil ? " (the repository\n# variable COORDINATOR_REPOSITORY: Settings > Secrets and variables > Actions > Variables)" : "").
            name: flows
            on: [push, pull_request]
            permissions:
              contents: read
              pull-requests: write
            jobs:
              flows:
                runs-on: ubuntu-latest
                container: swift:6.0
                env:
                  COORDINATOR_REPOSITORY: \(source)
                steps:
                  - uses: actions/checkout@v5
                  - name: install what coordrun needs
                    run: |
                      apt-get update && apt-get install -y --no-install-recommends liblua5.4-dev libedit-dev pkg-config git graphviz
                      git config --global --add safe.directory "$GITHUB_WORKSPACE"
                      if [ -z "$COORDINATOR_REPOSITORY" ]; then
                        echo "::error::set the repository variable COORDINATOR_REPOSITORY to the coordinator runtime's git URL"
                        exit 1
                      fi
                      git clone --depth 1 "$COORDINATOR_REPOSITORY" /tmp/coordinator
                      echo "COORDINATOR_COMMIT=$(git -C /tmp/coordinator rev-parse HEAD)" >> "$GITHUB_ENV"
                  - uses: actions/cache@v5
                    with:
                      path: /tmp/coordinator/.build
                      key: coordrun-${{ runner.os }}-${{ env.COORDINATOR_COMMIT }}
                  - name: build coordrun
                    run: |
                      swift build --package-path /tmp/coordinator -c release --product coordrun
                      echo /tmp/coordinator/.build/release >> "$GITHUB_PATH"
                  - run: coordrun test --junit flow-tests.xml
                  - run: coordrun routes app.lua
                  - name: storyboard
                    run: coordrun storyboard app.lua -o storyboard
                  - name: flow diff
                    if: github.event_name == 'pull_request'
                    env:
                      BASE: ${{ github.base_ref }}
                    run: |
                      git fetch --depth 1 origin "$BASE"
                      status=0
                      coordrun diff --markdown --svg flow-diff.svg FETCH_HEAD HEAD -- app.lua > flow-diff.md || status=$?
                      if [ "$status" -gt 1 ]; then exit "$status"; fi
                      cat flow-diff.md >> "$GITHUB_STEP_SUMMARY"
                  - name: comment the flow diff
                    if: github.event_name == 'pull_request' && github.event.pull_request.head.repo.full_name == github.repository
                    uses: actions/github-script@v8
                    with:
                      script: |
                        const body = require('fs').readFileSync('flow-diff.md', 'utf8');
                        await github.rest.issues.createComment({ owner: context.repo.owner, repo: context.repo.repo, issue_number: context.issue.number, body });
                  - uses: actions/upload-artifact@v6
                    if: always()
                    with:
                      name: flows
                      path: |
                        flow-tests.xml
                        flow-diff.svg
                        storyboard
                      if-no-files-found: ignore

            """
    }
}
