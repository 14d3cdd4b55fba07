import Foundation
import Testing

/// Each layer throws its own error type: the core's `NavigationError` has no case the core never throws
/// (snapshots, routes and the explorer's wire have types of their own).
@Suite struct ErrorTypeTests {
    @Test func everyNavigationErrorCodeIsOneTheCoreThrows() throws {
        let core = SafetyInventoryTests.root + "/Sources/CoordinatorCore"
        let declaration = try String(contentsOfFile: core + "/App/NavigationError.swift", encoding: .utf8)
        let codes = declaration.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            return words.count == 2 && words[0] == "case" ? String(words[1]) : nil
        }
        #expect(codes.count > 10)
        let walker = try #require(FileManager.default.enumerator(atPath: core))
        var throwing = ""
        for case let name as String in walker where name.hasSuffix(".swift") && !name.hasSuffix("NavigationError.swift") {
            let text = try String(contentsOfFile: core + "/" + name, encoding: .utf8)
            throwing += text.split(separator: "\n").filter { $0.contains("NavigationError(") }.joined(separator: "\n")
        }
        let unthrown = codes.filter { !throwing.contains("." + $0 + ",") && !throwing.contains("." + $0 + " ") && !throwing.contains("." + $0 + ")") }
        #expect(unthrown.isEmpty, "NavigationError codes the core never throws: \(unthrown)")
    }
}
