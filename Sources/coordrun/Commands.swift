import CoordinatorCore
import CoordinatorScript
import LuaKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `:commands` of run mode and the REPL: inspection and reload.
extension Driver {
    static let commands: [(name: String, usage: String, help: String)] = [
        ("help", ":help", "this list"),
        ("reload", ":reload", "run the app's script files again, keeping the live app (also reload())"),
        ("tree", ":tree", "the coordinator tree, each coordinator with its screens"),
        ("hierarchy", ":hierarchy", "the window: stacks, modals, tabs, alerts"),
        ("screen", ":screen [ID|NAME]", "a screen's inputs and outputs (the visible one by default)"),
        ("events", ":events [N]", "the last N navigation events (default 20)"),
        ("show", ":show", "the visible screen and its numbered actions"),
        ("N", ":N", "trigger the visible screen's action N"),
    ]

    func command(_ text: String) throws {
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let name = words.first else { return try command("help") }
        let argument = words.dropFirst().joined(separator: " ")
        if let number = Int(name) { return try tapAction(number) }
        switch name {
        case "help", "h", "?":
            let width = Self.commands.map(\.usage.count).max() ?? 0
            var out = Self.commands.map { "  " + $0.usage.padding(to: width) + "  " + $0.help }.joined(separator: "\n")
            out += "\nLua: tap(output [, payload]), back(), top(), stack(), tree(), tab(n), reload(); =EXPR prints EXPR"
            terminal.write(out + "\n")
        case "reload", "r":
            reload()
        case "tree", "t":
            guard let root = app.root else { return terminal.write("(no app is running)\n") }
            terminal.write(treeText(root, depth: 0))
        case "hierarchy":
            terminal.write(app.window.hierarchyDescription + "\n")
        case "screen", "s":
            terminal.write(try screenText(argument))
        case "events", "e":
            let count = argument.isEmpty ? 20 : Int(argument) ?? 20
            let recent = events.recent(count)
            terminal.write(recent.isEmpty ? "(no navigation events yet)\n" : recent.joined(separator: "\n") + "\n")
        case "show":
            show()
        default:
            throw LuaError(.misuse, "unknown command ':\(name)' (:help lists them)")
        }
    }

    /// Deeper levels than this are not indented further: their lines say their depth instead, so the text
    /// stays linear in the size of the tree however deep it is.
    static let maxTreeIndent = 32

    /// The tree as indented lines, one per coordinator, built without recursion.
    func treeText(_ root: Coordinator, depth: Int) -> String {
        var lines: [String] = []
        var pending: [(Coordinator, Int)] = [(root, depth)]
        while let (coordinator, depth) = pending.popLast() {
            let indent = String(repeating: "  ", count: min(depth, Self.maxTreeIndent))
                + (depth > Self.maxTreeIndent ? "[depth \(depth)] " : "")
            let screens = coordinator.screens.map { "\($0.name)#\($0.id)" + ($0.isShown ? "" : " (hidden)") }
            var line = indent + terminal.bold("\(coordinator.name)#\(coordinator.id)")
            if coordinator.status != .running { line += " (\(coordinator.status.rawValue))" }
            if !screens.isEmpty { line += "  " + terminal.dim("screens: ") + screens.joined(separator: ", ") }
            lines.append(line)
            for child in coordinator.children.reversed() { pending.append((child, depth + 1)) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func screenText(_ which: String) throws -> String {
        let screens = app.window.allScreens
        let screen: Screen?
        if which.isEmpty { screen = app.window.visibleScreen }
        else if let id = Int(which.hasPrefix("#") ? String(which.dropFirst()) : which) { screen = screens.first { $0.id == id } }
        else { screen = screens.last { $0.name == which } }
        guard let screen else {
            throw NavigationError(.noVisibleScreen, which.isEmpty ? "no screen is visible" : "no shown screen is '\(which)' (shown: \(screens.map { "\($0.name)#\($0.id)" }.joined(separator: ", ")))")
        }
        var text = terminal.bold("\(screen.name)#\(screen.id)") + " \"\(screen.title)\"" + (screen.owner.map { " shown by \($0.name)#\($0.id)" } ?? "") + "\n"
        text += "  inputs:\n"
        for input in screen.type.inputs {
            let value = screen[input.name].map { $0.description } ?? "nil"
            text += "    \(input.name)\(input.required ? " (required)" : ""): \(value)\n"
        }
        if screen.type.inputs.isEmpty { text += "    (none)\n" }
        text += "  outputs:\n"
        for output in screen.outputs {
            let payload: String
            switch output.payload {
            case .none: payload = ""
            case .value: payload = " (value)"
            case .choice(let from): payload = " (one of \(from))"
            }
            text += "    \(output.name)\(payload)\(screen.hasHandler(for: output.name) ? "" : "  -- no handler")\n"
        }
        if screen.outputs.isEmpty { text += "    (none)\n" }
        return text
    }
}

/// The most recent navigation events, for `:events`.
final class EventLog {
    private var ring: [String] = []
    private var next = 0
    private var total = 0
    let capacity = 200

    init(app: Application) {
        _ = app.observe { [weak self] event in self?.append("\(event)") }
    }

    func append(_ text: String) {
        total += 1
        let line = "\(total). " + text
        if ring.count < capacity { ring.append(line) } else { ring[next] = line }
        next = (next + 1) % capacity
    }

    func recent(_ count: Int) -> [String] {
        let ordered = ring.count < capacity ? ring : Array(ring[next...] + ring[..<next])
        return Array(ordered.suffix(max(0, count)))
    }
}

extension String {
    func padding(to width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}

/// Output with optional colour, written straight to the file descriptors so that standard output and
/// standard error appear in the order they were produced.
struct Terminal {
    let colour: Bool

    func write(_ text: String) { writeAll(1, text) }

    func error(_ text: String) { writeAll(2, (colour ? "\u{1B}[31m" + text + "\u{1B}[0m" : text) + "\n") }

    func bold(_ s: String) -> String { colour ? "\u{1B}[1m\(s)\u{1B}[0m" : s }
    func accent(_ s: String) -> String { colour ? "\u{1B}[36m\(s)\u{1B}[0m" : s }
    func dim(_ s: String) -> String { colour ? "\u{1B}[2m\(s)\u{1B}[0m" : s }
    /// A prompt for libedit: colour codes marked as taking no room on the line.
    func prompt(_ s: String) -> String { colour ? "\u{1}\u{1B}[36m\u{2}\(s)\u{1}\u{1B}[0m\u{2}" : s }
}

/// Writes every byte of `text` to a file descriptor.
func writeAll(_ fd: Int32, _ text: String) {
    var text = text
    text.withUTF8 { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            if written <= 0 { return }
            offset += written
        }
    }
}
