import Foundation
import Testing
import TestSupport

/// `coordrun init` makes a project that runs and passes its tests at once; `coordrun annotations` writes
/// the editor annotations and luacheck's configuration, under which the repository's and the scaffold's Lua
/// files are clean and planted typos are flagged.
@Suite struct EditorCommandTests {
    static let luacheck = "/usr/bin/luacheck"

    @Test func initMakesAProjectWhoseTestsPass() throws {
        let folder = try TemporaryDirectory()
        let made = try Programs.run(Programs.coordrun, ["init", "demo"], input: "", folder: folder.path)
        #expect(made.status == 0, "\(made.err)")
        #expect(made.out.hasSuffix("made demo: cd demo && \(Programs.coordrun) test\n"), "\(made.out)")
        let project = folder.path + "/demo"
        for file in ["app.lua", "app_test.lua", ".luarc.json", ".luacheckrc", ".gitignore", "README.md", ".github/workflows/flows.yml",
                     "annotations/coordinator.lua", "annotations/driver.lua", "annotations/app.lua"] {
            #expect(FileManager.default.fileExists(atPath: project + "/" + file), "\(file)")
        }
        let tests = try Programs.run(Programs.coordrun, ["test"], input: "", folder: project)
        #expect(tests.status == 0 && tests.out == "2 passed, 0 failed\n", "\(tests.out)\(tests.err)")
        #expect(try Programs.run(Programs.coordrun, ["routes", "app.lua"], input: "", folder: project).status == 0)
        #expect(readFile(project + "/annotations/app.lua")?.contains("---@class Notes: coordinator.Screen") == true)
        // Again into the same folder: refused, nothing overwritten.
        let again = try Programs.run(Programs.coordrun, ["init", "demo"], input: "", folder: folder.path)
        #expect(again.status == 1 && again.err.contains("demo exists and is not empty"), "\(again.err)")
    }

    func check(_ arguments: [String], folder: String) throws -> Programs.Outcome {
        try Programs.run(Self.luacheck, ["--no-color", "--formatter", "plain"] + arguments, input: "", folder: folder)
    }

    @Test func luacheckWithTheGeneratedConfigPassesTheRepositoryAndFlagsTypos() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.luacheck), "no luacheck: scripts/ensure-deps --test installs lua-check")
        let folder = try TemporaryDirectory()
        let written = try Programs.run(["annotations", "scripts/app.lua", "-o", folder.path + "/annotations", "--luacheckrc", folder.path + "/.luacheckrc"], input: "")
        #expect(written.status == 0 && written.out == "wrote coordinator.lua, driver.lua, app.lua to \(folder.path)/annotations and \(folder.path)/.luacheckrc\n", "\(written.out)\(written.err)")
        let repository = try check(["--config", folder.path + "/.luacheckrc", "scripts", "examples"], folder: repositoryRoot)
        #expect(repository.status == 0, "\(repository.out)")
        _ = try folder.write("typo_test.lua", """
            app "app.lua"
            test("typos", function()
              tapp("login")
              expect.stak { "Login" }
              expect.screen "Login"
            end)
            """)
        let typos = try check(["typo_test.lua"], folder: folder.path)
        #expect(typos.status != 0)
        #expect(typos.out.contains("typo_test.lua:3:3: accessing undefined variable 'tapp'"), "\(typos.out)")
        #expect(typos.out.contains("typo_test.lua:4:3: accessing undefined field 'stak' of global 'expect'"), "\(typos.out)")
        #expect(!typos.out.contains(":5:"), "\(typos.out)")
    }
}
