import Testing
@testable import coordrun

/// The terminal's wait for input asks whether a Ctrl-C came before it blocks (with SIGINT held back until
/// the wait lets it in): a Ctrl-C pressed between two keys ends the wait at once instead of being seen only
/// after the next key.
@Suite struct InputWaitTests {
    @Test func aCtrlCThatCameBeforeTheWaitEndsItAtOnce() {
        var asked = 0
        let wait = Terminal.waitForStandardInput(milliseconds: -1) { asked += 1; return true }
        #expect(wait == .interrupted)
        #expect(asked == 1)
    }

    @Test func withoutACtrlCTheWaitEndsWithItsTime() {
        let wait = Terminal.waitForStandardInput(milliseconds: 0) { false }
        #expect(wait != .interrupted)
    }
}
