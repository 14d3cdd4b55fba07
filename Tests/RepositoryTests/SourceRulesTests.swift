import Foundation
import Testing

/// docs/Architecture.md's rules of the sources, kept by tests: no type over 600 lines with its extensions,
/// other languages in files of their own (checked by their own tools), no long Swift string literal, no line
/// over 160 columns.
@Suite struct SourceRulesTests {
    /// Runs `arguments` in `folder`: its exit status and what it printed (standard output and error).
    static func run(_ arguments: [String], in folder: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// The Swift files under Sources/, by path from the repository's root, with their lines.
    static func swiftSources() throws -> [(path: String, lines: [Substring])] {
        let root = SafetyInventoryTests.root
        let paths = FileManager.default.enumerator(atPath: root + "/Sources")?.compactMap { $0 as? String } ?? []
        return try paths.filter { $0.hasSuffix(".swift") }.sorted().map { path in
            let text = try String(contentsOfFile: root + "/Sources/" + path, encoding: .utf8)
            return ("Sources/" + path, text.split(separator: "\n", omittingEmptySubsequences: false))
        }
    }

    @Test func noTypeIsOver600LinesWithItsExtensions() throws {
        let root = SafetyInventoryTests.root
        let result = try Self.run(["python3", root + "/scripts/type-lines", "Sources", "--top", "5"], in: root)
        #expect(result.status == 0, "\(result.output)")
        // "   802  Explorer  (2 files)": the largest first.
        let rows = result.output.split(separator: "\n").map { $0.split(separator: " ") }
        #expect(rows.count == 5, "\(result.output)")
        let over = rows.filter { Int($0.first ?? "") ?? 0 > 600 }.map { $0.prefix(2).joined(separator: " ") }
        #expect(over.isEmpty, "types over 600 lines (docs/Architecture.md: give their jobs to owned parts): \(over)")
    }

    @Test func theLuaAmongTheSourcesPassesLuacheck() throws {
        let luacheck = "/usr/bin/luacheck"
        try #require(FileManager.default.isExecutableFile(atPath: luacheck), "no luacheck: scripts/ensure-deps --test installs lua-check")
        let sources = SafetyInventoryTests.root + "/Sources"
        // Sources/.luacheckrc says how; luacheck reads it from the folder it runs in.
        let result = try Self.run([luacheck, "--no-color", "--codes", "."], in: sources)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("prelude.lua") && result.output.contains("expectations.lua"), "\(result.output)")
    }

    @Test func noSwiftStringLiteralSpansMoreThan20Lines() throws {
        var long: [String] = []
        for (path, lines) in try Self.swiftSources() {
            var opened: Int?
            for (index, line) in lines.enumerated() where line.components(separatedBy: "\"\"\"").count == 2 {
                if let start = opened {
                    if index - start + 1 > 20 { long.append("\(path):\(start + 1) (\(index - start + 1) lines)") }
                    opened = nil
                } else {
                    opened = index
                }
            }
        }
        #expect(long.isEmpty, "multi-line string literals over 20 lines (move the text into a file of its language): \(long)")
    }

    @Test func noSwiftLineIsOver160Columns() throws {
        var long: [String] = []
        for (path, lines) in try Self.swiftSources() {
            for (index, line) in lines.enumerated() where line.count > 160 { long.append("\(path):\(index + 1)") }
        }
        #expect(long.isEmpty, "\(long.count) Swift lines over 160 columns: \(long.prefix(20))")
    }
}

/// Each library's public API is a promise to hosts: docs/API/ holds it, one line per public declaration, and
/// a change to it shows in review beside the code that makes it (`scripts/api-digest` writes the digests).
@Suite struct PublicAPITests {
    /// The modules of this build (beside the test bundle).
    static let modules = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("Modules").path

    @Test func eachLibrarysPublicAPIIsTheDigestCheckedIn() throws {
        let root = SafetyInventoryTests.root
        let result = try SourceRulesTests.run(["python3", root + "/scripts/api-digest", "--modules", Self.modules, "--check"], in: root)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("CoordinatorCore: ") && result.output.contains("CoordinatorTools: "), "\(result.output)")
    }

    /// The check really compares: a digest that lacks a declaration the module has, and names one it does
    /// not, fails, naming both.
    @Test func aDeclarationAddedOrRemovedFailsNamingIt() throws {
        let root = SafetyInventoryTests.root
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("api-digest-" + UUID().uuidString).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in try FileManager.default.contentsOfDirectory(atPath: root + "/docs/API") {
            try FileManager.default.copyItem(atPath: root + "/docs/API/" + name, toPath: folder + "/" + name)
        }
        let core = folder + "/CoordinatorCore.txt"
        var lines = try String(contentsOfFile: core, encoding: .utf8).split(separator: "\n").map(String.init)
        let dropped = try #require(lines.first { $0.hasPrefix("Coordinator: func finish(") })
        lines.removeAll { $0 == dropped }
        lines.append("Coordinator: func teleport()")
        try (lines.joined(separator: "\n") + "\n").write(toFile: core, atomically: true, encoding: .utf8)
        let result = try SourceRulesTests.run(["python3", root + "/scripts/api-digest", "--modules", Self.modules, "--digests", folder, "--check"], in: root)
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains("  + " + dropped) && result.output.contains("  - Coordinator: func teleport()"), "\(result.output)")
        #expect(result.output.contains("CoordinatorTools: ") && !result.output.contains("CoordinatorTools: the public API differs"), "\(result.output)")
    }
}
