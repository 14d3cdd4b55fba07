import Foundation
import Testing

/// docs/Safety.md lists every unsafe construct of Sources/ by tag; each site carries its tag. The two must
/// agree: a new site without a tag, a tag the inventory does not name, or a count or a file that differs
/// fails here.
@Suite struct SafetyInventoryTests {
    static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    /// What counts as an unsafe construct (docs/Safety.md says why each).
    static func constructs() throws -> Regex<AnyRegexOutput> { try Regex(#"@exclusivity\(unchecked\)|unowned\(unsafe\)|nonisolated\(unsafe\)|@unchecked Sendable|\bUnmanaged\b|unsafeBitCast|unsafeDowncast|assumingMemoryBound|bindMemory|withMemoryRebound|withUnsafe\w*|\bUnsafe\w*Pointer\b|unsafeArgv"#).wordBoundaryKind(.simple) }
    static func tags() throws -> Regex<AnyRegexOutput> { try Regex(#"SAFETY\[([a-z-]+)\]"#) }

    /// A line's code: string literals emptied, its comment cut.
    static func code(of line: Substring) -> String {
        var out = "", inString = false, escaped = false
        var chars = line.makeIterator()
        var previous: Character = " "
        while let c = chars.next() {
            if inString {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false; out.append(c) }
            } else if c == "\"" {
                inString = true; out.append(c)
            } else if c == "/" && previous == "/" {
                out.removeLast()
                break
            } else {
                out.append(c)
            }
            previous = c
        }
        return out
    }

    /// Sites found in Sources: tag → file → count; and the lines without a tag.
    static func sites() throws -> (found: [String: [String: Int]], untagged: [String]) {
        var found: [String: [String: Int]] = [:]
        var untagged: [String] = []
        let construct = try constructs(), tag = try tags()
        let sources = URL(fileURLWithPath: root + "/Sources")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        for file in files {
            let relative = String(file.path.dropFirst(sources.path.count + 1))
            let text = try String(contentsOf: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                guard code(of: line).contains(construct) else { continue }
                guard let match = line.firstMatch(of: tag), let name = match.output[1].substring else {
                    untagged.append("\(relative):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                    continue
                }
                found[String(name), default: [:]][relative, default: 0] += 1
            }
        }
        return (found, untagged)
    }

    /// The inventory's table: tag → (sites, file → count); and the tags that have a proof section.
    static func inventory() throws -> (table: [String: (sites: Int, files: [String: Int])], proofs: Set<String>) {
        let text = try String(contentsOfFile: root + "/docs/Safety.md", encoding: .utf8)
        var table: [String: (sites: Int, files: [String: Int])] = [:]
        var proofs: Set<String> = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("### `") { proofs.insert(String(line.dropFirst(5).prefix { $0 != "`" })) }
            guard line.hasPrefix("| `") else { continue }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 4, let sites = Int(cells[2]) else { continue }
            var files: [String: Int] = [:]
            for entry in cells[3].split(separator: ",") {
                let parts = entry.trimmingCharacters(in: .whitespaces).split(separator: " ")
                guard parts.count == 2, let count = Int(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "()"))) else { continue }
                files[String(parts[0])] = count
            }
            table[String(cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`")))] = (sites, files)
        }
        return (table, proofs)
    }

    @Test func everyUnsafeSiteCarriesATagTheInventoryListsWithItsCountAndFile() throws {
        let (found, untagged) = try Self.sites()
        let (table, proofs) = try Self.inventory()
        #expect(untagged.isEmpty, "unsafe constructs without a SAFETY[tag]:\n\(untagged.joined(separator: "\n"))")
        #expect(!table.isEmpty, "docs/Safety.md has no inventory table")
        for (tag, files) in found.sorted(by: { $0.key < $1.key }) {
            guard let entry = table[tag] else {
                Issue.record("SAFETY[\(tag)] is used in \(files.keys.sorted()) but docs/Safety.md does not list it")
                continue
            }
            #expect(entry.files == files, "SAFETY[\(tag)]: the sources have \(files.sorted { $0.key < $1.key }), docs/Safety.md says \(entry.files.sorted { $0.key < $1.key })")
            #expect(entry.sites == files.values.reduce(0, +), "SAFETY[\(tag)]: \(files.values.reduce(0, +)) sites, docs/Safety.md says \(entry.sites)")
            #expect(proofs.contains(tag), "docs/Safety.md has no proof for \(tag)")
        }
        for tag in table.keys where found[tag] == nil {
            Issue.record("docs/Safety.md lists \(tag), which no site carries")
        }
    }

    /// Every `@exclusivity(unchecked)` can be turned back on: it sits under the build setting's `#if`.
    @Test func everyUncheckedExclusivityYieldsToTheCheckedBuild() throws {
        let sources = URL(fileURLWithPath: Self.root + "/Sources")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        var bare: [String] = []
        for file in files {
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (i, line) in lines.enumerated() where Self.code(of: line).contains("@exclusivity(unchecked)") {
                let above = i > 0 ? lines[i - 1].trimmingCharacters(in: .whitespaces) : ""
                if above != "#if !COORDINATOR_CHECKED_EXCLUSIVITY" { bare.append("\(file.lastPathComponent):\(i + 1)") }
            }
        }
        #expect(bare.isEmpty, "not under #if !COORDINATOR_CHECKED_EXCLUSIVITY: \(bare)")
    }
}
