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
    public func bold(_ s: String) -> String { colour ? "\u{1B}[1m\(s)\u{1B}[0m" : s }
    /// Action numbers.
    public func accent(_ s: String) -> String { colour ? "\u{1B}[36m\(s)\u{1B}[0m" : s }
    /// Secondary text: the stack line, reload reports.
    public func dim(_ s: String) -> String { colour ? "\u{1B}[2m\(s)\u{1B}[0m" : s }
    /// Error messages.
    public func error(_ s: String) -> String { colour ? "\u{1B}[31m\(s)\u{1B}[0m" : s }
    /// A prompt for a line editor: the colour codes are marked (`\u{1}` ... `\u{2}`, as readline and libedit
    /// read them) as taking no room on the line.
    public func prompt(_ s: String) -> String { colour ? "\u{1}\u{1B}[36m\u{2}\(s)\u{1}\u{1B}[0m\u{2}" : s }
}
