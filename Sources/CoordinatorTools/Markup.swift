/// Text inside XML and HTML, scalar by scalar: what the JUnit report and the storyboard write of a test's or
/// an app's own text (names, messages, renderings), which must stay text and never become markup.
enum Markup {
    /// Text for content: the special characters escaped, a carriage return as a reference (a parser would
    /// turn CRLF into LF), the scalars XML 1.0 cannot hold (control characters, U+FFFE, U+FFFF) as `?`. A
    /// parser reads back the text, those scalars as `?`.
    static func text(_ text: String) -> String { escape(text, attribute: false) }

    /// Text for an attribute's value: as ``text(_:)``, and line feeds and tabs as references (a parser turns
    /// them into spaces in an attribute).
    static func attribute(_ text: String) -> String { escape(text, attribute: true) }

    private static func escape(_ text: String, attribute: Bool) -> String {
        text.replacingScalars { scalar in
            switch scalar {
            case "&": "&amp;"
            case "<": "&lt;"
            case ">": "&gt;"
            case "\"": "&quot;"
            case "'": "&apos;"
            case "\r": "&#13;"
            case "\n": attribute ? "&#10;" : nil
            case "\t": attribute ? "&#9;" : nil
            case "\u{FFFE}", "\u{FFFF}": "?"
            default: scalar.value < 32 ? "?" : nil
            }
        }
    }
}
