import CoordinatorTools

/// The line long work writes over on a terminal's standard error (`coordrun explore`, `storyboard`, `diff`):
/// what is being done and how far it has come, rewritten in place, and gone before the command's own
/// output. Where standard error is no terminal, nothing is written.
struct ProgressLine {
    /// Whether standard error is a terminal.
    let shown = Terminal.isTerminal(2)

    /// Says `text` in place of what the line said.
    func say(_ text: String) {
        guard shown else { return }
        Terminal.writeError("\r\u{1B}[K" + text)
    }

    /// Has `explorer` say on the line how far its search has come, after `label`.
    func follow(_ explorer: Explorer, label: String) {
        guard shown else { return }
        say(label + "exploring")
        explorer.progress = { p in
            say("""
                \(label)\(p.states) states, \(p.transitions) transitions, \(p.frontier) to expand, \
                \(Int(Double(p.transitions) / max(p.seconds, 1e-9))) transitions/s
                """)
        }
    }

    /// Takes the line away.
    func clear() {
        guard shown else { return }
        Terminal.writeError("\r\u{1B}[K")
    }
}
