import Foundation
import Testing
import CoordinatorCore
import CoordinatorScript
import CoordinatorTools
import CoordinatorLua
import TestSupport

/// The device the app runs on (`flow.idiom()`, `--idiom`): fixed for a launch, part of the state, written
/// in snapshots, a popover shown as a page sheet on a phone, and both devices explored in one report.
@Suite struct IdiomTests {
    static let app = """
        local flow = require "coordinator"
        flow.screen "Home" { inputs = { "device" }, outputs = { "share", "broken" } }
        flow.screen "Share" { outputs = { "done" } }
        local loadedOn = flow.idiom()
        local Home = flow.coordinator "Home"
        function Home:start()
          local home = self:push("Home", { device = loadedOn })
          home.onShare = function()
            self:present("Share", nil, { presentation = "popover", dismissable = false }).onDone = function() self:dismiss() end
          end
          home.onBroken = function()
            if flow.idiom() == "pad" then error("only on a pad") end
          end
        end
        flow.app(Home)
        """

    static func runtime(_ idiom: Idiom? = nil, in folder: TemporaryDirectory) throws -> ScriptRuntime {
        let runtime = try ScriptRuntime(driverFunctions: true)
        if let idiom { runtime.app.setIdiom(idiom) }
        try runtime.load(script: folder.write("app.lua", app))
        try runtime.start()
        return runtime
    }

    @Test func aPhoneByDefaultShowsAPopoverAsAPageSheetAndAPadAsAPopover() throws {
        let folder = try TemporaryDirectory()
        let phone = try Self.runtime(in: folder)
        #expect(phone.app.idiom == .phone && phone.app.window.visibleScreen?["device"] == "phone")
        try phone.app.tap("share")
        #expect(phone.app.window.modals.last?.presentation == Presentation(style: .pageSheet, dismissable: false))
        let pad = try Self.runtime(.pad, in: folder)
        #expect(pad.app.window.visibleScreen?["device"] == "pad", "the scripts see the device as they load")
        try pad.app.tap("share")
        #expect(pad.app.window.modals.last?.presentation.style == .popover)
    }

    @Test func aSnapshotKeepsAPadAndARestoreRunsOnIt() throws {
        let folder = try TemporaryDirectory()
        let pad = try Self.runtime(.pad, in: folder)
        let phone = try Self.runtime(in: folder)
        let phoneSnapshot = try phone.snapshot()
        #expect(try FlowValue(json: phoneSnapshot)["idiom"] == nil, "left out for a phone")
        try pad.app.tap("share")
        let snapshot = try pad.snapshot()
        #expect(try FlowValue(json: snapshot)["idiom"] == "pad")
        let (padKey, phoneKey) = (try pad.stateIdentity().key, try phone.stateIdentity().key)
        #expect(padKey != phoneKey, "the device is part of the state")
        try phone.restore(snapshot)
        #expect(phone.app.idiom == .pad)
        #expect(phone.app.window.visibleStack.first?["device"] == "pad", "its scripts ran again on the pad")
        #expect(phone.app.window.modals.last?.presentation.style == .popover)
        #expect(try phone.snapshot() == snapshot)
        // A snapshot that cannot be restored leaves the device as it was.
        let broken = snapshot.replacingOccurrences(of: "\"tap\": \"share\"", with: "\"tap\": \"nothing\"")
        #expect(broken != snapshot)
        try phone.restore(phoneSnapshot)
        #expect(throws: (any Error).self) { try phone.restore(broken) }
        #expect(phone.app.idiom == .phone && phone.app.window.visibleScreen?["device"] == "phone")
        let wrong = snapshot.replacingOccurrences(of: "\"idiom\": \"pad\"", with: "\"idiom\": \"watch\"")
        let error = #expect(throws: SnapshotError.self) { try phone.restore(wrong) }
        #expect(error?.message.contains("its idiom is \"phone\" or \"pad\"") == true, "\(error?.message ?? "")")
    }

    @Test func flowTestsRunOnTheDeviceTheirAppOrTestNames() throws {
        let folder = try TemporaryDirectory()
        _ = try folder.write("app.lua", Self.app)
        let file = try folder.write("app_test.lua", """
            app "app.lua"
            test("on a phone", function()
              expect.screen("Home", { device = "phone" })
              tap("broken")
            end)
            test("on a pad", { idiom = "pad" }, function()
              expect.screen("Home", { device = "pad" })
              expect.fails(function() tap("broken") end, "only on a pad")
            end)
            test("a phone again after it", function()
              expect.screen("Home", { device = "phone" })
            end)
            """)
        let results = try FlowTests.run(file)
        #expect(results.map { $0.outcome.failure == nil } == [true, true, true], "\(results.map(\.outcome))")
        let padFile = try folder.write("pad_test.lua", """
            app("app.lua", { idiom = "pad" })
            test("the whole file on a pad", function() expect.screen("Home", { device = "pad" }) end)
            test("a test option too", { idiom = "phone" }, function() expect.screen("Home", { device = "phone" }) end)
            """)
        #expect(try FlowTests.run(padFile).allSatisfy { $0.outcome.failure == nil })
        let wrong = try folder.write("wrong_test.lua", "app(\"app.lua\", { idiom = \"watch\" })\n")
        #expect(throws: (any Error).self) { try FlowTests.run(wrong) }
    }

    /// Both devices explored in one report: the pad's states are its own, the fault only a pad has is
    /// found with its device, and its test runs there (so it reproduces).
    @Test func bothDevicesAreExploredInOneReport() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("app.lua", Self.app)
        func explore(_ idiom: Idiom) throws -> ExploreReport {
            try Explorer(options: Explorer.Options()) {
                let runtime = try ScriptRuntime(imageable: true)
                runtime.app.setIdiom(idiom)
                try Explorer.prepare(runtime)
                try runtime.load(script: script)
                return runtime
            }.run()
        }
        let phone = try explore(.phone), pad = try explore(.pad)
        #expect(phone.errors.isEmpty && pad.errors.count == 1)
        let both = ExploreReport.combining([phone, pad], catalog: ["Home", "Share"])
        #expect(both.states.count == phone.states.count + pad.states.count)
        #expect(Set(both.states.map(\.key)).count == both.states.count, "no state of one device is one of the other")
        #expect(both.states.filter { $0.idiom == .pad }.count == pad.states.count)
        #expect(both.transitions.allSatisfy { both.states[$0.from].idiom == both.states[$0.to].idiom })
        #expect(both.errors.map(\.idiom) == [.pad])
        #expect(both.text.contains("on phone and pad") && both.text.contains("after: (pad) tap(\"broken\")"), "\(both.text)")
        #expect(both.complete && both.deadEnds.isEmpty, "\(both.text)")
        let tests = both.testFile(app: script)
        #expect(tests.contains("{ idiom = \"pad\" }, function()"), "\(tests)")
        let reproductions = try both.reproduce(testFile: try folder.write("found_test.lua", tests), timeLimit: 5, limits: RuntimeLimits())
        let reproduced = reproductions.allSatisfy(\.reproduced)
        #expect(reproduced, "\(reproductions.map(\.outcome))")
    }
}
