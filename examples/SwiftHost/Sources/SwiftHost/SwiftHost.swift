import Foundation
import Synchronization
import CoordinatorCore
import CoordinatorLua
import CoordinatorScript

/// A Swift host embedding the coordinator runtime as a client package would: an app host on the main actor
/// with its own router, a Swift screen and a Swift service coordinator beside the Lua flows, a runaway
/// script stopped by cancelling its task, and server-style sessions running side by side, each user's
/// storage kept in the host's database across sessions.
/// Run it: swift run --package-path examples/SwiftHost (it exits 1 if anything is not as shown).
@main
struct SwiftHost {
    static func main() async {
        do {
            let flows = try flowsURL()
            try await appHost(flows: flows)
            try await serverSessions(flows: flows)
            try await conversation(flows: flows)
            print("SwiftHost: every check passed")
        } catch {
            print("SwiftHost failed: \(error)")
            exit(1)
        }
    }

    /// The Lua flows, shipped as a resource of this target.
    static func flowsURL() throws -> URL {
        guard let url = Bundle.module.url(forResource: "app", withExtension: "lua", subdirectory: "flows") else {
            throw HostError("flows/app.lua is missing from the bundle")
        }
        return url
    }

    /// What every runtime of this host gets before its scripts load: the Swift screen type and service.
    static func setUp(_ runtime: ScriptRuntime) {
        runtime.app.catalog.register(profileScreenType())
        runtime.registerCoordinator("ProfileStore") { ProfileStore(name: "ProfileStore") }
    }

    /// An app host: the runtime lives on the main actor, where UIKit or SwiftUI would use it.
    @MainActor
    static func appHost(flows: URL) async throws {
        print("== an app host on the main actor")
        // `syncDone()`, a Swift function the flow calls while it waits for a sync: it never says done, and
        // tells the host the first time it is asked.
        let (syncing, syncingContinuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let host = try ScriptHost(timeLimit: 5) { runtime in
            setUp(runtime)
            try runtime.lua.globals.set("syncDone", runtime.lua.function(name: "syncDone") { () -> Bool in
                syncingContinuation.yield()
                return false
            })
        }
        host.runtime.app.observe { event in print("event: \(event)") }
        try await host.load(script: flows)
        try await host.start { app in LoggingRouter(wrapping: app.headlessRouter()) { print($0) } }

        try await host.tap("login", payload: ["name": "Ann", "password": "secret"])
        try check(try await host.visibleStack() == ["Login"], "signing in waits for the password check")
        try await host.answer("checkPassword", outcome: "ok") // the host's answer, when its API replies
        try await host.tap("save", payload: "Ann Smith")
        let profile = try host.runtime.app.window.visibleScreen?.render()
        print("screen: \(profile ?? "nothing")")
        try check(profile == "Name: Ann Smith (saved #1)", "the Swift service answered the Lua flow")

        // A Lua error that is a table reaches Swift with its fields.
        do {
            try await host.run("error({ code = 404, reason = 'no such profile' })")
            throw HostError("the error was not raised")
        } catch let error as LuaError {
            print("a table error: code \(error.value?["code"] ?? .nil), reason \(error.value?["reason"] ?? .nil)")
            try check(error.value?["code"] == .integer(404), "the error's code field is read from Swift")
        }

        // The runaway handler freezes the main actor; a task elsewhere cancels it.
        let sync = Task { @MainActor in
            defer { syncingContinuation.finish() }
            try await host.tap("sync")
        }
        let canceller = Task.detached { () -> ContinuousClock.Instant in
            var waiting = syncing.makeAsyncIterator()
            _ = await waiting.next()
            let now = ContinuousClock.now
            sync.cancel()
            return now
        }
        let outcome = await sync.result
        let took = ContinuousClock.now - (await canceller.value)
        guard case .failure(let error as LuaError) = outcome else { throw HostError("the runaway handler was not stopped") }
        print("the runaway handler stopped \(took.formatted(.units(allowed: [.milliseconds], fractionalPart: .show(length: 2)))) after its task was cancelled: \(error.reason)")
        try check(took < .milliseconds(100), "cancelling stops the handler within 100 ms")
        try check(host.runtime.app.window.visibleScreen?.name == "Profile", "the stopped tap changed nothing")

        try await host.tap("logout")
        try check(try await host.visibleStack() == ["Login"], "the app goes on after the stopped handler")
    }

    /// Server-style hosts: one session per user, each its own runtime on its own actor, side by side.
    static func serverSessions(flows: URL) async throws {
        print("== sessions side by side")
        let names = ["Bo", "Cy", "Di"]
        let database = Database()
        let results = try await withThrowingTaskGroup(of: (String, String).self) { group in
            for name in names {
                group.addTask {
                    let session = try ScriptSession(timeLimit: 1) { setUp($0) }
                    // The user's storage lives in the host's database: plugged in before the scripts load.
                    try await session.useStorage { UserStorage(database: database, user: name) }
                    let events = await session.events()
                    // The password check is Swift's: an API call in a real server, answered on the session.
                    await session.registerRequest("checkPassword") { credentials in
                        return credentials?["password"] == "secret" ? ("ok", ["token": .string("t-" + name)]) : ("refused", nil)
                    }
                    try await session.load(script: flows)
                    try await session.start()
                    try await session.tap("login", payload: ["name": .string(name), "password": "secret"])
                    await session.answersSettled()
                    try await session.tap("save", payload: "\(name) Smith")
                    var first = events.makeAsyncIterator()
                    let event = await first.next().map { "\($0)" } ?? "none"
                    let status = try await session.withRuntime { $0.app.window.visibleScreen?["status"]?.stringValue }
                    // The next message of this user: a new session, whose storage says who signed in.
                    let next = try ScriptSession(timeLimit: 1) { setUp($0) }
                    try await next.useStorage { UserStorage(database: database, user: name) }
                    try await next.load(script: flows)
                    try await next.start()
                    let resumed = try await next.withRuntime { $0.app.window.visibleScreen?["name"]?.stringValue }
                    guard resumed == name else { throw HostError("\(name)'s next session did not start signed in (\(resumed ?? "no name"))") }
                    // Ten minutes of the app's clock later (a host drives it from real time), the session ends.
                    try await session.advance(by: 600)
                    let after = try await session.visibleStack()
                    return (name, "\(status ?? "?"), first event: \(event), after 600 s: \(after.joined(separator: " > "))")
                }
            }
            var results: [String: String] = [:]
            for try await (name, result) in group { results[name] = result }
            return results
        }
        for name in names { print("\(name): \(results[name] ?? "no result")") }
        try check(names.allSatisfy { results[$0]?.hasPrefix("saved #1") == true }, "each session has its own store")
        try check(names.allSatisfy { results[$0]?.hasSuffix("after 600 s: Login") == true }, "each session's sign-in lasts 600 s of its clock")
        // Signed out by then: the database keeps nobody, and a token never was in a snapshot.
        try check(names.allSatisfy { database.values(of: $0).isEmpty }, "the sign-out emptied each user's storage")
    }

    /// A conversation kept as snapshots, as a chat server keeps one per user: each message a new session
    /// that restores the user's last snapshot, takes one step and saves a snapshot. A user who mistypes the
    /// password again and again goes round a loop (sign in, refused, OK); sessions drop their steps' loops,
    /// so the snapshot saved keeps only the path and the hundredth message restores as fast as the first.
    static func conversation(flows: URL) async throws {
        print("== a conversation kept as snapshots")
        let messages: [@Sendable (ScriptSession) async throws -> Void] = [
            { try await $0.tap("login", payload: ["name": "Ed", "password": "wrong"]) },
            { try await $0.answer("checkPassword", outcome: "refused", value: ["reason": "wrong password"]) },
            { try await $0.tap("OK") },
        ]
        var saved: String?
        var longest = 0
        for i in 0..<99 {
            let session = try ScriptSession(timeLimit: 1) { setUp($0) }
            try await session.load(script: flows)
            if let saved { try await session.restore(saved) } else { try await session.start() }
            try await messages[i % messages.count](session)
            let json = try await session.snapshot()
            longest = max(longest, try FlowValue(json: json)["steps"]?.listValue?.count ?? 0)
            saved = json
        }
        let steps = try saved.map { try FlowValue(json: $0)["steps"]?.listValue?.count ?? 0 } ?? -1
        print("99 messages: the longest snapshot replays \(longest) steps, the last \(steps)")
        try check(longest <= 2 && steps == 0, "a conversation that goes round a loop keeps only its path")
    }

    static func check(_ condition: Bool, _ what: String) throws {
        guard condition else { throw HostError("not so: \(what)") }
        print("ok: \(what)")
    }
}

/// The host's database of the apps' storage, per user (a real server's would be PostgreSQL or Redis).
final class Database: Sendable {
    private let rows = Mutex<[String: FlowRecord]>([:])
    func values(of user: String) -> FlowRecord { rows.withLock { $0[user] ?? [:] } }
    func save(_ values: FlowRecord, of user: String) { rows.withLock { $0[user] = values } }
}

/// One user's storage in the host's database: what `flow.storage` reads and writes for that user's sessions.
final class UserStorage: ScriptStorage {
    let database: Database
    let user: String
    init(database: Database, user: String) { (self.database, self.user) = (database, user) }
    func load() throws -> FlowRecord { database.values(of: user) }
    func save(_ values: FlowRecord) throws { database.save(values, of: user) }
}

/// A failed check of this example.
struct HostError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
