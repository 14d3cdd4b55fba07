import Foundation
import CoordinatorCore
import CoordinatorLua
import CoordinatorScript
import CoordinatorTools

// What the docs' snippets take as given (a runtime, a Lua state, the host's own types), so that each
// compiles as written: names a snippet's own declarations shadow. Nothing here runs: the snippets are
// compiled, not called.

/// Where most snippets are compiled: a host with a runtime, its app and a Lua state at hand.
enum DocSnippets {}

/// Where snippets written inside a coordinator are compiled (`push`, `run` and `finish` are its own).
final class DocCoordinator: Coordinator {}

var runtime: ScriptRuntime { unreachable() }
var app: Application { unreachable() }
var lua: LuaState { unreachable() }
var repl: REPL { unreachable() }
/// A Swift function's call, in the docs of functions Lua calls.
var call: LuaCall { unreachable() }
var handler: LuaFunction { unreachable() }
var f: LuaFunction { unreachable() }
var newVersion: LuaFunction { unreachable() }
var payload: FlowValue { unreachable() }
var code: String { unreachable() }
var flag: LuaCancellation { unreachable() }
var path: String { unreachable() }
var flowsURL: URL { unreachable() }
var regions: FlowValue { unreachable() }
var federal: FlowValue { unreachable() }
var user: FlowValue { unreachable() }
var storage: Coordinator { unreachable() }
var coordinator: Coordinator { unreachable() }
var details: Screen { unreachable() }
var alert: Screen { unreachable() }
var newNoteScreen: Screen { unreachable() }
let log = Log()
var session: ScriptSession { unreachable() }
/// A host's own API: a password check that answers a token, or nil.
struct PasswordAPI: Sendable { func check(_ credentials: FlowValue?) async throws -> String? { nil } }
let api = PasswordAPI()
/// A server's database of the apps' storage, per user.
final class Database: Sendable {
    func values(of user: String) -> FlowRecord { [:] }
    func save(_ values: FlowRecord, of user: String) {}
}
let database = Database()
var name: String { unreachable() }
func save(_ value: FlowValue?) throws {}
func profileScreenType() -> ScreenType { ScreenType("Profile") }
final class ProfileStore: Coordinator {}
final class StorageCoordinator: Coordinator {}

/// A logger: `log(event)`, `log.warning(text)`.
struct Log {
    func callAsFunction(_ event: NavigationEvent) {}
    func warning(_ text: String) {}
}

/// The value of a name a snippet takes as given: never asked for.
func unreachable<T: ~Copyable>() -> T { preconditionFailure("the docs' snippets are compiled, not run") }
