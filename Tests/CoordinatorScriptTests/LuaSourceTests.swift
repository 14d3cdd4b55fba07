import Testing
@testable import CoordinatorScript

/// How live edit reads a Lua file without running it: where each function is, what names it, and the
/// file-level locals with their initializers.
@Suite struct LuaSourceTests {
    static let text = """
        local flow = require "coordinator"
        local counter = { n = 0 }          -- state
        local CITIES <const> = {
          "Moscow",
          "Kazan",
        }
        local function describe(n) return "n = " .. n end
        function App:start()
          local s = self:push("C", { n = counter.n })
          s.onShow = function() print(describe(counter.n)) end
          s.onInc = function() counter.n = counter.n + 1 end
        end
        """

    @Test func functionsAreNamedByNameAndTarget() {
        let source = LuaSource(Self.text)
        let names = source.functions.indices.map { source.displayName(of: $0) }
        #expect(names == ["describe", "App:start", "s.onShow in App:start", "s.onInc in App:start"])
        let inc = source.functions.indices[3]
        #expect(source.path(of: inc) == ["name App:start#0", "target s.onInc#0"])
        #expect(source.function(at: source.path(of: inc)) == inc)
        #expect(source.functions[1].parameterCount == 1) // self
        #expect(source.functions[0].parameterCount == 1)
    }

    @Test func aHandlerAddedAboveAnotherKeepsTheOthersPath() {
        let before = LuaSource(Self.text)
        let after = LuaSource(Self.text.replacingOccurrences(of: "  s.onShow =", with: "  s.onReset = function() end\n  s.onShow ="))
        for i in before.functions.indices {
            let moved = after.function(at: before.path(of: i))
            #expect(moved.map { after.displayName(of: $0) } == before.displayName(of: i))
        }
    }

    @Test func fileLocalsHaveTheirInitializers() {
        let source = LuaSource(Self.text)
        #expect(source.fileLocals.map(\.name) == ["flow", "counter", "CITIES", "describe"])
        #expect(source.fileLocals[1].initializer == "{ n = 0 }")
        #expect(source.fileLocals[2].isConst && source.fileLocals[2].initializer == #"{ "Moscow" , "Kazan" , }"#)
        #expect(source.fileLocals[0].initializer == #"require "coordinator""#)
        // `counter` inside the handlers is the file-level one; `s` is start's.
        let inc = source.functions.indices[3]
        #expect(source.fileLocal(named: "counter", visibleFrom: inc)?.key == "counter")
        #expect(source.fileLocal(named: "s", visibleFrom: inc) == nil)
    }

    @Test func aFunctionsOwnTextLeavesOutTheHandlersItSets() {
        let before = LuaSource(Self.text)
        let after = LuaSource(Self.text.replacingOccurrences(of: "counter.n + 1", with: "counter.n + 2"))
        let start = before.functions.indices[1]
        #expect(before.source(of: start) != after.source(of: start))
        #expect(before.ownSource(of: start) == after.ownSource(of: start))
    }
}
