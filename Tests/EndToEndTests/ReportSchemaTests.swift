import Foundation
import Testing
import TestSupport

/// The JSON reports (`coordrun test --json`, `coordrun explore --json`, `coordrun diff --json`) against the
/// JSON Schemas published in docs/schemas, checked by the `jsonschema` package (draft 2020-12) with reports
/// that hold every kind of entry: each schema is itself valid, each report fits its schema, and a report
/// with a field taken away or misspelt does not.
@Suite struct ReportSchemaTests {
    static let venv = ProcessInfo.processInfo.environment["COORDINATOR_TOOLS_VENV"] ?? NSHomeDirectory() + "/.cache/coordinator/tools-venv"

    /// What the schema `name` says of `document` (a JSON text): nil when it fits, else the first error.
    static func validate(_ document: String, against name: String) throws -> String? {
        let python = venv + "/bin/python"
        try #require(FileManager.default.isExecutableFile(atPath: python), "no \(python): scripts/ensure-deps --test installs jsonschema there")
        let check = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft202012Validator.check_schema(schema)
            errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(json.load(sys.stdin)), key=str)
            print(errors[0].message if errors else "valid")
            """
        let outcome = try Programs.run(python, ["-c", check, repositoryRoot + "/docs/schemas/\(name).schema.json"], input: document)
        try #require(outcome.status == 0, "\(outcome.err)")
        let verdict = outcome.out.trimmingCharacters(in: .whitespacesAndNewlines)
        return verdict == "valid" ? nil : verdict
    }

    /// `document` with its top-level `field` removed, and with `format` 2.
    static func broken(_ document: String, without field: String) throws -> [String] {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String: Any])
        object["format"] = 2
        let misformatted = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        object["format"] = 1
        object[field] = nil
        return [misformatted, String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)]
    }

    @Test func theTestReportFitsItsSchema() throws {
        let folder = try TemporaryDirectory()
        _ = try folder.write("shop_test.lua", """
            app "\(repositoryRoot)/examples/shop.lua"
            test("passes", function() expect.badge("Cart", nil) end)
            test("fails", function() expect.badge("Cart", 3) end)
            test("stops on an error", function() local missing = nil return missing.field end)
            skip("not yet", function() end)
            """)
        _ = try folder.write("broken_test.lua", "test(\"x\", function( end)\n")
        let report = folder.path + "/report.json"
        _ = try Programs.run(["test", folder.path, "--json", report], input: "")
        let document = try #require(readFile(report))
        #expect(try Self.validate(document, against: "coordrun-test") == nil)
        for broken in try Self.broken(document, without: "summary") {
            #expect(try Self.validate(broken, against: "coordrun-test") != nil)
        }
    }

    @Test func theExploreReportFitsItsSchema() throws {
        let folder = try TemporaryDirectory()
        // An app with an error, a dead end and a property, explored and verified: most of the report's entries.
        let script = try folder.write("app.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "next", "crash" } }
            flow.screen "End" {}
            local App = flow.coordinator "App"
            function App:start()
              local home = self:push("Home")
              home.onNext = function() self:push("End") end
              home.onCrash = function() error("broken") end
            end
            flow.invariant("always", function() return true end)
            flow.app(App)
            """)
        let report = folder.path + "/report.json"
        let outcome = try Programs.run(["explore", script, "--json", report, "--verify", "--tests", folder.path + "/found_test.lua"], input: "")
        #expect(outcome.status == 1, "\(outcome.out)\(outcome.err)")
        let document = try #require(readFile(report))
        #expect(document.contains("\"verify\"") && document.contains("broken"))
        #expect(try Self.validate(document, against: "coordrun-explore") == nil)
        for broken in try Self.broken(document, without: "fingerprint") {
            #expect(try Self.validate(broken, against: "coordrun-explore") != nil)
        }
    }

    @Test func theDiffReportFitsItsSchema() throws {
        let folder = try TemporaryDirectory()
        let old = try folder.write("old.lua", FlowDiffCommandTests.app), new = try folder.write("new.lua", FlowDiffCommandTests.withPayment)
        let outcome = try Programs.run(["diff", "--json", "--depth", "1", old, new], input: "")
        #expect(outcome.status == 1)
        #expect(outcome.out.contains("differences past it are unknown"))
        #expect(try Self.validate(outcome.out, against: "coordrun-diff") == nil)
        for broken in try Self.broken(outcome.out, without: "edges") {
            #expect(try Self.validate(broken, against: "coordrun-diff") != nil)
        }
    }
}
