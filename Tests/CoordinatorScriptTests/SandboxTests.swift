import Foundation
import Testing
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorTools
import CoordinatorLua

/// Untrusted flows (`ScriptRuntime(sandbox: true)`, `coordrun --sandbox`) against the known escapes.
@Suite struct SandboxTests {
    /// A runtime opened with the safe libraries (no `package`) works: it failed with "table expected, got
    /// nil" (the module "coordinator" is found through `package`). Its `require` loads the app's own
    /// modules and nothing else.
    @Test func theSafeLibrariesRunTheApp() throws {
        let runtime = try ScriptRuntime(libraries: .safe, driverFunctions: true)
        try runtime.load(script: repositoryRoot + "/scripts/app.lua") // requires its module "cities"
        try runtime.start()
        try runtime.run("tap('login', { name = 'Ann', password = 'secret' })")
        #expect(runtime.app.window.visibleScreen?.name == "UserEdit")
        #expect(try runtime.run("return io, os, debug, package.loadlib, package.searchpath") == [.nil, .nil, .nil, .nil, .nil])
        for module in ["os", "io", "nosuch"] {
            #expect(luaError { try runtime.run("require '\(module)'") }?.message.contains("not found") == true, "\(module)")
        }
        try runtime.run("package.path = '/etc/?'")
        #expect(luaError { try runtime.run("require 'passwd'") } != nil)
    }

    func sandboxed() throws -> (ScriptRuntime, TemporaryDirectory) {
        let folder = try TemporaryDirectory()
        try folder.write("helper.lua", "return { answer = 42 }")
        let app = try folder.write("app.lua", """
            local flow = require "coordinator"
            local helper = require "helper"
            flow.screen "Home" { inputs = { "answer" }, outputs = { "go" } }
            local App = flow.coordinator "App"
            function App:start() self:push("Home", { answer = helper.answer }) end
            flow.app(App)
            """)
        let runtime = try ScriptRuntime(driverFunctions: true, sandbox: true)
        try runtime.load(script: app)
        try runtime.start()
        return (runtime, folder)
    }

    @Test func theAppRunsAndItsOwnModulesLoad() throws {
        let (runtime, _) = try sandboxed()
        #expect(runtime.app.window.visibleScreen?["answer"] == 42)
        #expect(runtime.lua.isSandboxed)
    }

    /// A sandboxed `require` loads only regular files inside the app's folder: a module whose file is a
    /// symbolic link is refused, pointing outside or inside; links among its folders are followed, but the
    /// file they lead to must stay inside; a FIFO, a link to /dev/stdin and a folder are refused at once
    /// (a FIFO once kept `require` waiting past every limit); each refusal names the file, and the app is
    /// as before.
    @Test func requireLoadsOnlyRegularFilesInsideTheAppsFolder() throws {
        let (runtime, folder) = try sandboxed()
        let outside = try TemporaryDirectory()
        let secret = try outside.write("secret.lua", "return 'read from outside'")
        try folder.write("inside.lua", "return 'inside'")
        try FileManager.default.createDirectory(atPath: folder.path + "/lib/deep", withIntermediateDirectories: true)
        try folder.write("lib/deep/mod.lua", "return 'deep'")
        let links = [("escape.lua", secret), ("alias.lua", folder.path + "/inside.lua"), ("stdin.lua", "/dev/stdin"),
                     ("outer", outside.path), ("inner", folder.path + "/lib")]
        for (name, target) in links { try FileManager.default.createSymbolicLink(atPath: folder.path + "/" + name, withDestinationPath: target) }
        #expect(mkfifo(folder.path + "/pipe.lua", 0o600) == 0)
        try FileManager.default.createDirectory(atPath: folder.path + "/dir.lua", withIntermediateDirectories: true)
        let before = runtime.app.stateDescription
        func refused(_ module: String, _ message: String) {
            let error = luaError { try runtime.run("return require '\(module)'") }
            #expect(error?.message.contains(message) == true, "\(module): \(error?.message ?? "loaded")")
            #expect(runtime.app.stateDescription == before)
        }
        refused("escape", "module 'escape': \(folder.path)/escape.lua is a symbolic link, and the sandbox loads only regular files inside the app's folder")
        refused("alias", "\(folder.path)/alias.lua is a symbolic link")
        refused("stdin", "\(folder.path)/stdin.lua is a symbolic link")
        refused("outer.secret", "\(folder.path)/outer/secret.lua is \(secret), outside the app's folder")
        refused("pipe", "\(folder.path)/pipe.lua is a FIFO")
        refused("dir", "\(folder.path)/dir.lua is a folder")
        refused("nowhere", "no file '\(folder.path)/nowhere.lua'")
        #expect(try runtime.run("return require 'inside', require 'lib.deep.mod', (require 'inner.deep.mod')") == ["inside", "deep", "deep"])
    }

    /// Reading a module is work of the line that requires it: a module bigger than the memory limit ends
    /// it with "not enough memory", and each byte counts against the instruction budget.
    @Test func readingAModuleCountsAgainstTheLinesLimits() throws {
        let (runtime, folder) = try sandboxed()
        try folder.write("big.lua", "return " + String(repeating: " ", count: 4 << 20) + "1")
        try runtime.limit(memory: 2 << 20, instructions: nil)
        #expect(luaError { try runtime.run("return require 'big'") }?.message.contains("not enough memory") == true)
        try runtime.limit(memory: nil, instructions: 1_000_000)
        #expect(luaError { try runtime.run("return require 'big'") }?.message.contains("instruction budget of 1000000 instructions exhausted") == true)
        try runtime.limit(memory: nil, instructions: nil)
        #expect(try runtime.run("return (require 'big')") == [1])
    }

    @Test func whatIsGone() throws {
        let (runtime, _) = try sandboxed()
        #expect(try runtime.run("return io, os, debug, dofile, loadfile, package.loadlib, package.searchpath")
                == [.nil, .nil, .nil, .nil, .nil, .nil, .nil])
        #expect(try runtime.run("return package.cpath") == [""])
    }

    @Test func theCollectorIsRefusedOnlyWhatCouldStopOrTuneItNamingTheCallersLine() throws {
        let (runtime, _) = try sandboxed()
        #expect(try runtime.run("return collectgarbage('count') > 0, collectgarbage(), type(collectgarbage('step')), collectgarbage('isrunning')")
                == [.boolean(true), .integer(0), "boolean", .boolean(true)])
        let error = luaError { try runtime.run("local x = 1\ncollectgarbage('stop')", name: "=gc.lua") }
        #expect(error?.message == "gc.lua:2: collectgarbage('stop') is not allowed in the sandbox")
        #expect(error?.traceback?.contains("[sandbox]") == false)
        #expect(luaError { try runtime.run("collectgarbage(5)") }?.message.hasSuffix("collectgarbage('5') is not allowed in the sandbox") == true)
    }

    /// Each of these must fail with an error (and never reach the system or crash).
    @Test(arguments: [
        // Modules from outside the app's folder, however package.path is set.
        "package.path = '/etc/?;/usr/share/lua/5.4/?.lua' return require 'passwd'",
        "package.path = '/usr/share/lua/5.4/?.lua;' .. package.path return require 'posix'",
        "package.cpath = '/usr/lib/x86_64-linux-gnu/?.so' return require 'lua5.4'",
        "package.searchers[3] = nil return require 'socket'",
        // Binary chunks, however they are asked for.
        "return assert(load(string.dump(function() end)))",
        "string.gsub = function() return 'b' end return assert(load(string.dump(function() end), 'x', 'b'))",
        "return assert(load(string.dump(function() end), 'x', 'bt', {}))",
        // The shared string metatable.
        "getmetatable('').__index = function() return 'pwned' end",
        "getmetatable('').__index.upper = nil",
        // Finalizers (hooks are off while they run: an endless one could not be stopped).
        "setmetatable({}, { __gc = function() while true do end end })",
        // The collector.
        "collectgarbage('stop')",
        "collectgarbage('generational')",
        "collectgarbage('incremental', 1000, 1000)",
        // Swift objects' metatables.
        "getmetatable(top()).__index = nil",
        "getmetatable(require('coordinator').coordinator('X')).__index.push = nil; return top():title()",
        // Environments: load with a table cannot reach more than the sandbox has.
        "return load('return io or os or debug', 'x', 't', _G)() or error('nothing')",
        "return load('return require', 'x', 't', {})() or error('no require in an empty environment')",
    ])
    func escapesFail(_ code: String) throws {
        let (runtime, _) = try sandboxed()
        let before = runtime.app.window.visibleStack.map(\.id)
        #expect(throws: (any Error).self, "\(code)") { try runtime.run(code) }
        #expect(runtime.app.window.visibleStack.map(\.id) == before)
        #expect(try runtime.run("return ('ok'):upper()") == ["OK"]) // strings still work
    }

    /// Coroutines cannot carry code past the sandbox either.
    @Test func coroutineTricks() throws {
        let (runtime, _) = try sandboxed()
        runtime.lua.instructionBudget = 1_000_000
        let error = luaError { try runtime.run("local co = coroutine.wrap(function() while true do coroutine.yield() end end) while true do co() end") }
        #expect(error?.kind == .budgetExhausted)
        runtime.lua.instructionBudget = nil
        // Yielding across the bridge (from a handler Swift called) is an error, not a jump over Swift.
        try runtime.run("top().onGo = function() coroutine.yield() end")
        #expect(luaError { try runtime.run("coroutine.wrap(function() tap('go') end)()") }?.message.contains("yield") == true)
        #expect(runtime.app.window.visibleScreen?.name == "Home")
    }

    /// The driver functions stay opt-in in a sandbox too.
    @Test func anEmbeddedSandboxHasNoDriverFunctions() throws {
        let runtime = try ScriptRuntime(sandbox: true)
        #expect(try runtime.run("return tap, back, top") == [.nil, .nil, .nil])
    }
}
