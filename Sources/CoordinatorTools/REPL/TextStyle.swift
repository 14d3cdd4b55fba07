import CoordinatorScript

/// How the REPL styles its text: ANSI colours for a terminal, or plain text for a pipe, a file or a test.
public struct TextStyle: Sendable {
    /// Whether text is coloured.
    public let colour: Bool

    /// A style with colours or without.
    public init(colour: Bool) { self.colour = colour }

    /// Plain text: every function returns its argument unchanged.
    public static let plain = TextStyle(colour: false)

    /// Headings: the screen's title, names in the tree.
    package func bold(_ s: String) -> String { colour ? "\u{1B}[1m\(s)\u{1B}[0m" : s }
    /// Action numbers.
    package func accent(_ s: String) -> String { colour ? "\u{1B}[36m\(s)\u{1B}[0m" : s }
    /// Secondary text: the stack line, reload reports.
    package func dim(_ s: String) -> String { colour ? "\u{1B}[2m\(s)\u{1B}[0m" : s }
    /// Error messages.
    package func error(_ s: String) -> String { colour ? "\u{1B}[31m\(s)\u{1B}[0m" : s }
    /// Text coordrun writes to a terminal made inert: a screen's name, title or rendering, a report's line,
    /// a message or an echoed line cannot move the cursor, set the window's title, write the clipboard
    /// (OSC 52) or hide what came before. Control characters but the line end and the tab are shown in caret
    /// notation (ESC as `^[`, CR as `^M`, DEL as `^?`), C1 controls as `<9B>`. Text that holds this style's
    /// own colours (`keepingColours`: the REPL's screens on a colour terminal) keeps the sequences they are
    /// made of (`ESC[0m`, `[1m`, `[2m`, `[31m`, `[36m`), which can colour text and do nothing else; any other
    /// text (a report, a message, a pipe) keeps no ESC at all. The one rule for all of coordrun's own text;
    /// what a script writes (`print`, `io.write`, the values the REPL prints) is not coordrun's, and stays
    /// as `lua` writes it.
    package static func inert(_ text: String, keepingColours: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) && $0 != "\n" && $0 != "\t" }) else { return text }
        let colours: Set<String> = ["[0m", "[1m", "[2m", "[31m", "[36m"]
        var out = String.UnicodeScalarView()
        let scalars = Array(text.unicodeScalars)
        var i = 0
        while i < scalars.count {
            let scalar = scalars[i]
            if keepingColours, scalar == "\u{1B}", let end = scalars[i...].prefix(5).firstIndex(of: "m"),
               colours.contains(String(String.UnicodeScalarView(scalars[(i + 1)...end]))) {
                out.append(contentsOf: scalars[i...end])
                i = end + 1
                continue
            }
            switch scalar.value {
            case 0x0A, 0x09: out.append(scalar)
            case 0..<0x20: out.append(contentsOf: "^".unicodeScalars); out.append(Unicode.Scalar(UInt8(scalar.value + 0x40)))
            case 0x7F: out.append(contentsOf: "^?".unicodeScalars)
            case 0x80..<0xA0: out.append(contentsOf: "<\(String(scalar.value, radix: 16, uppercase: true))>".unicodeScalars)
            default: out.append(scalar)
            }
            i += 1
        }
        return String(out)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) }

    /// A prompt for a line editor: the colour codes are marked (`\u{1}` ... `\u{2}`, as readline and libedit
    /// read them) as taking no room on the line.
    package func prompt(_ s: String) -> String { colour ? "\u{1}\u{1B}[36m\u{2}\(s)\u{1}\u{1B}[0m\u{2}" : s }
}
