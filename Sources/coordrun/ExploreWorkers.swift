import CoordinatorTools

/// `coordrun explore --workers N`: the breadth-first search level by level, each level's states shared
/// among N worker processes (the same `coordrun`, in `--expand FILE` mode), which each expand theirs in a
/// runtime of their own and send the outcomes back as JSON lines; this process merges them in order, so
/// the report is the one a single process would give.
enum ExploreWorkers {
    /// Explores with `workers` processes; `arguments` are the options a worker needs besides its file (the
    /// script, `--state`, `--open` or `--restore`).
    static func run(explorer: Explorer, script: String, workers: Int, arguments: [String], catalog: [String]) throws -> ExploreReport {
        var children: [Platform.Child] = []
        defer { for child in children { _ = Platform.finish(child) } }
        for _ in 0..<workers {
            guard let child = Platform.spawn([CommandLine.arguments[0], "explore", "--expand", "-"] + arguments) else {
                throw WorkerFailure(message: "cannot start a worker process")
            }
            children.append(child)
        }
        var files = Set<String>()
        defer { for file in files { Platform.remove(file) } }
        var report = ExploreReport(script: script, base: try explorer.start(), limits: explorer.options, itemLabels: explorer.itemLabels)
        var level = [0]
        while !level.isEmpty, !report.cutByStates {
            let expandable = level.filter { report.states[$0].path.count < explorer.options.depth }
            if expandable.count < level.count { report.cutByDepth = true }
            report.unexpanded += level.count - expandable.count
            // Each worker gets its share of the level in a file (a path a line: a pipe of its own could fill
            // while the worker's answers fill the other way) and answers a line for each path.
            let shares = split(expandable, into: workers)
            for (i, (child, share)) in zip(children, shares).enumerated() where !share.isEmpty {
                let file = "/tmp/coordrun-explore-\(Platform.processID())-\(i).jsonl"
                files.insert(file)
                let lines = share.map { FlowValue.record(["path": Explorer.value(of: report.states[$0].path), "key": .string(report.states[$0].key)]).json + "\n" }.joined()
                guard Platform.writeFile(file, lines), Platform.send(file + "\n", to: child) else {
                    throw WorkerFailure(message: "a worker stopped")
                }
            }
            // Merged in the level's order, so that the report is the one one process gives.
            var next: [Int] = []
            for (child, share) in zip(children, shares) {
                for index in share {
                    guard let line = Platform.readLine(from: child) else { throw WorkerFailure(message: "a worker stopped") }
                    let value = try FlowValue(json: line)
                    if let message = value["failed"]?.stringValue { throw WorkerFailure(message: message) }
                    let outcomes = try (value["outcomes"]?.listValue ?? []).map { try Explorer.Outcome(value: $0) }
                    if !report.cutByStates {
                        next += report.record(outcomes, actionCount: value["actions"]?.intValue ?? 0, from: index, maxStates: explorer.options.maxStates)
                    }
                }
            }
            level = next
        }
        if report.cutByStates { report.unexpanded += level.count }
        // The end: each worker's final look for what stayed alive.
        for child in children {
            guard Platform.send("\n", to: child), let line = Platform.readLine(from: child) else { continue }
            for violation in (try? FlowValue(json: line))?["violations"]?.listValue?.compactMap(\.stringValue) ?? [] {
                report.addViolation(violation, path: [])
            }
        }
        report.finish(catalog: catalog)
        return report
    }

    /// A worker: reads from standard input the name of a file of paths (a path a line) and writes a line of
    /// outcomes for each; an empty line asks for the lifecycle oracle's final findings, the last line it
    /// writes.
    static func expand(explorer: Explorer) throws {
        _ = try explorer.start()
        while let request = readLine() {
            if request.isEmpty {
                let final: FlowValue = ["violations": .list(explorer.finalViolations().map(FlowValue.string))]
                Platform.writeOut(final.json + "\n")
                Platform.flushOut()
                continue // the parent closes the pipe next
            }
            let lines = Platform.readFile(request)?.split(separator: "\n") ?? []
            for line in lines {
                let value: FlowValue
                do {
                    let request = try FlowValue(json: String(line))
                    let path = try Explorer.path(from: request["path"] ?? [])
                    let (count, outcomes) = try explorer.expand(path, expecting: request["key"]?.stringValue)
                    value = ["actions": .int(count), "outcomes": .list(outcomes.map(\.value))]
                } catch {
                    value = ["failed": .string("\(error)")]
                }
                Platform.writeOut(value.json + "\n")
            }
            Platform.flushOut()
        }
    }

    /// `items` in `count` parts of nearly equal size, in order.
    static func split(_ items: [Int], into count: Int) -> [[Int]] {
        let parts = max(1, min(count, items.count))
        var result: [[Int]] = Array(repeating: [], count: parts)
        for (i, item) in items.enumerated() { result[i * parts / max(items.count, 1)].append(item) }
        return result
    }

    struct WorkerFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
