import Foundation
import Testing

/// Every Swift snippet of README.md and docs/*.md is compiled: `Snippets.swift` holds each one as the body
/// of a function (in ``DocSnippets``, or in ``DocCoordinator`` for one marked `<!-- snippet: in a
/// coordinator -->`; one marked `<!-- snippet: declarations -->` as it is, at the top level), built with the
/// test targets as a client of the public API builds it. This suite
/// checks that the file is the docs' snippets as they are now, so a snippet that no longer compiles, or a
/// doc changed without it, fails the build or this test. A block the docs mark `<!-- snippet: not compiled:
/// REASON -->` is left out, with its reason.
@Suite struct DocSnippetTests {
    static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()
    static let generated = root + "/Tests/DocSnippetTests/Snippets.swift"

    /// A ```swift block of a document.
    struct Snippet {
        enum Context: Equatable { case app, coordinator, declarations, notCompiled(String) }
        let file: String
        /// Where its block starts in the file (for messages), and which block of the file it is (from 1).
        let line: Int
        let ordinal: Int
        let context: Context
        let lines: [String]

        /// `readme_md_2`: the function the snippet becomes (named by its place among the file's blocks, so
        /// that editing the prose around it changes nothing).
        var function: String {
            let name = file.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }
            return String(name) + "_\(ordinal)"
        }
    }

    /// The snippets of README.md, then of docs/*.md by name.
    static func snippets() throws -> [Snippet] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: root + "/docs").filter { $0.hasSuffix(".md") }.sorted()
        var result: [Snippet] = []
        for file in ["README.md"] + docs.map({ "docs/" + $0 }) {
            let lines = try String(contentsOfFile: root + "/" + file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            var i = 0, ordinal = 0
            while i < lines.count {
                guard lines[i].trimmingCharacters(in: .whitespaces) == "```swift" else { i += 1; continue }
                let marker = i > 0 ? lines[i - 1].trimmingCharacters(in: .whitespaces) : ""
                var context = Snippet.Context.app
                if marker == "<!-- snippet: in a coordinator -->" { context = .coordinator }
                if marker == "<!-- snippet: declarations -->" { context = .declarations }
                if marker.hasPrefix("<!-- snippet: not compiled: "), marker.hasSuffix(" -->") {
                    context = .notCompiled(String(marker.dropFirst("<!-- snippet: not compiled: ".count).dropLast(4)))
                }
                var body: [String] = []
                var j = i + 1
                while j < lines.count, lines[j].trimmingCharacters(in: .whitespaces) != "```" { body.append(lines[j]); j += 1 }
                ordinal += 1
                result.append(Snippet(file: file, line: i + 1, ordinal: ordinal, context: context, lines: body))
                i = j + 1
            }
        }
        return result
    }

    /// The text of Snippets.swift for `snippets`.
    static func source(of snippets: [Snippet]) -> String {
        var text = """
            // The Swift snippets of README.md and docs/*.md, each as the body of a function, compiled with the
            // tests (DocSnippetTests checks that this is what the docs hold now). Written by scripts/doc-snippets:
            // do not edit.
            import Foundation
            import CoordinatorCore
            import CoordinatorLua
            import CoordinatorScript
            import CoordinatorTools

            """
        for snippet in snippets {
            let place = "\(snippet.file), snippet \(snippet.ordinal)"
            let owner: String
            switch snippet.context {
            case .notCompiled(let reason):
                text += "\n// \(place): not compiled: \(reason)\n"
                continue
            case .declarations:
                // Types other snippets use: at the top level, as written.
                text += "\n// \(place)\n" + snippet.lines.filter { !$0.hasPrefix("import ") }.map { $0 + "\n" }.joined()
                continue
            case .app: owner = "DocSnippets"
            case .coordinator: owner = "DocCoordinator"
            }
            text += "\n// \(place)\nextension \(owner) {\n    @MainActor func \(snippet.function)() async throws {\n"
            for line in snippet.lines where !line.hasPrefix("import ") {
                text += line.isEmpty ? "\n" : "        " + line + "\n"
            }
            text += "    }\n}\n"
        }
        return text
    }

    @Test func theCompiledSnippetsAreTheDocsSnippets() throws {
        let expected = Self.source(of: try Self.snippets())
        let current = try? String(contentsOfFile: Self.generated, encoding: .utf8)
        if current != expected, ProcessInfo.processInfo.environment["UPDATE_DOC_SNIPPETS"] == "1" {
            try expected.write(toFile: Self.generated, atomically: true, encoding: .utf8)
            return
        }
        #expect(current == expected, "the docs' Swift snippets changed: scripts/doc-snippets writes Tests/DocSnippetTests/Snippets.swift again and compiles them")
    }

    @Test func everySnippetIsCompiledOrSaysWhyNot() throws {
        let snippets = try Self.snippets()
        #expect(snippets.count > 30)
        for snippet in snippets {
            if case .notCompiled(let reason) = snippet.context { #expect(reason.count > 10, "\(snippet.file):\(snippet.line)") }
        }
        #expect(snippets.filter { if case .notCompiled = $0.context { true } else { false } }.count <= 2)
    }
}
