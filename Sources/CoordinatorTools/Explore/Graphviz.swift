import Foundation

/// Graphviz's `dot`, as coordrun draws its graphs (`explore --graph`, `storyboard`, `diff --svg`, the
/// preview's flow): the graph with its clusters, and, where `dot` cannot lay those out (Graphviz 2.43
/// stops with "trouble in init_rank" on large graphs whose clusters many edges cross), the same graph
/// without them. Each attempt may take ``timeLimit`` seconds.
package enum Graphviz {
    /// The most seconds one drawing may take.
    package static let timeLimit = 60

    /// Why a graph could not be drawn.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Draws the graph `dot` gives (with its clusters, then without them) into the file at `path` as
    /// `format` (`svg`, `png`): nil, or why it could not be drawn.
    package static func draw(_ dot: (_ clustered: Bool) -> String, format: String, to path: String) -> Failure? {
        var failure = Failure(description: "dot did not run")
        for clustered in [true, false] {
            guard let why = run(dot(clustered), format: format, to: path) else { return nil }
            failure = why
            if why.description.hasPrefix("dot is not installed") { break }
        }
        return failure
    }

    /// The graph `dot` gives, drawn as SVG (``draw(_:format:to:)``): its text, or why it could not be drawn.
    package static func svg(_ dot: (_ clustered: Bool) -> String) -> Result<String, Failure> {
        let path = NSTemporaryDirectory() + "coordrun-graph-" + UUID().uuidString + ".svg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        if let failure = draw(dot, format: "svg", to: path) { return .failure(failure) }
        guard let data = FileManager.default.contents(atPath: path) else { return .failure(Failure(description: "dot wrote no picture")) }
        return .success(String(decoding: data, as: UTF8.self))
    }

    /// One run of `dot` on `text`, writing `path`, through files (no pipe to fill), under ``timeLimit``: nil,
    /// or why it failed.
    private static func run(_ text: String, format: String, to path: String) -> Failure? {
        let folder = NSTemporaryDirectory() + "coordrun-dot-" + UUID().uuidString
        let manager = FileManager.default
        guard (try? manager.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil else {
            return Failure(description: "no temporary folder for dot")
        }
        defer { try? manager.removeItem(atPath: folder) }
        let (input, errors) = (folder + "/graph.dot", folder + "/errors.txt")
        guard manager.createFile(atPath: input, contents: Data(text.utf8)), manager.createFile(atPath: errors, contents: nil),
              let errorFile = FileHandle(forWritingAtPath: errors) else {
            return Failure(description: "no temporary file for dot")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["timeout", String(timeLimit), "dot", "-T" + format, "-o", path, input]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errorFile
        do { try process.run() } catch { return Failure(description: "dot did not start (\(error))") }
        process.waitUntilExit()
        try? errorFile.close()
        let status = process.terminationStatus
        if status == 0 { return nil }
        let said = (manager.contents(atPath: errors).map { String(decoding: $0, as: UTF8.self) } ?? "")
            .split(separator: "\n").first.map { String($0).trimmingCharacters(in: .whitespaces) } ?? ""
        switch status {
        case 127: return Failure(description: "dot is not installed: Debian's graphviz package has it")
        case 124: return Failure(description: "dot took more than \(timeLimit) s")
        default: return Failure(description: said.isEmpty ? "dot failed with status \(status)" : "dot: " + said)
        }
    }
}
