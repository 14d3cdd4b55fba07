import Testing
import TestSupport
@testable import coordrun

/// coordrun reads its long options the way lua.c reads `-e`: by walking the command line itself, so it needs
/// to know each option's name and whether it takes a value before ArgumentParser parses them. Those come
/// from ArgumentParser's own description of the options: every option `coordrun --help` lists is known,
/// with a value exactly when the help shows one.
@Suite struct LongOptionsTests {
    @Test func everyLongOptionTheHelpListsIsKnownWithItsValue() throws {
        let help = try Programs.run(Programs.coordrun, ["--help"], input: "")
        #expect(help.status == 0, "\(help.err)")
        var listed: [String: Bool] = [:]
        for line in help.out.split(separator: "\n") {
            let words = line.split(separator: " ")
            // `--help` and `--version` are the command's own, which the command line reads before these.
            guard let name = words.first, name.hasPrefix("--"), name != "--help", name != "--version" else { continue }
            listed[String(name)] = words.count > 1 && words[1].hasPrefix("<")
        }
        #expect(listed.count >= 10, "\(help.out)")
        for (name, takesValue) in listed {
            #expect(CoordRunOptions.longOptions[name] == takesValue, "\(name): known as \(String(describing: CoordRunOptions.longOptions[name]))")
        }
        #expect(CoordRunOptions.longOptions["--timeout"] == true && CoordRunOptions.longOptions["--watch"] == false)
        #expect(CoordRunOptions.longOptions["--memory-limit"] == true && CoordRunOptions.longOptions["--sandbox"] == false)
    }
}
