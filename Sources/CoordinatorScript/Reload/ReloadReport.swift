/// What a reload did: which live code changed, what was added or removed, what could not be applied.
///
/// Its description is what `:reload` and `--watch` print:
///
/// ```
/// reloaded app.lua: 1 handler changed, 1 added
///   changed   s.onInc in App:start (app.lua:8), 1 live
///   added     s.onReset in App:start (app.lua:10) on C#3
///   kept      counter (app.lua:2): its initializer changed; the old value is kept (`:reload counter` takes the new one)
/// ```
public struct ReloadReport: CustomStringConvertible, Sendable {
    /// The files that were run again.
    public var files: [String]
    /// Functions whose code changed, with the number of live closures of each now running it
    /// (`s.onInc in App:start (app.lua:8)`). Handlers that only moved are not here.
    public var changedHandlers: [(function: String, live: Int)] = []
    /// Live closures now running changed code (the sum of ``changedHandlers``' counts).
    public var updatedHandlers: Int { changedHandlers.reduce(0) { $0 + $1.live } }
    /// Live closures whose text is the same but moved in the file: rebuilt so that their errors name the
    /// right lines.
    public var movedHandlers = 0
    /// Live closures whose code did not change.
    public var unchangedHandlers = 0
    /// Handlers added to code that already ran, each with the live object it now reaches
    /// (`s.onReset in App:start (app.lua:10) on C#3`).
    public var addedHandlers: [String] = []
    /// Handlers removed from code that already ran, each with the live object it left.
    public var removedHandlers: [String] = []
    /// File-level local functions whose code changed (`helper (app.lua:3)`): every caller now runs the
    /// new code.
    public var changedFunctions: [String] = []
    /// Screen types whose inputs or outputs changed (or that are new), with the live screens it affects.
    public var changedScreenTypes: [String] = []
    /// Coordinator methods added (`App:help`).
    public var addedMethods: [String] = []
    /// Coordinator methods removed from the files (and from their classes).
    public var removedMethods: [String] = []
    /// File-level locals whose initializer changed and that kept their old value (the app's state).
    public var keptLocals: [String] = []
    /// File-level locals that took their new value (static data, or asked for fresh).
    public var renewedLocals: [String] = []
    /// What could not be applied, each with its place and why (`app.lua:58: ...`): the live code keeps the
    /// old version.
    public var keptHandlers: [String] = []
    /// New handlers in code whose objects are not live: they apply when that code runs again.
    public var waitingHandlers: [String] = []

    /// A report for `files` with nothing changed yet.
    public init(files: [String]) { self.files = files }

    /// The summary line, then one line per change (what `:reload` prints).
    public var description: String {
        var summary: [String] = []
        func count(_ n: Int, _ what: String) { if n > 0 { summary.append("\(n) \(what)") } }
        count(changedHandlers.count, changedHandlers.count == 1 ? "handler changed" : "handlers changed")
        count(changedFunctions.count, changedFunctions.count == 1 ? "function changed" : "functions changed")
        count(addedHandlers.count, "added")
        count(removedHandlers.count, "removed")
        count(changedScreenTypes.count, changedScreenTypes.count == 1 ? "screen type changed" : "screen types changed")
        count(addedMethods.count + removedMethods.count, "method" + (addedMethods.count + removedMethods.count == 1 ? "" : "s") + " added or removed")
        count(keptHandlers.count, "not applied")
        var text = "reloaded \(files.joined(separator: ", ")): " + (summary.isEmpty ? "no live code changed" : summary.joined(separator: ", "))
        func lines(_ label: String, _ items: [String]) {
            for item in items { text += "\n  " + label.padding(to: 12) + item }
        }
        lines("changed", changedHandlers.map { "\($0.function), \($0.live) live" })
        lines("changed", changedFunctions)
        lines("added", addedHandlers)
        lines("removed", removedHandlers)
        lines("screen", changedScreenTypes)
        lines("method", addedMethods.map { "+" + $0 } + removedMethods.map { "-" + $0 })
        lines("kept", keptLocals)
        lines("new value", renewedLocals)
        lines("not applied", keptHandlers)
        lines("waiting", waitingHandlers)
        return text
    }
}
