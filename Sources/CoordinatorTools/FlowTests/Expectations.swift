import CoordinatorScript

/// The Lua half of flow tests: `expect`, the assertions a test file calls. Each failure is an error at
/// the caller's line (level 2), so the message names the failing line of the test file, with what was
/// expected and what the app shows. Written over the driver functions (`top`, `stack`, `tree`) and the
/// harness's recorders (`__events`, `__finishes`), in Lua so that levels and messages are Lua's own.
enum Expectations {
    /// expectations.lua, beside this file.
    static let source = EmbeddedFile.expectationsLua
}
