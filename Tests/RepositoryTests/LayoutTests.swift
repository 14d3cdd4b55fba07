import Foundation
import Testing

/// docs/Architecture.md's layout is the map a newcomer reads: every folder of Sources/ is on it, each
/// under the target it belongs to, so that a folder added, moved or renamed without the map fails here.
@Suite struct LayoutTests {
    /// The layout block: the lines between "## Layout"'s fence and the next.
    static func layout() throws -> [Substring] {
        let text = try String(contentsOfFile: SafetyInventoryTests.root + "/docs/Architecture.md", encoding: .utf8)
        let section = try #require(text.range(of: "## Layout"))
        let lines = text[section.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
        let open = try #require(lines.firstIndex { $0.hasPrefix("```") })
        let close = try #require(lines[(open + 1)...].firstIndex { $0.hasPrefix("```") })
        return Array(lines[(open + 1)..<close])
    }

    /// The lines that describe `target` (its own line, the lines indented below it until the next target).
    static func entry(of target: String, in layout: [Substring]) -> [Substring]? {
        let isTarget = { (line: Substring) in line.hasPrefix("  ") && !line.hasPrefix("   ") }
        // A target's line names it first (`coordrun/`), or with others (`coordfuzz/, CFuzzDriver/`).
        func names(_ line: Substring) -> [String] {
            let head = line.dropFirst(2)
            let end = head.range(of: "  ")?.lowerBound ?? head.endIndex
            return head[..<end].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        guard let start = layout.firstIndex(where: { isTarget($0) && names($0).contains(target + "/") }) else { return nil }
        let end = layout[(start + 1)...].firstIndex(where: isTarget) ?? layout.endIndex
        return Array(layout[start..<end])
    }

    @Test func everySourceFolderIsOnTheLayout() throws {
        let layout = try Self.layout()
        let sources = SafetyInventoryTests.root + "/Sources"
        let manager = FileManager.default
        var missing: [String] = []
        for target in try manager.contentsOfDirectory(atPath: sources).sorted() {
            var isFolder: ObjCBool = false
            guard manager.fileExists(atPath: sources + "/" + target, isDirectory: &isFolder), isFolder.boolValue else { continue }
            guard let entry = Self.entry(of: target, in: layout) else { missing.append(target + "/"); continue }
            let text = entry.joined(separator: "\n")
            let folders = manager.enumerator(atPath: sources + "/" + target)?.compactMap { $0 as? String } ?? []
            for folder in folders.sorted() {
                var inner: ObjCBool = false
                guard manager.fileExists(atPath: sources + "/" + target + "/" + folder, isDirectory: &inner), inner.boolValue,
                      !folder.hasSuffix(".docc"), !folder.contains(".docc/") else { continue }
                let name = folder.split(separator: "/").last.map(String.init) ?? folder
                if !text.contains(name + "/") { missing.append(target + "/" + folder + "/") }
            }
        }
        #expect(missing.isEmpty, "folders of Sources/ that docs/Architecture.md's layout does not list: \(missing)")
    }

    /// coordrun calls the operating system in three files, each for what it is for: the terminal and the
    /// standard streams, files, processes (its Platform/ folder). No other file of coordrun imports Glibc or
    /// Darwin.
    @Test func coordrunCallsTheSystemOnlyFromItsThreePlatformFiles() throws {
        let folder = SafetyInventoryTests.root + "/Sources/coordrun"
        let allowed: Set = ["Platform/Terminal.swift", "Platform/Files.swift", "Platform/Processes.swift"]
        var importing: [String] = []
        let paths = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        for path in paths where path.hasSuffix(".swift") {
            let text = try String(contentsOfFile: folder + "/" + path, encoding: .utf8)
            if text.contains("import Glibc") || text.contains("import Darwin") { importing.append(path) }
        }
        #expect(Set(importing) == allowed, "\(importing.sorted())")
    }
}
