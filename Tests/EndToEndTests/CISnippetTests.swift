import Foundation
import Testing
import TestSupport

/// The CI configurations the docs show, and the workflow `coordrun init` writes, read as their runners read
/// them (Tests/Docs/ci_snippets_check.py, with PyYAML): every block parses; every Actions workflow passes
/// actionlint (ShellCheck over its scripts), and every job that runs coordrun installs it first with the
/// init workflow's own steps (clone, cache, build) and says where the runtime's repository is; every
/// Kubernetes Job passes the Kubernetes API's schema strictly, writes only to volumes it mounts and holds no
/// `${...}`.
@Suite struct CISnippetTests {
    static let python = (ProcessInfo.processInfo.environment["COORDINATOR_TOOLS_VENV"] ?? NSHomeDirectory() + "/.cache/coordinator/tools-venv") + "/bin/python"

    @Test func theDocsCIConfigurationsRunAsWritten() throws {
        let python = Self.python
        try #require(FileManager.default.isExecutableFile(atPath: python), "no \(python): scripts/ensure-deps --test installs PyYAML, actionlint and kubernetes-validate there")
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

    /// The validators are really asked: a workflow whose script leaves a variable unquoted and that uses an
    /// action's version GitHub no longer runs, and a Job with a field the Kubernetes API does not have, are
    /// each refused with the validator's words.
    @Test func aBrokenWorkflowAndAnUnknownJobFieldAreRefused() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.python), "no \(Self.python): scripts/ensure-deps --test installs the validators there")
        let folder = try TemporaryDirectory()
        let made = try Programs.run(Programs.coordrun, ["init", "p"], input: "", folder: folder.path)
        #expect(made.status == 0, "\(made.err)")
        let doc = folder.path + "/CI.md"
        try """
            ```yaml
            name: flows
            on: push
            jobs:
              lint:
                runs-on: ubuntu-latest
                steps:
                  - uses: actions/checkout@v3
                  - run: echo $HOME/flows
            ```

            ```yaml
            apiVersion: batch/v1
            kind: Job
            metadata: { name: flows }
            spec:
              template:
                spec:
                  restartPolicy: Never
                  containers:
                    - name: flows
                      image: flows:1
                      commands: ["coordrun", "test"]
            ```
            """.write(toFile: doc, atomically: true, encoding: .utf8)
        let check = try Programs.run(Self.python, [repositoryRoot + "/Tests/Docs/ci_snippets_check.py", folder.path + "/p/.github/workflows/flows.yml", doc], input: "")
        #expect(check.status == 1, "\(check.out)\(check.err)")
        #expect(check.out.contains("(yaml block 1): actionlint:") && check.out.contains("SC2086"), "\(check.out)")
        #expect(check.out.contains("actions/checkout@v3"), "\(check.out)")
        #expect(check.out.contains("(yaml block 2): not a valid Kubernetes Job") && check.out.contains("commands"), "\(check.out)")
    }
}
