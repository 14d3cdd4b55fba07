#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A state's warnings (`warn(...)` from scripts, errors raised inside `__gc`): the pieces of a message
/// joined until its last, the control messages `@on` and `@off` obeyed as Lua's own `warnf` does, and each
/// whole message handed to the host's handler (standard error by default) while they are on.
final class LuaWarnings {
    /// Where a whole message goes (``LuaState/onWarning(_:)``).
    var handler: (String) -> Void = { message in
        var line = "Lua warning: \(message)\n"
        line.withUTF8 { buffer in _ = write(2, buffer.baseAddress, buffer.count) }
    }
    /// Whether messages reach the handler (``LuaState/warningsEnabled``, `@on`, `@off`).
    var enabled = true
    private var buffer = ""
    /// Whether the last piece said more pieces follow.
    private var continues = false

    /// A piece of a message. One in one piece that starts with `@` is a control message (`@on`, `@off`;
    /// others are ignored), as in Lua's own `warnf`: `warn("", "@on")` is a warning.
    func receive(_ piece: String, continues more: Bool) {
        if !continues, !more, piece.hasPrefix("@") {
            if piece == "@on" { enabled = true } else if piece == "@off" { enabled = false }
            return
        }
        buffer += piece
        continues = more
        guard !more else { return }
        let message = buffer
        buffer = ""
        if enabled { handler(message) }
    }
}
