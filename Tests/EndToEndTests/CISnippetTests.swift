import Foundation
import Testing
import TestSupport

/// The CI configurations the docs show, and the workflow `coordrun init` writes, read as their runners read
/// them (Tests/Docs/ci_snippets_check.py, with PyYAML): every block parses; every Actions job that runs
/// coordrun installs it first with the init workflow's own steps (clone, cache, build) and says where the
/// runtime's repository is; every Kubernetes Job writes only to volumes it mounts and holds no `${...}`.
@Suite struct CISnippetTests {
    @Test func theDocsCIConfigurationsRunAsWritten() throws {
        let python = (ProcessInfo.processInfo.environment["COORDINATOR_TOOLS_VENV"] ?? NSHomeDirectory() + "/.cache/coordinator/tools-venv") + "/bin/python"
        try #require(FileManager.default.isExecutableFile(atPath: python), "no \(python): scripts/ensure-deps --test installs PyYAML there")
        let folder = try TemporaryDirectory()
        let made = try Programs.run(Programs.coordrun, ["init", "p"], input: "", folder: folder.path)
        #expect(made.status == 0, "\(made.err)")
        let docs = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot + "/docs").filter { $0.hasSuffix(".md") }.sorted()
            .map { repositoryRoot + "/docs/" + $0 } + [repositoryRoot + "/README.md"]
        let check = try Programs.run(python, [repositoryRoot + "/Tests/Docs/ci_snippets_check.py", folder.path + "/p/.github/workflows/flows.yml"] + docs, input: "")
        #expect(check.status == 0, "\(check.out)\(check.err)")
        // The workflow, the two Actions jobs and the two Kubernetes Jobs of the docs.
        #expect(check.out.hasPrefix("checked ") && (Int(check.out.split(separator: " ")[1]) ?? 0) >= 5, "\(check.out)")
    }
}
