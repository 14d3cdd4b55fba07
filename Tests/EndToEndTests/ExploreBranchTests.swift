import Foundation
import Testing
import TestSupport
import CoordinatorTools

/// `coordrun explore` takes each action in a branch the runtime comes back from; `--replay` takes it after
/// a replay of its path, the reference. Both reach the same states with the same findings: the JSON reports
/// are equal but for what says how the work was done.
@Suite struct ExploreBranchTests {
    /// The report's fields that say how the search ran, not what it found.
    static let howItRan: Set<String> = ["seconds", "steps", "freshRuntimes", "verify"]

    /// The JSON report of `coordrun explore SCRIPT ARGUMENTS`, without ``howItRan``, and the exit status.
    static func report(_ script: String, _ arguments: [String], in folder: TemporaryDirectory) throws -> (status: Int32, report: FlowValue?, err: String) {
        let json = folder.path + "/report-\(UUID().uuidString).json"
        let outcome = try Programs.run(["explore", script, "--json", json] + arguments, input: "")
        let text = (try? String(contentsOfFile: json, encoding: .utf8)) ?? "{}"
        guard case .record(let fields) = try FlowValue(json: text) else { return (outcome.status, nil, outcome.err) }
        return (outcome.status, .record(FlowRecord(fields.fields.filter { !howItRan.contains($0.key) }.map { ($0.key, $0.value) })), outcome.err)
    }

    static func expectSameBothWays(_ script: String, _ arguments: [String] = [], in folder: TemporaryDirectory,
                                   sourceLocation: SourceLocation = #_sourceLocation) throws {
        let branched = try report(script, arguments, in: folder), replayed = try report(script, arguments + ["--replay"], in: folder)
        #expect(branched.status == replayed.status, "\(script): \(branched.err)", sourceLocation: sourceLocation)
        #expect(branched.report?["states"] != nil, "\(script): \(branched.err)", sourceLocation: sourceLocation)
        #expect(branched.report == replayed.report, "\(script)", sourceLocation: sourceLocation)
    }

    @Test func theAppAndEveryExampleExploreTheSameBothWays() throws {
        let folder = try TemporaryDirectory()
        let examples = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot + "/examples").sorted()
            .filter { $0.hasSuffix(".lua") && !$0.hasSuffix("_test.lua") }
            .filter { (try? String(contentsOfFile: repositoryRoot + "/examples/" + $0, encoding: .utf8))?.contains("flow.app") == true }
        #expect(examples.count >= 10)
        for script in ["scripts/app.lua"] + examples.map({ "examples/" + $0 }) { try Self.expectSameBothWays(script, in: folder) }
        try Self.expectSameBothWays("examples/shop.lua", ["--depth", "30"], in: folder)
    }

    /// A runtime the explorer makes afresh mid-search (an app whose state a restart does not reset:
    /// `math.random`'s generator) checks its first properties in a branch: the view they read, made there,
    /// is made again once the branch comes back, never used stale.
    @Test func aFreshRuntimesFirstPropertiesInABranchDoNotOutliveIt() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("dice.lua", """
            local flow = require "coordinator"
            flow.screen "Table" { outputs = { "roll" } }
            flow.screen "Face" { inputs = { "value" }, outputs = { "again" } }
            local Game = flow.coordinator "Game"
            function Game:start()
              self:push("Table").onRoll = function()
                self:push("Face", { value = math.random(6) }).onAgain = function() self:pop() end
              end
            end
            flow.invariant("a face", function(app) return app.top() ~= nil end)
            flow.app { authorization = Game }
            """)
        let outcome = try Programs.run(["explore", script, "--depth", "6"], input: "")
        #expect(outcome.status == 0, "\(outcome.out)\(outcome.err)")
        #expect(outcome.out.contains("fresh runtimes:"), "\(outcome.out)")
    }

    /// A flow that writes every kind of Lua value into every place it can reach (globals, the registry,
    /// upvalues, a suspended and a dead coroutine, metatables, a module, strings long and short), keeps a
    /// finished flow and a left screen alive, replaces its handlers, answers requests and timers, and
    /// opens, drops and closes files (one opened before any branch) and collects garbage: the same
    /// states, the same findings, and no stream closed twice.
    @Test func aFlowThatWritesEverywhereExploresTheSameBothWays() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("everywhere.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "files", "write", "child", "rewire", "ask", "wait" } }
            flow.screen "Child" { outputs = { "done", "keep" } }
            flow.request "lookup" { examples = { found = "here", missing = "nowhere" } }
            local count = 0
            local kept = {}
            local log = io.open("\(folder.path)/log.txt", "w")
            local co = coroutine.create(function(x) while true do x = coroutine.yield(x + 1) end end)
            local Child = flow.coordinator "Child"
            function Child:start()
              local s = self:push("Child")
              s.onDone = function() self:finish() end
              s.onKeep = function() kept[#kept + 1] = self; kept.screen = s; self:finish() end
            end
            local Main = flow.coordinator "Main"
            function Main:start()
              local home = self:push("Home")
              home.onWrite = function()
                count = count + 1
                local reg = debug.getregistry()
                reg.written = (reg.written or 0) + 1
                package.loaded.written = { count = count, text = ("x"):rep(300) .. count }
                setmetatable(kept, { __index = function(_, k) return k .. count end })
                local ok, v = coroutine.resume(co, count)
                written = { v, co, coroutine.create(function() end), 0.5 * count, "s" .. count }
              end
              home.onFiles = function()
                if io.type(log) == "file" then log:write(count, " ") log:close() end
                local dropped = io.open("\(folder.path)/dropped.txt", "w")
                dropped:write(count)
                collectgarbage()
                count = count + 1
              end
              home.onChild = function() self:run(Child) end
              home.onRewire = function()
                home.onWrite = function() count = count + 10 end
                self:onEvent("ping", function() count = count + 100 end)
                self:onSignal("hi", function() count = count + 1000 end)
                home:onSignal("hello", function() count = count + 10000 end)
              end
              home.onAsk = function()
                self:request("lookup").onResult = function(outcome) written = outcome end
              end
              home.onWait = function() self.timer = self:after(5, function() count = count - 1 end) end
            end
            flow.event "ping" {}
            flow.app { authorization = Main }
            """)
        for depth in ["3", "5"] { try Self.expectSameBothWays(script, ["--depth", depth], in: folder) }
    }
}
