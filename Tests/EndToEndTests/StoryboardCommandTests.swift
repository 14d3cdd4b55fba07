import Foundation
import Testing
import TestSupport

/// `coordrun storyboard SCRIPT -o DIR`, through the real binary and, for the page itself, a real headless
/// Chromium opening it from its file.
@Suite struct StoryboardCommandTests {
    /// The `<article>`s of each screen type's section, by the type's heading.
    static func cards(in page: String) -> [String: Int] {
        var counts: [String: Int] = [:]
        for section in page.components(separatedBy: "<section class=\"type").dropFirst() {
            guard let heading = section.components(separatedBy: "-title\">").dropFirst(2).first?.prefix(while: { $0 != "<" && $0 != " " }) else { continue }
            counts[String(heading)] = section.components(separatedBy: "</section>")[0].components(separatedBy: "<article").count - 1
        }
        return counts
    }

    /// The storyboard page of `script` (a path from the repository's root), written by the real binary.
    static func page(of script: String) throws -> String {
        let folder = try TemporaryDirectory()
        let outcome = try Programs.run(["storyboard", script, "-o", folder.path + "/board"], input: "")
        #expect(outcome.status == 0, "\(outcome.err)")
        return try #require(readFile(folder.path + "/board/index.html"))
    }

    @Test func aPageWithEveryScreenTypeAsCardsAndNothingFetched() throws {
        let folder = try TemporaryDirectory()
        let outcome = try Programs.run(["storyboard", "examples/shop.lua", "-o", folder.path + "/board", "--max-cards", "2"], input: "")
        #expect(outcome.status == 0, "\(outcome.err)")
        #expect(outcome.out.hasPrefix("storyboard: \(folder.path)/board/index.html (9 screen types, "), "\(outcome.out)")
        let page = try #require(readFile(folder.path + "/board/index.html"))
        let cards = Self.cards(in: page)
        #expect(Set(cards.keys) == ["Categories", "Products", "Product", "Cart", "Checkout", "Paid", "Alert", "Profile", "Settings"], "\(cards)")
        #expect(cards.values.allSatisfy { (1...2).contains($0) }, "\(cards)")
        // Self-contained: nothing loads from anywhere, nothing runs.
        #expect(!page.contains("<script") && !page.contains(" src=") && !page.contains("href=\"http") && !page.contains("url("))
        #expect(page.contains("<svg") && page.contains("xlink:href=\"#edge-1\"") && page.contains("<li id=\"edge-1\">"))
        // The steps to a card as a person reads them (Lua kept under them); where a screen shows.
        #expect(page.contains("<p class=\"steps\">after: open “Shoes” → open “Trail runner”"), "the steps as a person reads them")
        #expect(page.contains("<summary>as Lua</summary><code>tap(&quot;open&quot;, {id = &quot;shoes&quot;"))
        #expect(page.contains("<p class=\"context\">presented as sheet</p>") && page.contains("<p class=\"context\">presented as alert</p>"))
        #expect(page.contains("<p class=\"context\">tabs: [Catalog] | Cart | Profile</p>"))
    }

    /// An action sheet's card marks its cancel and destructive actions.
    @Test func anAlertsCardMarksWhatItsActionsDo() throws {
        let page = try Self.page(of: "examples/social.lua")
        #expect(page.contains("<li>Discard (destructive)</li><li>Keep editing (cancel)</li>"), "the action sheet's actions")
        #expect(page.contains("<p class=\"context\">presented as action sheet</p>"))
    }

    /// A split's detail card says what is beside it; a card reached by a rotation says so.
    @Test func aSplitsCardsSayWhatIsBesideThem() throws {
        let page = try Self.page(of: "examples/split.lua")
        #expect(page.contains("<p class=\"context\">beside: Settings (primary)</p>\n<p class=\"steps\">after: open “Bluetooth”</p>"), "\(page)")
        #expect(page.contains("<p class=\"steps\">after: compact window</p>"))
    }

    /// What the app writes is text on the page, never markup; a secret in a step's payload is masked.
    @Test func theAppsTextIsInertAndSecretsAreMasked() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("app.lua", """
            local flow = require "coordinator"
            flow.screen "Evil" { title = "<img src=x onerror=alert(1)>", outputs = { login = { secret = { "password" } } },
              examples = { login = { { password = "hunter2" } } }, render = function() return "</pre><script>alert(2)</script>" end }
            flow.screen "Next" {}
            local App = flow.coordinator "App"
            function App:start() self:push("Evil").onLogin = function() self:push("Next") end end
            flow.app(App)
            """)
        let outcome = try Programs.run(["storyboard", script, "-o", folder.path + "/board"], input: "")
        #expect(outcome.status == 0, "\(outcome.err)")
        let page = try #require(readFile(folder.path + "/board/index.html"))
        #expect(!page.contains("<script") && !page.contains("<img"), "markup from the app")
        #expect(page.contains("&lt;/pre&gt;&lt;script&gt;alert(2)&lt;/script&gt;") && page.contains("&lt;img src=x onerror=alert(1)&gt;"))
        #expect(!page.contains("hunter2") && page.contains("password = &quot;•••&quot;"))
    }

    /// With the flow tests' coverage, each screen type says whether a test reached it.
    @Test func coverageMarksWhatTheTestsReached() throws {
        let folder = try TemporaryDirectory()
        let coverage = folder.path + "/coverage.json"
        let tests = try Programs.run(["test", "scripts/app_test.lua", "--coverage-json", coverage], input: "")
        #expect(tests.status == 0, "\(tests.err)")
        let outcome = try Programs.run(["storyboard", "scripts/app.lua", "-o", folder.path + "/board", "--coverage", coverage], input: "")
        #expect(outcome.status == 0, "\(outcome.err)")
        let page = try #require(readFile(folder.path + "/board/index.html"))
        #expect(page.contains("<section class=\"type tested\"") && page.contains("<span class=\"badge\">tested</span>"))
        let missing = try Programs.run(["storyboard", "scripts/app.lua", "-o", folder.path + "/other", "--coverage", folder.path + "/none.json"], input: "")
        #expect(missing.status == 2 && missing.err.contains("--coverage: cannot read"))
    }

    /// A screen type's look draws its cards: its title and text, its fields, its actions by name (a value's
    /// control beside it) and its items by their labels.
    @Test func aScreensLookDrawsItsCards() throws {
        let folder = try TemporaryDirectory()
        let outcome = try Programs.run(["storyboard", "Tests/Browser/look_app.lua", "-o", folder.path + "/board"], input: "")
        #expect(outcome.status == 0, "\(outcome.err)")
        let page = try #require(readFile(folder.path + "/board/index.html"))
        for part in ["<h4>Send money (Transfer)</h4>", "<pre>Choose who gets it.</pre>", "<dt>From</dt><dd>Savings</dd>",
                     "<li>rating (stars)</li>", "<li>pin (secure)</li>", "<li>Anna</li>"] {
            #expect(page.contains(part), "\(part)")
        }
        #expect(!page.contains("PAYLOAD") && !page.contains("(pay)"))
    }

    @Test func aScriptThatDoesNotLoadEndsWithStatusTwo() throws {
        let folder = try TemporaryDirectory()
        let broken = try folder.write("broken.lua", "local x = = 1\n")
        let outcome = try Programs.run(["storyboard", broken, "-o", folder.path + "/board"], input: "")
        #expect(outcome.status == 2 && outcome.err.contains("broken.lua:1:"), "\(outcome.err)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/board/index.html"))
    }

    /// In headless Chromium, from the file: an arrow of the graph leads to its transition, a screen to its
    /// cards; the page fits a phone's width; the dark palette applies (screenshots in the test's folder).
    @Test func thePageOpensFromItsFileAndItsGraphLinksWhatItJoins() throws {
        let python = try PreviewBrowserTests.python()
        let folder = try TemporaryDirectory()
        let outcome = try Programs.run(["storyboard", "scripts/app.lua", "-o", folder.path + "/board"], input: "")
        #expect(outcome.status == 0, "\(outcome.err)")
        let browser = try Programs.run(python, [repositoryRoot + "/Tests/Browser/storyboard_test.py", folder.path + "/board/index.html", folder.path + "/shots"],
                                       input: "", within: 300)
        #expect(browser.status == 0, "\(browser.out)\(browser.err)")
        #expect(browser.out.contains("ok: the dark palette is another"), "\(browser.out)")
        for shot in ["storyboard-desktop.png", "storyboard-phone.png", "storyboard-dark.png"] {
            #expect(FileManager.default.fileExists(atPath: folder.path + "/shots/" + shot), "\(shot)")
        }
    }
}
