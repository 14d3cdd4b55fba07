import CoordinatorScript

/// The app as a storyboard anyone can open (`coordrun storyboard SCRIPT -o DIR`): one self-contained HTML
/// page — no server, no script, nothing fetched — with the flow graph, each of its screens and edges a link,
/// and every screen type as cards, one for each look exploration reached it in (its title, its rendering,
/// its actions, the steps that lead there), painted with what flow tests reached when coverage is given.
package struct Storyboard {
    /// A screen as it looked in one state.
    package struct Card {
        /// Its title (an alert's own), and the screen type when the title is another.
        package let title: String
        /// Its rendering (or why it failed), or the text its look gives.
        package let body: String
        /// The fields its look names, each a label and a value as a person reads it.
        package let fields: [(label: String, value: String)]
        /// Its actions, as run mode lists them (`login PAYLOAD`, `open Shoes`), an alert's cancel and
        /// destructive ones marked (`Discard (destructive)`).
        package let actions: [String]
        /// Where it shows: the modal that presents it (`sheet at its medium detent`), the tabs or pages
        /// around it (`tabs: [Catalog] | Cart | Profile`), the split columns beside it; nil on a plain stack.
        package let context: String?
        /// The steps from the start as a person reads them (`open “Shoes” → add → tab 2`).
        package let steps: String
        /// The same steps as Lua, to run at the REPL.
        package let path: String

        /// Whether it looks like `other` (the steps to them aside).
        func looks(like other: Card) -> Bool {
            (title, body, actions, context) == (other.title, other.body, other.actions, other.context)
                && fields.map(\.label) == other.fields.map(\.label) && fields.map(\.value) == other.fields.map(\.value)
        }
    }

    /// The screen types, in the order first reached, each with its cards (at most ``maxCards``).
    package private(set) var cards: [(type: String, cards: [Card])] = []
    /// The screen types no state showed.
    package let unreached: [String]
    /// The flow graph.
    package let graph: FlowGraph
    /// What the search found, and how far it went.
    package let summary: String
    /// The most cards a screen type has.
    package let maxCards: Int

    /// The storyboard of what `explorer` found (`report`), at most `maxCards` cards a screen type (each a
    /// look not seen before, from the states in the order found); `tested` (screen types flow tests
    /// reached, `Alert: title` for an alert) paints the graph and the screen types.
    package init(report: ExploreReport, explorer: Explorer, maxCards: Int, tested: Set<String>? = nil) throws {
        self.maxCards = max(maxCards, 0)
        graph = FlowGraph(report, tested: tested)
        unreached = report.unreachedTypes
        summary = "\(report.states.count) states, \(report.transitions.count) transitions: " + report.reach
        // A secret in a step's payload (a password) is shown masked, as the flow graph shows it: by the
        // output's name, whatever screen has it (masking one too many is no harm).
        var secret: [String: OutputSpec] = [:]
        for (key, spec) in report.secretOutputs { secret[String(key.split(separator: ".").last ?? "")] = spec }
        func masked(_ path: [UserStep]) -> [UserStep] {
            path.map { step in
                guard case let .tap(output, payload) = step, let spec = secret[output] else { return step }
                return .tap(output, payload: SecretText.shown(payload, of: spec))
            }
        }
        var order: [String] = [], byType: [String: [Card]] = [:], full: Set<String> = []
        for state in report.states where !state.screen.isEmpty && !full.contains(state.screen) {
            let card = try explorer.visit(state.path, key: state.key) { runtime in Self.card(of: runtime.app, path: masked(state.path)) }
            guard let card else { continue }
            if byType[state.screen] == nil { order.append(state.screen) }
            // A look not seen before (the first state that shows it, the nearest to the start).
            if !(byType[state.screen] ?? []).contains(where: { $0.looks(like: card) }) { byType[state.screen, default: []].append(card) }
            if (byType[state.screen]?.count ?? 0) >= self.maxCards { full.insert(state.screen) }
        }
        cards = order.map { ($0, byType[$0] ?? []) }
        self.tested = tested
    }

    private let tested: Set<String>?

    /// The visible screen of `app` as a card, or nil when none shows.
    static func card(of app: Application, path: [UserStep]) -> Card? {
        guard let screen = app.window.visibleScreen else { return nil }
        // As the screen's look says it looks, where it says (its title, its text, its fields).
        let look = screen.type.look
        let shownTitle = Readable.title(of: screen)
        let title = shownTitle == screen.name ? screen.name : shownTitle + " (" + screen.name + ")"
        // Each action as the screen offers it: an output by its name (with the control its look gives a
        // value), an item of a list by its label.
        let actions = ((try? ScreenAction.actions(of: screen)) ?? []).map { action -> String in
            if action.needsPayload { return action.output + (look?.controls[action.output].map { " (" + $0.rawValue + ")" } ?? "") }
            return Readable.row(of: action)?.title ?? action.label
        }
        var context: [String] = []
        if let presentation = Readable.presentation(of: screen, in: app) { context.append("presented as " + presentation) }
        if let tabs = app.visibleTabs {
            context.append(ScreenDisplay.line(of: tabs))
        } else if let pages = app.window.visiblePages {
            context.append(ScreenDisplay.line(of: pages))
        } else if let split = app.window.visibleSplit {
            let beside = split.columnTops.filter { $0.screen !== screen }.reversed().map { $0.screen.name + " (" + $0.column.rawValue + ")" }
            if !beside.isEmpty { context.append("beside: " + beside.joined(separator: ", ")) }
        }
        let fields = (look?.fields ?? []).map { ($0.label, screen[$0.input].map(Readable.text(of:)) ?? "—") }
        return Card(title: title, body: look?.text ?? ScreenDisplay.text(of: screen), fields: fields, actions: actions,
                    context: context.isEmpty ? nil : context.joined(separator: "; "),
                    steps: path.isEmpty ? "(the start)" : path.map(Readable.step).joined(separator: " → "),
                    path: path.map(\.luaSource).joined(separator: " "))
    }

    /// The anchor of screen type number `index` (names are the app's: never part of an id).
    static func anchor(type index: Int) -> String { "type-\(index + 1)" }

    /// The flow graph in Graphviz DOT, each screen linking to its screen type's cards and each edge to its
    /// entry in the list of transitions.
    package var dot: String { dot(clustered: true) }

    /// ``dot``, with the graph's clusters or without them (``FlowGraph/dot(clustered:)``).
    package func dot(clustered: Bool) -> String {
        var types: [String: Int] = [:]
        for (i, entry) in cards.enumerated() { types[entry.type] = i }
        var text = graph.dot(clustered: clustered)
        for node in graph.nodes {
            let type = node.screen.hasPrefix("Alert") ? "Alert" : node.screen
            guard let index = types[type] else { continue }
            // A node's line is its id and its attributes, however deep its cluster (`    n3 [label=...]`).
            text = text.replacing(" \(node.id) [", with: " \(node.id) [URL=\"#\(Self.anchor(type: index))\", ")
        }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var edge = 0
        for i in lines.indices where lines[i].contains(" -> ") && lines[i].hasSuffix("];") && !lines[i].hasPrefix("  start") {
            edge += 1
            lines[i] = String(lines[i].dropLast(2)) + ", URL=\"#edge-\(edge)\"];"
        }
        return lines.joined(separator: "\n")
    }

    /// What the page shows where its flow would be when Graphviz could not draw it (`why`), its graph
    /// written beside the page as `flow.dot`.
    package static func undrawnFlow(_ why: String) -> String {
        "<p>" + escaped("The flow could not be drawn (\(why)); its graph is in flow.dot beside this page.") + "</p>"
    }

    /// The page, with `svg` (``dot`` drawn by Graphviz) as its flow; `title` names the app.
    package func html(title: String, svg: String) -> String {
        let e = Self.escaped
        var types: [String: Int] = [:]
        for (i, entry) in cards.enumerated() { types[entry.type] = i }
        func link(_ node: String) -> String {
            guard let n = graph.nodes.first(where: { $0.id == node }) else { return e(node) }
            let type = n.screen.hasPrefix("Alert") ? "Alert" : n.screen
            let label = e(n.caption) + " <span class=\"owner\">in " + e(n.coordinator.isEmpty ? "the app" : n.coordinator) + "</span>"
            return types[type].map { "<a href=\"#\(Self.anchor(type: $0))\">" + label + "</a>" } ?? label
        }
        var screens = ""
        for (i, entry) in cards.enumerated() {
            let state = tested.map { set -> String in
                let reached = set.contains(entry.type) || (entry.type == "Alert" && set.contains { $0.hasPrefix("Alert") })
                return reached ? " tested" : " untested"
            } ?? ""
            let badge = state.isEmpty ? "" : "<span class=\"badge\">" + (state == " tested" ? "tested" : "not tested") + "</span>"
            screens += "<section class=\"type\(state)\" id=\"\(Self.anchor(type: i))\" aria-labelledby=\"\(Self.anchor(type: i))-title\">\n"
            screens += """
                <h3 id=\"\(Self.anchor(type: i))-title\">\(e(entry.type))\(badge) <span \
                class=\"summary\">\(entry.cards.count) look\(entry.cards.count == 1 ? "" : "s")</span></h3>\n<div \
                class=\"cards\">\n
                """
            for card in entry.cards {
                screens += "<article class=\"card\">\n<h4>\(e(card.title))</h4>\n"
                if !card.body.isEmpty { screens += "<pre>\(e(card.body))</pre>\n" }
                if !card.fields.isEmpty {
                    screens += "<dl>" + card.fields.map { "<dt>\(e($0.label))</dt><dd>\(e($0.value))</dd>" }.joined() + "</dl>\n"
                }
                if !card.actions.isEmpty { screens += "<ul aria-label=\"actions\">" + card.actions.map { "<li>\(e($0))</li>" }.joined() + "</ul>\n" }
                if let context = card.context { screens += "<p class=\"context\">\(e(context))</p>\n" }
                screens += "<p class=\"steps\">after: \(e(card.steps))</p>\n"
                if !card.path.isEmpty { screens += "<details class=\"path\"><summary>as Lua</summary><code>\(e(card.path))</code></details>\n" }
                screens += "</article>\n"
            }
            screens += "</div>\n</section>\n"
        }
        if !unreached.isEmpty {
            screens += "<section id=\"unreached\"><h3>Never reached</h3><p>" + unreached.map(e).joined(separator: ", ") + "</p></section>\n"
        }
        var transitions = ""
        var number = 0
        for edge in graph.edges {
            number += 1
            transitions += "<li id=\"edge-\(number)\">\(link(edge.from)) — <strong>\(e(edge.label))</strong> → \(link(edge.to))</li>\n"
        }
        return TextTemplate.filling(EmbeddedFile.storyboardHtml, with: [
            "title": e(title), "summary": e(summary), "flow": svg, "screens": screens, "transitions": transitions,
        ])
    }

    /// `text` safe in the page's text (``Markup/text(_:)``).
    static func escaped(_ text: String) -> String { Markup.text(text) }
}
