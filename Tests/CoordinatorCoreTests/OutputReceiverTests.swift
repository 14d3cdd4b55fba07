import Testing
import CoordinatorCore

/// A receiver that records what reaches it, for the outputs in `listening`.
private final class Recorder: OutputReceiver {
    var heard: [(slot: Int, payload: FlowValue?)] = []
    var listening: Set<Int>
    var forgotten: [Int?] = []
    init(listening: Set<Int>) { self.listening = listening }
    func receive(output slot: Int, of screen: Screen, payload: FlowValue?) throws -> Bool {
        guard listening.contains(slot) else { return false }
        heard.append((slot, payload))
        return true
    }
    func listens(to slot: Int) -> Bool { listening.contains(slot) }
    func forget(slot: Int?) {
        forgotten.append(slot)
        if let slot { listening.remove(slot) } else { listening.removeAll() }
    }
}

@Suite struct OutputReceiverTests {
    @Test func outputsWithoutASwiftHandlerReachTheReceiverBySlot() throws {
        let app = Application(state: .main)
        app.catalog.register(ScreenType("Pick", outputs: [OutputSpec("a"), OutputSpec("b", payload: .value)]))
        let screen = try app.catalog.make("Pick")
        let recorder = Recorder(listening: [0, 1])
        screen.outputReceiver = recorder
        try screen.emit("b", payload: 5)
        #expect(recorder.heard.map(\.slot) == [1] && recorder.heard.first?.payload == 5)
        #expect(app.unheard.count == 0)
        recorder.listening = [1]
        try screen.emit("a") // nothing hears it: counted, with its screen
        #expect(app.unheard.count == 1 && app.unheard.last?.output == "a" && app.unheard.last?.screen == screen.info)
        recorder.listening = [0, 1]
        #expect(screen.hasHandler(for: "a") && !screen.hasOwnHandler(for: "a"))

        // A Swift handler goes first and tells the receiver to forget its own.
        var swift = 0
        try screen.on("a") { _ in swift += 1 }
        try screen.emit("a")
        #expect(swift == 1 && recorder.forgotten == [0] && recorder.heard.count == 1)
        screen.removeHandler(for: "a")
        #expect(!screen.hasHandler(for: "a"))
        screen.removeAllHandlers()
        #expect(recorder.forgotten.last == .some(nil) && !screen.hasHandler(for: "b"))
        #expect(screen.slot(ofOutput: "b") == 1 && screen.slot(ofOutput: "c") == nil)
        #expect(screen.outputSlot(forHandler: "onB")?.slot == 1 && screen.outputSlot(forHandler: "onC") == nil)
    }

    @Test func aRedefinitionKeepsEachOutputsSlot() throws {
        let type = ScreenType("T", outputs: [OutputSpec("x"), OutputSpec("y")])
        #expect(type.outputSlots == [0, 1])
        type.redefine(like: ScreenType("T", outputs: [OutputSpec("z"), OutputSpec("y")]))
        #expect(type.outputSlots == [2, 1])      // y keeps its slot; z is new
        type.redefine(like: ScreenType("T", outputs: [OutputSpec("x"), OutputSpec("z")]))
        #expect(type.outputSlots == [0, 2])      // x comes back to its old slot
    }
}

/// A screen type's whole definition comes back when its redefinition is undone: examples and conditions
/// too, not only inputs, outputs and rendering.
@Suite struct RedefinitionTests {
    @Test func anUndoneRedefinitionPutsBackExamplesAndConditions() throws {
        let app = Application(state: .main)
        let type = ScreenType("Login", inputs: ["admin"], outputs: [OutputSpec("login", payload: .value), OutputSpec("reset")])
        try type.setExamples(["login": ["ann"]])
        try type.setConditions(["reset": OutputCondition(place: "app.lua:3") { $0["admin"] == true }])
        app.catalog.register(type)
        struct Failed: Error {}
        #expect(throws: Failed.self) {
            try app.atomically {
                app.catalog.register(ScreenType("Login", outputs: [OutputSpec("login", payload: .value)]))
                throw Failed()
            }
        }
        let restored = try #require(app.catalog.types["Login"])
        #expect(restored.examples["login"] == ["ann"])
        #expect(restored.conditions["reset"]?.place == "app.lua:3")
        let screen = try app.catalog.make("Login", inputs: ["admin": false])
        #expect(try screen.offeredOutputs().map(\.name) == ["login"])
    }
}
