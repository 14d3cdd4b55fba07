import CoordinatorTools

/// `coordrun explore SCRIPT --queue postgres://…`: the search coordinated through a PostgreSQL database,
/// its workers anywhere (`coordrun explore --worker postgres://…`, and `--workers N` started here).
///
/// A run is a row of `coordrun_explore_runs`: the scripts' digest, the options that make a worker's
/// runtime the same as this process's, the snapshot explored from, the lease. The visited set is
/// `coordrun_explore_states` (each state's number, identity and shortest path), each level's batches are
/// rows of `coordrun_explore_batches` (a range of state numbers; the answers, a line a state, once
/// answered). A worker claims the first unclaimed batch (`FOR UPDATE SKIP LOCKED`) with a lease it renews
/// while it works; a batch whose lease ran out (its worker died or lost the database) is claimed again.
/// The first answer stored wins (every answer to a batch is the same). This process takes the answers in
/// as they come and merges them in the level's order (``ExploreLevels``), so the report is one process's.
final class ExploreQueue: ExploreWorkforce {
    /// The notification channels: a run's new batches, a run's answers, new runs.
    static func batchesChannel(_ run: String) -> String { "coordrun_explore_" + run }
    static func answersChannel(_ run: String) -> String { "coordrun_explore_done_" + run }
    static let runsChannel = "coordrun_explore_runs"

    /// The tables, made once per database (under a lock: two coordinators may start together):
    /// explore_queue.sql, beside this file.
    static let schema = EmbeddedFile.exploreQueueSql

    private let database: PostgresConnection
    private let url: String
    /// This run's id.
    let run: String
    private let lease: Double
    private var localWorkers: [Processes.Child?]
    private var lastBeat = Processes.nanoseconds()
    /// What checks the workers' answers (``AnswerCheck``).
    private let check: AnswerCheck

    /// A run of the exploration on the database at `url`: the scripts' `digest`, the `arguments` a worker
    /// explores with (the script first), the `snapshot` explored from; `localWorkers` workers started here.
    init(url: String, digest: String, arguments: [String], snapshot: String?, lease: Double, localWorkers count: Int, check: AnswerCheck) throws {
        self.check = check
        database = try PostgresConnection(url)
        // The workers started here connect without the password on their command lines: libpq reads it
        // from PGPASSWORD, which they inherit.
        let (workerURL, password) = PostgresURL.splittingPassword(url)
        if let password, count > 0 { Processes.setEnvironment("PGPASSWORD", password) }
        self.url = password != nil && count > 0 ? workerURL : url
        self.lease = lease
        try database.script(Self.schema)
        // Runs whose coordinator has been gone an hour are left-overs.
        try database.query("DELETE FROM coordrun_explore_runs WHERE alive_until < now() - interval '1 hour'")
        let row = try database.query("""
            INSERT INTO coordrun_explore_runs (script, digest, arguments, snapshot, lease, alive_until)
            VALUES ($1, $2, $3, $4, $5::float8, now() + make_interval(secs => 3 * $5::float8)) RETURNING id
            """, [arguments.first ?? "", digest, FlowValue.list(arguments.map(FlowValue.string)).json, snapshot, String(lease)])
        guard let id = row.first?.first ?? nil else { throw PostgresConnection.Failure(message: "PostgreSQL: no run id") }
        run = id
        try database.query("LISTEN " + Self.answersChannel(run))
        try database.query("SELECT pg_notify($1, $2)", [Self.runsChannel, run])
        localWorkers = Array(repeating: nil, count: max(count, 0))
        for slot in localWorkers.indices { try startWorker(slot) }
    }

    /// The run's rows go (the report is the result), and its workers end.
    deinit {
        _ = try? database.query("DELETE FROM coordrun_explore_runs WHERE id = $1::bigint", [run])
        _ = try? database.query("SELECT pg_notify($1, '')", [Self.batchesChannel(run)])
        for case let child? in localWorkers { _ = Processes.finish(child) }
    }

    private func startWorker(_ slot: Int) throws {
        guard let child = Processes.spawn([CommandLine.arguments[0], "explore", "--worker", url, "--run", run]) else {
            throw Explorer.WorkerFailure(message: "cannot start a worker process")
        }
        localWorkers[slot] = child
    }

    func expand(_ batches: [[ExploreRequest]], take: (Int, [Explorer.Expansion]) throws -> Bool) throws {
        // The level's states join the visited set, its batches the queue.
        let states = batches.joined().map { FlowValue.list([.int($0.index), .string($0.key), .string(Explorer.value(of: $0.path).json)]) }
        try database.query("""
            INSERT INTO coordrun_explore_states (run, number, key, path)
            SELECT $1::bigint, (e->>0)::int, e->>1, e->>2 FROM jsonb_array_elements($2::jsonb) e
            """, [run, FlowValue.list(states).json])
        var byFirst: [Int: Int] = [:]
        for (i, batch) in batches.enumerated() { if let first = batch.first?.index { byFirst[first] = i } }
        let ranges = batches.map { FlowValue.list([.int($0.first?.index ?? 0), .int($0.count)]) }
        try database.query("""
            INSERT INTO coordrun_explore_batches (run, first, count)
            SELECT $1::bigint, (e->>0)::int, (e->>1)::int FROM jsonb_array_elements($2::jsonb) e
            """, [run, FlowValue.list(ranges).json])
        try database.query("SELECT pg_notify($1, '')", [Self.batchesChannel(run)])
        var answered = 0
        while answered < batches.count {
            try keepWorkersGoing()
            let rows = try database.query(
                "DELETE FROM coordrun_explore_batches WHERE run = $1::bigint AND answers IS NOT NULL RETURNING first, answers, worker", [run])
            for row in rows {
                guard row.count == 3, let first = row[0].flatMap({ Int($0) }), let batch = byFirst[first], let answers = row[1] else { continue }
                let worker = row[2] ?? "(unnamed)"
                // A worker anywhere is not believed: its answers are read as its word (a failure it claims is
                // checked here), and a share of them, and each with a finding, expanded again here.
                let expansions = try check.read(answers, to: batches[batch], from: worker)
                try check.check(batches[batch], expansions, from: worker)
                answered += 1
                guard try take(batch, expansions) else {
                    try database.query("DELETE FROM coordrun_explore_batches WHERE run = $1::bigint", [run])
                    return
                }
            }
            if rows.isEmpty { _ = try database.waitForNotification(milliseconds: Int(lease * 1000 / 3)) }
        }
    }

    /// Says the run is alive (a worker gives up on a run whose coordinator is gone), and starts a new local
    /// worker for one that was stopped (its batch is claimed again when its lease runs out).
    private func keepWorkersGoing() throws {
        if Double(Processes.nanoseconds() - lastBeat) / 1e9 > lease / 3 {
            try database.query("UPDATE coordrun_explore_runs SET alive_until = now() + make_interval(secs => 3 * lease) WHERE id = $1::bigint", [run])
            lastBeat = Processes.nanoseconds()
        }
        for slot in localWorkers.indices {
            guard let child = localWorkers[slot], let ending = Processes.ending(child) else { continue }
            localWorkers[slot] = nil
            // One that failed on its own would fail again: it said why.
            if case .exited(let status) = ending { throw Explorer.WorkerFailure(message: ExploreWorkers.failed(status)) }
            Terminal.writeError("explore: a worker stopped; what it held is claimed again when its lease ends (\(lease) s)\n")
            try startWorker(slot)
        }
    }
}

/// `coordrun explore --worker postgres://…`: joins a run (the newest, or `--run ID`) and expands the
/// batches it claims until the run ends.
struct ExploreQueueWorker {
    /// A run as its coordinator recorded it.
    struct Run {
        let id: String, script: String, digest: String, arguments: [String], snapshot: String?, lease: Double
    }

    let database: PostgresConnection
    let run: Run
    let explorer: Explorer
    private let name = Processes.hostName() + ":" + String(Processes.processID())

    /// The run `id` (nil: the newest one alive, waited for when there is none yet).
    static func join(_ database: PostgresConnection, id: String?) throws -> Run {
        try database.query("LISTEN " + ExploreQueue.runsChannel)
        var waited = false
        while true {
            let rows: [[String?]]
            do {
                rows = try database.query("""
                    SELECT id, script, digest, arguments, snapshot, lease FROM coordrun_explore_runs
                    WHERE alive_until > now() AND ($1::bigint IS NULL OR id = $1::bigint) ORDER BY id DESC LIMIT 1
                    """, [id])
            } catch let failure as PostgresConnection.Failure where failure.message.contains("does not exist") {
                rows = [] // no coordinator has made the tables yet
            }
            if let row = rows.first, row.count == 6, let id = row[0], let script = row[1], let digest = row[2], let arguments = row[3],
               let lease = row[5].flatMap({ Double($0) }) {
                let list = try FlowValue(json: arguments).listValue?.compactMap(\.stringValue) ?? []
                return Run(id: id, script: script, digest: digest, arguments: list, snapshot: row[4], lease: lease)
            }
            if let id { throw Explorer.WorkerFailure(message: "there is no exploration \(id) on the queue (finished, or never started)") }
            if !waited { Terminal.writeError("explore: waiting for an exploration on the queue\n"); waited = true }
            _ = try database.waitForNotification(milliseconds: 1000)
        }
    }

    init(database: PostgresConnection, run: Run, explorer: Explorer) throws {
        (self.database, self.run, self.explorer) = (database, run, explorer)
        let digest = explorer.runtime.scriptsDigest
        guard digest == run.digest else {
            throw Explorer.WorkerFailure(message: "this worker's scripts are not the ones exploration \(run.id) explores (\(run.script)): "
                + "theirs are \(run.digest), these \(digest); run the worker where the same scripts are checked out")
        }
        try database.query("LISTEN " + ExploreQueue.batchesChannel(run.id))
    }

    /// Claims and answers batches until the run ends; throws when its coordinator is gone.
    func serve() throws {
        _ = try explorer.start()
        Terminal.writeError("explore: working for exploration \(run.id) (\(run.script)) as \(name)\n")
        var (batches, states) = (0, 0)
        while true {
            if let answered = try claimAndAnswer() {
                (batches, states) = (batches + 1, states + answered)
                continue
            }
            let rows = try database.query("""
                SELECT alive_until > now(),
                       (SELECT extract(epoch FROM min(lease_until) - now()) FROM coordrun_explore_batches WHERE run = $1::bigint AND answers IS NULL)
                FROM coordrun_explore_runs WHERE id = $1::bigint
                """, [run.id])
            guard let row = rows.first, row.count == 2 else { // the run is over
                Terminal.writeError("""
                    explore: exploration \(run.id) ended; this worker expanded \(states) \
                    state\(states == 1 ? "" : "s") in \(batches) batch\(batches == 1 ? "" : "es")\n
                    """)
                return
            }
            guard row[0] == "t" else {
                throw Explorer.WorkerFailure(message: "the coordinator of exploration \(run.id) stopped saying it is alive")
            }
            // Until a batch comes, or a lease held elsewhere runs out.
            let untilLease = row[1].flatMap { Double($0) }.map { Int(max($0, 0) * 1000) + 10 } ?? 1000
            _ = try database.waitForNotification(milliseconds: min(untilLease, 1000))
        }
    }

    /// Claims the first batch nobody holds and answers it; how many states it had, nil when there was none.
    private func claimAndAnswer() throws -> Int? {
        let claimed = try database.query("""
            UPDATE coordrun_explore_batches b
            SET claims = b.claims + 1, worker = $2, lease_until = now() + make_interval(secs => r.lease)
            FROM coordrun_explore_runs r
            WHERE r.id = b.run AND b.run = $1::bigint AND b.first = (
              SELECT first FROM coordrun_explore_batches
              WHERE run = $1::bigint AND answers IS NULL AND (lease_until IS NULL OR lease_until < now())
              ORDER BY first LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING b.first, b.count, b.claims
            """, [run.id, name])
        guard let row = claimed.first, row.count == 3, let first = row[0].flatMap({ Int($0) }), let count = row[1].flatMap({ Int($0) }),
              let claims = row[2].flatMap({ Int($0) }) else { return nil }
        let answers: String
        if claims > ExploreWorkers.attempts {
            answers = FlowValue.record(["failed": .string(ExploreWorkers.givingUp(first: first, count: count))]).json
        } else {
            let states = try database.query("""
                SELECT number, key, path FROM coordrun_explore_states
                WHERE run = $1::bigint AND number >= $2::int AND number < $2::int + $3::int ORDER BY number
                """, [run.id, String(first), String(count)])
            var requests: [ExploreRequest] = []
            for state in states {
                guard state.count == 3, let number = state[0].flatMap({ Int($0) }), let key = state[1], let path = state[2] else { continue }
                requests.append(ExploreRequest(index: number, path: try Explorer.path(from: FlowValue(json: path)), key: key))
            }
            var renewed = Processes.nanoseconds()
            var renewalFailure: (any Error)?
            answers = explorer.answers(requests) {
                guard renewalFailure == nil, Double(Processes.nanoseconds() - renewed) / 1e9 > run.lease / 3 else { return }
                do {
                    try database.query("""
                        UPDATE coordrun_explore_batches SET lease_until = now() + make_interval(secs => $3::float8)
                        WHERE run = $1::bigint AND first = $2::int AND answers IS NULL
                        """, [run.id, String(first), String(run.lease)])
                } catch {
                    renewalFailure = error // the database is gone: said once the batch is done
                }
                renewed = Processes.nanoseconds()
            }.joined(separator: "\n")
            if let renewalFailure { throw renewalFailure }
        }
        // The first answer stored wins; the coordinator hears of it.
        try database.query("""
            WITH answered AS (
              UPDATE coordrun_explore_batches SET answers = $3, lease_until = NULL
              WHERE run = $1::bigint AND first = $2::int AND answers IS NULL RETURNING 1)
            SELECT pg_notify($4, '') FROM answered
            """, [run.id, String(first), answers, ExploreQueue.answersChannel(run.id)])
        return count
    }
}
