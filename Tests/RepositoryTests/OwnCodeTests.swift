import Foundation
import Testing

/// Every line under Sources/ is this project's own: none shares a run of three significant lines with
/// Lua's sources (`../shared/lua-5.4.x-src` beside the repository, as CI lays it out; there its absence
/// fails), and none carries another project's licence notice.
@Suite struct OwnCodeTests {
    /// The folders of Lua's sources beside the repository.
    static let luaSources: [String] = {
        let shared = SafetyInventoryTests.root + "/../shared"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: shared)) ?? []
        return names.filter { $0.hasPrefix("lua-5.4.") && $0.hasSuffix("-src") }.sorted().map { shared + "/" + $0 }
    }()

    static let inCI = ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty } ?? false

    /// A text as the comparison reads it: comments (`/* */`, `//`) removed, whitespace collapsed, and only
    /// the significant lines: at least 12 characters, not only braces, `else`, `break;`, `return x;` or an
    /// `#include`.
    static func significantLines(of text: String) -> [String] {
        var withoutBlocks = ""
        var rest = Substring(text)
        while let open = rest.range(of: "/*") {
            withoutBlocks += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].range(of: "*/") else { rest = ""; break }
            // The comment's line breaks stay, so that lines around it stay apart.
            withoutBlocks += String(repeating: "\n", count: rest[open.lowerBound..<close.upperBound].filter { $0 == "\n" }.count)
            rest = rest[close.upperBound...]
        }
        withoutBlocks += rest
        return withoutBlocks.split(separator: "\n", omittingEmptySubsequences: false).compactMap { raw in
            let code = raw.range(of: "//").map { raw[..<$0.lowerBound] } ?? raw
            let line = code.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
            return isSignificant(line) ? line : nil
        }
    }

    static func isSignificant(_ line: String) -> Bool {
        guard line.count >= 12, !line.hasPrefix("#include") else { return false }
        if line.allSatisfy({ "{}(); ".contains($0) }) { return false }
        let words = line.replacingOccurrences(of: "}", with: " ").replacingOccurrences(of: "{", with: " ")
            .split(separator: " ")
        if words == ["else"] || words == ["break;"] { return false }
        if words.count == 2, words[0] == "return", words[1].hasSuffix(";"),
           words[1].dropLast().allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) { return false }
        return true
    }

    /// The runs of three significant lines of `lines` found in `known` (each run: its first line's index).
    static func sharedRuns(_ lines: [String], in known: Set<[String]>) -> [Int] {
        guard lines.count >= 3 else { return [] }
        return (0...(lines.count - 3)).filter { known.contains(Array(lines[$0..<($0 + 3)])) }
    }

    static func runs(of folder: String) throws -> Set<[String]> {
        var known = Set<[String]>()
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasSuffix(".c") || name.hasSuffix(".h") {
            let lines = significantLines(of: try String(contentsOfFile: folder + "/" + name, encoding: .isoLatin1))
            guard lines.count >= 3 else { continue }
            for start in 0...(lines.count - 3) { known.insert(Array(lines[start..<(start + 3)])) }
        }
        return known
    }

    /// Every file under Sources/ (source, header, module map, documentation).
    static func sourceFiles() throws -> [String] {
        let sources = SafetyInventoryTests.root + "/Sources"
        let walker = try #require(FileManager.default.enumerator(atPath: sources))
        return walker.compactMap { $0 as? String }.filter { name in
            var folder: ObjCBool = false
            return FileManager.default.fileExists(atPath: sources + "/" + name, isDirectory: &folder) && !folder.boolValue
        }.sorted().map { sources + "/" + $0 }
    }

    @Test(.enabled(if: !luaSources.isEmpty || inCI, "Lua's sources are not beside the repository (../shared/lua-5.4.x-src)"))
    func noSourceFileSharesThreeLinesWithLua() throws {
        try #require(!Self.luaSources.isEmpty, "CI has Lua's sources beside the repository: ../shared/lua-5.4.x-src")
        var known = Set<[String]>()
        for folder in Self.luaSources { known.formUnion(try Self.runs(of: folder)) }
        #expect(known.count > 10_000, "Lua's sources read as \(known.count) runs: not a Lua source tree")
        var found: [String] = []
        for file in try Self.sourceFiles() {
            let lines = Self.significantLines(of: try String(contentsOfFile: file, encoding: .isoLatin1))
            for start in Self.sharedRuns(lines, in: known) {
                found.append("\(file.dropFirst(SafetyInventoryTests.root.count + 1)): \(lines[start]) / \(lines[start + 1]) / \(lines[start + 2])")
            }
        }
        #expect(found.isEmpty, "lines shared with Lua's sources:\n\(found.prefix(20).joined(separator: "\n"))")
    }

    /// The comparison sees through what a copy would change (spacing, comments, a comment between the
    /// lines, trivial lines) and counts no run of trivial lines or of two lines.
    @Test func theComparisonFindsACopyWhateverItsSpacingAndComments() {
        let original = """
            static int count (State *s, const char *p) {
              int level = s->level;  /* current level */
              for (level--; level>=0; level--)
                if (s->capture[level].len == OPEN) return level;
              return raise(s, "no capture to close");
            }
            """
        var known = Set<[String]>()
        let lines = Self.significantLines(of: original)
        for start in 0...(lines.count - 3) { known.insert(Array(lines[start..<(start + 3)])) }
        let disguised = """
            static int   count (State *s,  const char *p) { // a comment added
            \tint level   = s->level;
            /* a comment
               over two lines */
            for (level--; level>=0; level--)
              }
            """
        #expect(Self.sharedRuns(Self.significantLines(of: disguised), in: known) == [0])
        let twoLines = "for (level--; level>=0; level--)\n  if (s->capture[level].len == OPEN) return level;\nint other = 1 + 2 + 3;"
        #expect(Self.sharedRuns(Self.significantLines(of: twoLines), in: known).isEmpty)
        #expect(!Self.isSignificant("} else {") && !Self.isSignificant("return result;") && !Self.isSignificant("#include <lua.h>"))
        #expect(Self.isSignificant("return lua_error(L);"))
    }

    @Test func noSourceFileCarriesAnotherProjectsLicence() throws {
        // Split, so that this file does not read as carrying the notices it looks for.
        let notices = ["Copyright " + "(C)", "Copyright " + "(c)", "Permission is " + "hereby granted", "Lua.org, " + "PUC-Rio",
                       "SPDX-License-" + "Identifier", "Licensed " + "under the", "GNU General " + "Public License"]
        var found: [String] = []
        for file in try Self.sourceFiles() {
            let text = try String(contentsOfFile: file, encoding: .isoLatin1)
            for notice in notices where text.contains(notice) {
                found.append("\(file.dropFirst(SafetyInventoryTests.root.count + 1)): \(notice)")
            }
        }
        #expect(found.isEmpty, "licence notices of other projects:\n\(found.joined(separator: "\n"))")
    }
}
