import Foundation
import Testing
import TestSupport

/// `coordrun serve` in a real headless Chromium driven by Selenium (Tests/Browser/preview_test.py): the
/// login → profile → city pick journey clicked through, an alert, each presentation style as iOS draws it,
/// tabs and badges, pages by their dots and a swipe, a split's columns side by side, undo and redo, a link,
/// a snapshot restored, a saved script reloaded into every page, bad requests refused; and it
/// prints a click's latency with 50 more pages connected (docs/Performance.md: measured, not asserted).
/// Screenshots go to a folder this test prints.
@Suite(.serialized) struct PreviewBrowserTests {
    /// A `coordrun serve` of this build, until the test ends.
    final class Server {
        let process = Process()
        let url: String

        /// `coordrun serve --port 0 ARGUMENTS`, with at most `descriptors` open files when given.
        init(_ arguments: [String], folder: String = repositoryRoot, descriptors: Int? = nil) throws {
            if let descriptors {
                process.executableURL = URL(fileURLWithPath: "/bin/sh")
                process.arguments = ["-c", "ulimit -n \(descriptors) && exec \"$0\" \"$@\"", Programs.coordrun, "serve", "--port", "0"] + arguments
            } else {
                process.executableURL = URL(fileURLWithPath: Programs.coordrun)
                process.arguments = ["serve", "--port", "0"] + arguments
            }
            process.currentDirectoryURL = URL(fileURLWithPath: folder)
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            var text = ""
            while !text.contains("(Ctrl-C stops)\n") { // a warning may come first
                let data = output.fileHandleForReading.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
            }
            guard let range = text.range(of: "http://"), let end = text[range.lowerBound...].firstIndex(of: " ") else {
                throw ServerFailure(output: text)
            }
            url = String(text[range.lowerBound..<end])
        }

        struct ServerFailure: Error { let output: String }

        // SIGKILL: a process started from a test inherits the test thread's blocked signals (SIGTERM too).
        deinit { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
    }

    /// The Python with Selenium the browser tests run in.
    static func python() throws -> String {
        let venv = ProcessInfo.processInfo.environment["COORDINATOR_TOOLS_VENV"] ?? NSHomeDirectory() + "/.cache/coordinator/tools-venv"
        let python = venv + "/bin/python"
        try #require(FileManager.default.isExecutableFile(atPath: python), "no Selenium at \(venv): scripts/ensure-deps --test installs it")
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "no chromium: scripts/ensure-deps --test installs it")
        return python
    }

    /// Tests/Browser/`script`, run as `script URL SHOTS` against `coordrun serve APP`; its status is 0.
    static func pageTest(_ script: String, serving app: String, shots: String) throws -> Programs.Outcome {
        let python = try Self.python()
        let server = try Server([app])
        let outcome = try Programs.run(python, [repositoryRoot + "/Tests/Browser/" + script, server.url, shots], input: "", within: 300)
        #expect(outcome.status == 0, "\(outcome.out)\(outcome.err)")
        return outcome
    }

    /// The preview by the keyboard, at a phone's width and in the dark (Tests/Browser/preview_a11y_test.py):
    /// axe-core finds no serious or moderate violation (in the dark palette too), the focus goes to the new
    /// screen after a step, at 390 px the page is one column with every control on screen, and as a phone
    /// shows it (mobile emulation) at six phones' widths the panels stack under the device with every control
    /// on screen; screenshots in the test's folder.
    @Test func thePreviewIsAccessibleAtAPhonesWidthAndInTheDark() throws {
        let folder = try TemporaryDirectory()
        let outcome = try Self.pageTest("preview_a11y_test.py", serving: "scripts/app.lua", shots: folder.path + "/shots")
        #expect(outcome.out.contains("ok: the dark palette has no serious or moderate violation"), "\(outcome.out)")
        #expect(outcome.out.contains("ok: at 430 px on a phone every control is on screen"), "\(outcome.out)")
        for shot in ["preview-desktop.png", "preview-phone.png", "preview-phone-emulated.png", "preview-dark.png"] {
            #expect(FileManager.default.fileExists(atPath: folder.path + "/shots/" + shot), "\(shot)")
        }
    }

    /// A screen type's look (Tests/Browser/look_app.lua): its title, text, fields and rows, and each output's
    /// control (secure, stars, stepper, switch, button) entering its payload as a step of the session
    /// (Tests/Browser/preview_look_test.py); axe-core finds no serious or moderate violation.
    @Test func aScreensLookAndControlsDrawItAsAPrototype() throws {
        let folder = try TemporaryDirectory()
        let outcome = try Self.pageTest("preview_look_test.py", serving: "Tests/Browser/look_app.lua", shots: folder.path + "/shots")
        #expect(outcome.out.contains("ok: the tap is the step tap(\"confirm\", (\"yes\"))"), "\(outcome.out)")
    }

    /// A page on another origin, in headless Chromium, tries to run Lua in the preview (a no-cors POST, a
    /// text/plain form), to read the session (fetch, the /live WebSocket, DNS rebinding) and to make it
    /// explore (an image of /graph.svg): nothing runs, nothing is read, the history is as before.
    @Test func aPageOnAnotherOriginGetsNothing() throws {
        let python = try Self.python()
        let folder = try TemporaryDirectory()
        let app = try folder.write("app.lua", try #require(readFile(repositoryRoot + "/scripts/app.lua")))
        _ = try folder.write("cities.lua", try #require(readFile(repositoryRoot + "/scripts/cities.lua")))
        let server = try Server([app])
        let marker = folder.path + "/ran"
        let outcome = try Programs.run(python, [repositoryRoot + "/Tests/Browser/cross_origin_test.py", server.url, marker], input: "", within: 300)
        #expect(outcome.status == 0, "\(outcome.out)\(outcome.err)")
        #expect(outcome.out.contains("ok: the preview took nothing from another origin"), "\(outcome.out)")
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    /// Loads that once stopped the preview, each bounded (Tests/Browser/server_limits_test.py): two
    /// connections sending 256 KiB lines, headers over 64 KiB, more idle connections than the server may
    /// hold (its descriptor limit set to 256), a WebSocket frame of 1 GiB. GET /state is answered during and
    /// after each; the lines get 431, the frame 1009, and the server's memory does not take the frame.
    @Test func theServerStaysUpUnderLoadsThatOnceStoppedIt() throws {
        let server = try Server(["scripts/app.lua"], descriptors: 256)
        let outcome = try Programs.run("/usr/bin/python3", [repositoryRoot + "/Tests/Browser/server_limits_test.py", server.url,
                                                           "\(server.process.processIdentifier)", "300"], input: "", within: 300)
        print(outcome.out.split(separator: "\n").filter { $0.hasPrefix("measure:") }.joined(separator: "\n"))
        #expect(outcome.status == 0, "\(outcome.out)\(outcome.err)")
        #expect(outcome.out.contains("ok: every load left the preview answering"), "\(outcome.out)")
    }

    /// On loopback as beyond it (`--host 0.0.0.0`, reached here on 127.0.0.1 only), every request must carry
    /// the token the printed URL holds, as another account on the same machine reaches loopback too: without
    /// it 403, the page, `/state` and `/live` included, and nothing runs; with it (as the header, or the query
    /// on the page itself) the preview answers, and the page it serves carries it for its own requests and
    /// keeps it in its address (Tests/Browser/token_test.py).
    @Test(arguments: [[], ["--host", "0.0.0.0"]])
    func everyRequestCarriesTheTokenOnEveryAddress(host: [String]) throws {
        let folder = try TemporaryDirectory()
        let marker = folder.path + "/ran"
        let server = try Server(host + ["examples/shop.lua"])
        let outcome = try Programs.run("/usr/bin/python3", [repositoryRoot + "/Tests/Browser/token_test.py", server.url, marker], input: "", within: 120)
        #expect(outcome.status == 0 && outcome.out.contains("ok: only requests with the token are answered"), "\(outcome.out)\(outcome.err)")
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    /// A page's Lua line, through the real server: `:record` writes no file under `--sandbox` and, without
    /// it, only test files inside the project (never `../`, never the app); `os.exit` is the action's error
    /// and the server goes on; every answer forbids framing and sniffing.
    @Test func aPagesLuaLineCannotWriteOutsideTheProjectOrEndTheServer() throws {
        let folder = try TemporaryDirectory()
        let project = folder.path + "/project"
        try FileManager.default.createDirectory(atPath: project, withIntermediateDirectories: true)
        let app = project + "/app.lua"
        try FileManager.default.copyItem(atPath: repositoryRoot + "/scripts/app.lua", toPath: app)
        try FileManager.default.copyItem(atPath: repositoryRoot + "/scripts/cities.lua", toPath: project + "/cities.lua")
        let script = """
            import json, os, sys
            sys.path.insert(0, "Tests/Browser")
            from preview_client import Preview
            preview, project, sandboxed = Preview(sys.argv[1]), sys.argv[2], sys.argv[3] == "yes"
            def lua(code):
                status, body, headers = preview.request("action", data=json.dumps({"action": "lua", "code": code}).encode(),
                                                        headers={"Content-Type": "application/json"}, method="POST")
                assert status == 200, (status, body)
                for name, value in (("X-Frame-Options", "DENY"), ("Content-Security-Policy", "frame-ancestors 'none'"), ("X-Content-Type-Options", "nosniff")):
                    assert headers.get(name) == value, (name, headers.get(name))
                return json.loads(body).get("error") or ""
            if sandboxed:
                assert "writes no file in the sandbox" in lua(":record x_test.lua")
                assert not os.path.exists(os.path.join(project, "x_test.lua"))
            else:
                assert "only inside the project" in lua(":record ../evil_test.lua")
                assert "only test files" in lua(":record app.lua")
                assert not os.path.exists(os.path.join(project, "..", "evil_test.lua"))
                assert lua(":record login_test.lua") == "" and lua(":record stop") == ""
                assert os.path.exists(os.path.join(project, "login_test.lua"))
            ended = lua("os.exit(0)")  # the sandbox has no os.exit at all
            assert "os.exit is refused here" in ended or (sandboxed and ended), ended
            assert preview.request("state")[0] == 200
            print("ok: the page's line stayed inside")
            """
        for sandboxed in [true, false] {
            let server = try Server((sandboxed ? ["--sandbox"] : []) + [app])
            let outcome = try Programs.run("/usr/bin/python3", ["-c", script, server.url, project, sandboxed ? "yes" : "no"], input: "", within: 120)
            #expect(outcome.status == 0 && outcome.out.contains("ok: the page's line stayed inside"), "\(sandboxed): \(outcome.out)\(outcome.err)")
        }
        #expect(try String(contentsOfFile: app, encoding: .utf8) == String(contentsOfFile: repositoryRoot + "/scripts/app.lua", encoding: .utf8))
    }

    /// `coordrun serve --snapshot-key`: the page's snapshot comes signed, and a restore of one the key did
    /// not sign (a forged document) is refused, the app as before; a signed one restores.
    @Test func aPreviewWithASnapshotKeyRestoresOnlyWhatItSigned() throws {
        let folder = try TemporaryDirectory()
        let key = try folder.write("key", String(repeating: "k", count: 32))
        let server = try Server(["--snapshot-key", key, "examples/shop.lua"])
        let script = """
            import json, sys
            sys.path.insert(0, "Tests/Browser")
            from preview_client import Preview
            preview = Preview(sys.argv[1])
            def post(action):
                return preview.action(action)[1]
            signed = preview.request("snapshot")[1]
            assert '"signature"' in signed, signed
            forged = json.loads(signed)
            del forged["signature"]
            state = post({"action": "restore", "snapshot": json.dumps(forged)})
            assert "not signed" in (state.get("error") or ""), state.get("error")
            state = post({"action": "restore", "snapshot": signed})
            assert state.get("error") is None, state.get("error")
            print("ok: only a signed snapshot restores")
            """
        let outcome = try Programs.run("/usr/bin/python3", ["-c", script, server.url], input: "", within: 60)
        #expect(outcome.status == 0 && outcome.out.contains("ok: only a signed snapshot restores"), "\(outcome.out)\(outcome.err)")
    }

    /// An app in `folder` whose Home's `wait` creates `started`, then waits until `go` exists before it
    /// pushes Done: a step that runs as long as a test wants.
    static func waitingApp(in folder: TemporaryDirectory) throws -> (app: String, started: String, go: String) {
        let started = folder.path + "/started", go = folder.path + "/go"
        let app = try folder.write("waiting.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "wait" } }
            flow.screen "Done" {}
            local Main = flow.coordinator "Main"
            function Main:start()
              self:push("Home").onWait = function()
                io.open("\(started)", "w"):close()
                while not io.open("\(go)") do end
                self:push("Done")
              end
            end
            flow.app { authorization = Main }
            """)
        return (app, started, go)
    }

    /// Drawing the flow graph explores the app off the session: while an exploration waits in a handler,
    /// GET /state and an action are answered (the graph once blocked every page for as long as it took).
    @Test func drawingTheGraphBlocksNoOtherRequest() throws {
        let folder = try TemporaryDirectory()
        let (app, started, go) = try Self.waitingApp(in: folder) // only the graph's exploration taps it
        let server = try Server([app])
        let script = """
            import json, os, sys, threading
            sys.path.insert(0, "Tests/Browser")
            from preview_client import Preview
            preview, started, go = Preview(sys.argv[1]), sys.argv[2], sys.argv[3]
            graph = {}
            def draw():
                graph["status"] = preview.request("graph.svg", timeout=120)[0]
            thread = threading.Thread(target=draw)
            thread.start()
            while not os.path.exists(started):
                thread.join(0.01)  # the exploration's handler says it runs
                assert thread.is_alive(), "the graph was drawn without exploring"
            assert preview.request("state", timeout=120)[0] == 200
            status, answer = preview.action({"action": "lua", "code": "x = 1"})
            assert status == 200 and answer.get("error") is None, answer
            assert thread.is_alive(), "the graph was not still exploring"
            open(go, "w").close()
            thread.join()
            assert graph.get("status") == 200, graph
            print("ok: the session answered while the graph explored")
            """
        let outcome = try Programs.run("/usr/bin/python3", ["-c", script, server.url, started, go], input: "", within: 120)
        #expect(outcome.status == 0 && outcome.out.contains("ok: the session answered while the graph explored"), "\(outcome.out)\(outcome.err)")
    }

    /// An action whose handler waits (here for a file, up to the preview's time limit) does not keep a page
    /// from the state: `GET /state` is answered meanwhile (Tests/Browser/busy_action_test.py).
    @Test func theStateIsAnsweredWhileAnActionRuns() throws {
        let folder = try TemporaryDirectory()
        let (app, started, go) = try Self.waitingApp(in: folder)
        let server = try Server(["--timeout", "120", app])
        let outcome = try Programs.run("/usr/bin/python3", [repositoryRoot + "/Tests/Browser/busy_action_test.py", server.url, started, go],
                                       input: "", within: 180)
        #expect(outcome.status == 0 && outcome.out.contains("ok: the state was answered while an action ran"), "\(outcome.out)\(outcome.err)")
    }

    @Test func thePreviewClicksThroughInARealBrowser() throws {
        let python = try Self.python()
        let folder = try TemporaryDirectory()
        let app = try folder.write("app.lua", try #require(readFile(repositoryRoot + "/scripts/app.lua")))
        _ = try folder.write("cities.lua", try #require(readFile(repositoryRoot + "/scripts/cities.lua")))
        let appServer = try Server(["--watch", "--timeout", "1", app])
        let shopServer = try Server(["examples/shop.lua"])
        let cover = try folder.write("cover.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "cover", "sheet", "pop", "form", "share" } }
            flow.screen "Modal" { outputs = { "close" } }
            local Home = flow.coordinator "Home"
            function Home:start()
              local home = self:push("Home")
              home.onCover = function() self:present("Modal", nil, { presentation = "fullScreen" }).onClose = function() self:dismiss() end end
              home.onSheet = function() self:present("Modal", nil, { detents = { "medium", "large" } }) end
              home.onPop = function() self:present("Modal", nil, { presentation = "popover" }) end
              home.onForm = function() self:present("Modal", nil, { presentation = "formSheet" }) end
              home.onShare = function() self:alert { title = "Share", style = "actionSheet", actions = { { "Cancel", style = "cancel" }, "Copy", { "Delete", style = "destructive" } } } end
            end
            flow.app(Home)
            """)
        let coverServer = try Server(["--idiom", "pad", cover]) // a tablet: its popover stays one
        let pagesServer = try Server(["examples/pages.lua"])
        let rideServer = try Server(["examples/ride.lua"])
        let bankStorage = folder.path + "/bank.json"
        let bankServer = try Server(["--storage", bankStorage, "examples/bank.lua"])
        let splitServer = try Server(["examples/split.lua"])
        let tabsServer = try Server(["--idiom", "pad", "examples/tabs.lua"]) // a pad's: it opens windows
        let shots = NSTemporaryDirectory() + "coordrun-preview-screenshots"
        let outcome = try Programs.run(python, [repositoryRoot + "/Tests/Browser/preview_test.py", appServer.url, app, shopServer.url, shots, coverServer.url, pagesServer.url, rideServer.url,
                                                  bankServer.url, bankStorage, splitServer.url, tabsServer.url],
                                       input: "", within: 300)
        print(outcome.out.split(separator: "\n").filter { $0.hasPrefix("measure:") || $0.hasPrefix("screenshots:") }.joined(separator: "\n"))
        #expect(outcome.status == 0, "\(outcome.out)\(outcome.err)")
        #expect(outcome.out.contains("ok: every click updated the page"), "\(outcome.out)")
    }
}
