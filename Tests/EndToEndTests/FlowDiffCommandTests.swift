import Foundation
import Testing
import CoordinatorScript
import TestSupport

/// `coordrun diff OLD NEW`, through the real binary: two versions of an app explored and their flows
/// compared by screens, outputs, edges, reach, routes and findings.
@Suite struct FlowDiffCommandTests {
    /// A small app: Home leads to Detail, whose `done` goes back.
    static let app = """
        local flow = require "coordinator"
        flow.screen "Home" { outputs = { "next" } }
        flow.screen "Detail" { outputs = { "done" } }
        local App = flow.coordinator "App"
        function App:start()
          local home = self:push("Home")
          home.onNext = function() self:push("Detail").onDone = function() self:pop() end end
        end
        flow.app(App)
        """

    /// The app with a Payment screen after Detail (a new output, a new screen, new edges).
    static let withPayment = app
        .replacingOccurrences(of: #"flow.screen "Detail" { outputs = { "done" } }"#,
                              with: #"flow.screen "Detail" { outputs = { "done", "pay" } }"# + "\nflow.screen \"Payment\" {}")
        .replacingOccurrences(of: #"self:push("Detail").onDone = function() self:pop() end end"#,
                              with: #"local d = self:push("Detail") d.onDone = function() self:pop() end d.onPay = function() self:push("Payment") end end"#)

    @Test func aNewScreenShowsItsTypeOutputEdgesAndReachAndExitsOne() throws {
        let folder = try TemporaryDirectory()
        let old = try folder.write("old.lua", Self.app), new = try folder.write("new.lua", Self.withPayment)
        let outcome = try Programs.run(["diff", old, new], input: "")
        #expect(outcome.status == 1, "\(outcome.err)")
        #expect(outcome.out.contains("screen types:\n  + Payment\n"), "\(outcome.out)")
        #expect(outcome.out.contains("outputs:\n  + Detail.pay\n"), "\(outcome.out)")
        #expect(outcome.out.contains("  + Detail in App [authorization] --pay--> Payment in App [authorization]\n"), "\(outcome.out)")
        #expect(outcome.out.contains("reachable screens:\n  newly reachable: Payment\n"), "\(outcome.out)")
        #expect(!outcome.out.contains("unknown"), "\(outcome.out)") // both searches complete
        // The other way round: everything removed, the screen no longer reachable.
        let back = try Programs.run(["diff", new, old], input: "")
        #expect(back.status == 1)
        #expect(back.out.contains("  - Payment\n") && back.out.contains("  no longer reachable: Payment\n"), "\(back.out)")
    }

    /// An edit that changes the code and every state's identity (a field each coordinator keeps, lines
    /// moved, a local renamed) but not the flow: no differences, exit 0. A diff of fingerprints would
    /// report every state changed.
    @Test func anEditThatLeavesTheFlowAsItWasIsNoDifference() throws {
        let folder = try TemporaryDirectory()
        let edited = "-- a comment that moves every line\n\n" + Self.app
            .replacingOccurrences(of: "local home = self:push(\"Home\")", with: "self.visits = 1\n  local first = self:push(\"Home\")")
            .replacingOccurrences(of: "home.onNext", with: "first.onNext")
        let old = try folder.write("old.lua", Self.app), new = try folder.write("new.lua", edited)
        let outcome = try Programs.run(["diff", old, new], input: "")
        #expect(outcome.status == 0, "\(outcome.out)\(outcome.err)")
        #expect(outcome.out.hasSuffix("no differences in the flow\n"), "\(outcome.out)")
        // The states did change: exploring each gives another fingerprint.
        let fingerprints = try [old, new].map { script in
            let json = folder.path + "/report.json"
            _ = try Programs.run(["explore", script, "--json", json], input: "")
            return try #require(try FlowValue(json: String(contentsOfFile: json, encoding: .utf8))["fingerprint"]?.stringValue)
        }
        #expect(fingerprints[0] != fingerprints[1])
    }

    /// A finding only one version has is a difference, named without the scripts' line numbers or names.
    @Test func aFindingTheChangeBringsIsReportedWithoutLineNumbers() throws {
        let folder = try TemporaryDirectory()
        let broken = "\n\n" + Self.app.replacingOccurrences(of: "self:pop() end end", with: "error('cannot go back') end end")
        let old = try folder.write("old.lua", Self.app), new = try folder.write("new.lua", broken)
        let outcome = try Programs.run(["diff", old, new], input: "")
        #expect(outcome.status == 1)
        #expect(outcome.out.contains("findings:\n  + error: new.lua: cannot go back"), "\(outcome.out)")
        // The same fault in both, lines apart and under other names, is none.
        let moved = try folder.write("moved.lua", "\n" + broken)
        let same = try Programs.run(["diff", new, moved], input: "")
        #expect(same.status == 0, "\(same.out)")
    }

    @Test func jsonMarkdownAndSvgSayTheSame() throws {
        let folder = try TemporaryDirectory()
        let old = try folder.write("old.lua", Self.app), new = try folder.write("new.lua", Self.withPayment)
        let json = try Programs.run(["diff", "--json", old, new], input: "")
        #expect(json.status == 1)
        let document = try FlowValue(json: json.out)
        #expect(document["format"] == 1 && document["differences"] == true)
        #expect(document["screenTypes"]?["added"] == ["Payment"] && document["reachable"]?["newly"] == ["Payment"])
        #expect(document["edges"]?["added"]?.listValue?.contains { $0["label"] == "pay" && $0["to"] == "Payment in App [authorization]" } == true)
        #expect(document["old"]?["complete"] == true && document["unknown"] == [])
        let markdown = try Programs.run(["diff", "--markdown", old, new], input: "")
        #expect(markdown.out.hasPrefix("### Flow diff: "), "\(markdown.out)")
        #expect(markdown.out.contains("- **added** `Payment`") && markdown.out.contains("- **newly reachable** `Payment`"), "\(markdown.out)")
        let svg = folder.path + "/diff.svg"
        let drawn = try Programs.run(["diff", "--svg", svg, old, new], input: "")
        #expect(drawn.status == 1, "\(drawn.err)")
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(text.contains("<svg") && text.contains("#2e7d32") && text.contains("Payment"))
        let same = try Programs.run(["diff", "--markdown", old, old], input: "")
        #expect(same.status == 0 && same.out.contains("No differences in the flow."))
    }

    /// A search cut short says that what lies past it is unknown, and within how many steps every
    /// difference is there.
    @Test func aSearchCutShortSaysDifferencesPastItAreUnknown() throws {
        let folder = try TemporaryDirectory()
        let old = try folder.write("old.lua", Self.app), new = try folder.write("new.lua", Self.withPayment)
        let outcome = try Programs.run(["diff", "--depth", "1", old, new], input: "")
        #expect(outcome.out.contains("note: exploring the new version stopped short (cut at the depth limit (1 step"), "\(outcome.out)")
        #expect(outcome.out.contains("differences past it are unknown"))
        #expect(outcome.out.contains("note: every difference within 1 step of the start is here"), "\(outcome.out)")
        let json = try Programs.run(["diff", "--depth", "1", "--json", old, new], input: "")
        #expect(try FlowValue(json: json.out)["withinSteps"] == 1, "\(json.out)")
    }

    /// Two git revisions of a repository, the script named after `--` from the folder the command runs in;
    /// the revisions' files are taken out to a temporary folder and removed after.
    @Test func twoRevisionsOfARepositoryCompare() throws {
        let folder = try TemporaryDirectory()
        _ = try folder.write("flows/app.lua", Self.app)
        func git(_ arguments: [String]) throws {
            let outcome = try Programs.run("/usr/bin/env", ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"] + arguments, input: "", folder: folder.path)
            #expect(outcome.status == 0, "\(arguments): \(outcome.err)")
        }
        try git(["init", "-q"])
        try git(["add", "."])
        try git(["commit", "-qm", "one"])
        _ = try folder.write("flows/app.lua", Self.withPayment)
        try git(["commit", "-qam", "two"])
        let temporary = NSTemporaryDirectory()
        let before = try FileManager.default.contentsOfDirectory(atPath: temporary).filter { $0.hasPrefix("coordrun-diff-") }
        let outcome = try Programs.run(Programs.coordrun, ["diff", "HEAD~1", "HEAD", "--", "app.lua"], input: "", folder: folder.path + "/flows")
        #expect(outcome.status == 1, "\(outcome.err)")
        #expect(outcome.out.hasPrefix("flow diff: HEAD~1:app.lua -> HEAD:app.lua\n") && outcome.out.contains("+ Payment"), "\(outcome.out)")
        let after = try FileManager.default.contentsOfDirectory(atPath: temporary).filter { $0.hasPrefix("coordrun-diff-") }
        #expect(Set(after) == Set(before))
        // The working tree's folder against a revision: the same change.
        let folders = try Programs.run(Programs.coordrun, ["diff", "HEAD~1", "HEAD", "--", "app.lua"], input: "", folder: folder.path)
        #expect(folders.status == 2 && folders.err.contains("HEAD~1 has no app.lua"), "\(folders.err)")
    }

    /// Two folders, the script found in each (app.lua, else scripts/app.lua, else the one after --).
    @Test func twoFoldersCompare() throws {
        let folder = try TemporaryDirectory()
        _ = try folder.write("a/scripts/app.lua", Self.app)
        _ = try folder.write("b/scripts/app.lua", Self.withPayment)
        let outcome = try Programs.run(["diff", folder.path + "/a", folder.path + "/b"], input: "")
        #expect(outcome.status == 1 && outcome.out.contains("+ Payment"), "\(outcome.out)\(outcome.err)")
        let named = try Programs.run(["diff", folder.path + "/a", folder.path + "/b", "--", "scripts/app.lua"], input: "")
        #expect(named.out == outcome.out)
    }

    /// A version that cannot be explored ends the diff with status 2 and says which.
    @Test func aVersionThatCannotBeExploredEndsWithStatusTwo() throws {
        let folder = try TemporaryDirectory()
        let old = try folder.write("old.lua", Self.app), broken = try folder.write("broken.lua", "local x = = 1\n")
        let outcome = try Programs.run(["diff", old, broken], input: "")
        #expect(outcome.status == 2)
        #expect(outcome.err.contains("cannot explore") && outcome.err.contains("broken.lua:1:"), "\(outcome.err)")
        let missing = try Programs.run(["diff", old, "no-such-version"], input: "")
        #expect(missing.status == 2 && missing.err.contains("no-such-version is no script or folder here"), "\(missing.err)")
        let options = try Programs.run(["diff", old, old, "--", "app.lua", "--json"], input: "")
        #expect(options.status == 2 && options.err.contains("the options before --"), "\(options.err)")
    }
}
