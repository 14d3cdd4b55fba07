import CoordinatorTools

/// `coordrun explore --workers N`: worker processes of this program (`coordrun explore --expand -`), each
/// with a runtime of its own, on pipes. A worker is handed a batch of requests (a line each, then an empty
/// line) while idle and answers a line for each (``Explorer/answer(_:)``); whichever answers first gets the
/// next batch. A worker that stops before it answered its whole batch (killed, out of memory) is replaced,
/// and the batch goes to another: a batch that stopped ``attempts`` workers ends the exploration instead.
final class ExploreWorkers: ExploreWorkforce {
    /// How many workers may stop on one batch before the exploration gives up on it.
    static let attempts = 3

    private let command: [String]
    private var slots: [Processes.Child?]

    /// `count` workers (started when first needed), each `coordrun explore --expand -` with `arguments`
    /// (the script, and the options that make a runtime the same as this process's).
    init(count: Int, arguments: [String]) {
        command = [CommandLine.arguments[0], "explore", "--expand", "-"] + arguments
        slots = Array(repeating: nil, count: max(count, 1))
    }

    deinit { for case let child? in slots { _ = Processes.finish(child) } }

    func expand(_ batches: [[ExploreRequest]], take: (Int, [Explorer.Expansion]) throws -> Bool) throws {
        var queue = Array(batches.indices.reversed()) // the next batch last
        var stopped = Array(repeating: 0, count: batches.count)
        var busy: [Int: Int] = [:] // slot: batch
        var answered = 0
        // Stopping early (a limit met) leaves busy workers answering: they are stopped, not misread later.
        defer { for slot in busy.keys { if let child = slots[slot] { Processes.stop(child) }; slots[slot] = nil } }
        while answered < batches.count {
            for slot in slots.indices where busy[slot] == nil {
                guard let batch = queue.popLast() else { break }
                guard let child = try worker(slot) else { queue.append(batch); break }
                let lines = batches[batch].map { $0.line + "\n" }.joined() + "\n"
                busy[slot] = batch
                if !Processes.send(lines, to: child) { try lost(slot, batch, &queue, &stopped, batches); busy[slot] = nil }
            }
            if busy.isEmpty { continue } // every batch handed out went back to the queue
            let waiting = busy.keys.sorted()
            guard let ready = Processes.firstReadable(waiting.compactMap { slots[$0] }) else {
                throw Explorer.WorkerFailure(message: "cannot wait for the worker processes")
            }
            let slot = waiting[ready]
            guard let child = slots[slot], let batch = busy.removeValue(forKey: slot) else { continue }
            var expansions: [Explorer.Expansion] = []
            for _ in batches[batch] {
                guard let line = Processes.readLine(from: child) else { break }
                expansions.append(try Explorer.Expansion(answer: line))
            }
            guard expansions.count == batches[batch].count else {
                try lost(slot, batch, &queue, &stopped, batches)
                continue
            }
            answered += 1
            guard try take(batch, expansions) else { return }
        }
    }

    /// The worker in `slot`, started if it is not running.
    private func worker(_ slot: Int) throws -> Processes.Child? {
        if let child = slots[slot] { return child }
        guard let child = Processes.spawn(command) else { throw Explorer.WorkerFailure(message: "cannot start a worker process") }
        slots[slot] = child
        return child
    }

    /// The worker in `slot` stopped before answering `batch`: it is gone, and the batch goes back to the
    /// front of the queue, unless it has stopped too many.
    private func lost(_ slot: Int, _ batch: Int, _ queue: inout [Int], _ stopped: inout [Int], _ batches: [[ExploreRequest]]) throws {
        let ending = slots[slot].flatMap(Processes.stop)
        slots[slot] = nil
        if case .exited(let status)? = ending, status != 0 { throw Explorer.WorkerFailure(message: Self.failed(status)) }
        stopped[batch] += 1
        let first = batches[batch].first?.index ?? 0, count = batches[batch].count
        guard stopped[batch] < Self.attempts else { throw Explorer.WorkerFailure(message: Self.givingUp(first: first, count: count)) }
        Terminal.writeError("explore: a worker stopped while expanding \(Self.states(first: first, count: count)); another expands them\n")
        queue.append(batch)
    }

    /// A batch's states as a message names them: `state 4`, `states 120–135`.
    static func states(first: Int, count: Int) -> String { count == 1 ? "state \(first)" : "states \(first)–\(first + count - 1)" }

    /// Why the exploration ends when a worker ended with an error of its own (it wrote why).
    static func failed(_ status: Int32) -> String {
        "a worker could not go on (exit status \(status); it says why above)"
    }

    /// Why the exploration ends when a batch stopped ``attempts`` workers.
    static func givingUp(first: Int, count: Int) -> String {
        "\(attempts) workers stopped while expanding \(states(first: first, count: count)) (a state there ends the process that expands it)"
    }

    /// A worker: reads batches of requests (a line each, an empty line after each batch) from standard
    /// input until its end, and answers each batch, a line for each request, flushed once the batch is done.
    static func serve(explorer: Explorer) throws {
        _ = try explorer.start()
        var batch: [String] = []
        while let line = readLine() {
            guard line.isEmpty else { batch.append(line); continue }
            // A request that cannot be read is answered with why; the others are expanded together.
            let requests = batch.map { line in Result { try ExploreRequest(line: line) } }
            var answers = explorer.answers(requests.compactMap { try? $0.get() })[...]
            for (line, request) in zip(batch, requests) {
                switch request {
                case .success: Terminal.writeOut((answers.popFirst() ?? "") + "\n")
                case .failure: Terminal.writeOut(explorer.answer(line) + "\n") // says why it cannot be read
                }
            }
            Terminal.flushOut()
            batch.removeAll(keepingCapacity: true)
        }
    }
}
