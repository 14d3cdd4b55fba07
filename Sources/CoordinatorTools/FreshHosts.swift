import CoordinatorScript

/// Hosts (a runtime, a test harness) for pieces of work — a route opened, a test run — each host as a
/// fresh one would be, without making one per piece: after a piece, the host's app is taken back to where
/// a fresh host's starts (`reset`), and the host serves the next piece only if its exact state identity
/// (``ScriptRuntime/stateIdentity(views:also:excluding:)``: the navigation and everything the scripts' Lua can reach) is
/// then the one it had when it was made. A piece that left a trace (a global set, a module's table
/// changed, a random number drawn) costs a new host for the next. The work is linear in the number of
/// pieces when they leave no trace, where a new host per piece loads the whole script each time.
final class FreshHosts<Host> {
    private let make: () throws -> Host
    private let runtime: (Host) -> ScriptRuntime
    private let identity: (Host) throws -> StateIdentity
    private let reset: (Host) throws -> Void
    /// A host that served no piece since it was made or found clean, and its identity when made.
    private var clean: (host: Host, identity: StateIdentity)?
    /// The identity of the host now serving, when it was made.
    private var serving: StateIdentity?
    /// How many hosts were made.
    private(set) var made = 0

    /// Hosts made by `make` (a host whose app is where every piece starts), each with its `runtime`, taken
    /// back to that start by `reset`; `identity` is a host's exact state identity (by default its runtime's,
    /// without views).
    init(make: @escaping () throws -> Host, runtime: @escaping (Host) -> ScriptRuntime,
         identity: ((Host) throws -> StateIdentity)? = nil, reset: @escaping (Host) throws -> Void) {
        self.make = make
        self.runtime = runtime
        self.identity = identity ?? { try runtime($0).stateIdentity(views: false) }
        self.reset = reset
    }

    /// `host` as the first host, made already (the one that listed the work).
    func adopt(_ host: Host) throws {
        made += 1
        clean = (host, try identity(host))
    }

    /// A host as fresh as a new one, for the next piece.
    func next() throws -> Host {
        if let clean {
            self.clean = nil
            serving = clean.identity
            return clean.host
        }
        let host = try make()
        made += 1
        serving = try identity(host)
        return host
    }

    /// The piece `host` served is done: the host serves again if it comes back clean, else it is closed.
    func done(_ host: Host) {
        guard let identity = serving else { return }
        serving = nil
        let lua = runtime(host).lua
        if (try? reset(host)) != nil, (try? self.identity(host)) == identity {
            clean = (host, identity)
        } else {
            lua.close()
        }
    }

    /// Closes the host kept for a next piece.
    func close() {
        if let clean { runtime(clean.host).lua.close() }
        clean = nil
    }
}
