import CoordinatorScript

/// The flow as a graph (`coordrun explore --graph FILE`): a node per screen as each coordinator shows it
/// (an alert by its title), grouped by coordinator (a tab's flow labelled with its tab) and, when the app
/// passes through more than one, by gateway state; an edge per action that leads from one to another,
/// labelled with the output (and the payload, where one output leads to several places by its payload),
/// an output that changes only data drawn as a loop; system Back and swipe-down dashed; screens in a
/// modal drawn as such; a start node before the first screen. Switching tabs leads from every screen to
/// every tab, so it is not drawn: each tab is its group.
/// Written as Mermaid, Graphviz DOT or JSON; `coordrun` renders DOT as SVG or PNG with Graphviz's `dot`.
package struct FlowGraph: Sendable {
    /// A screen type shown by a coordinator class.
    package struct Node: Hashable, Sendable {
        /// Its id in the graph's text (`n3`).
        package let id: String
        /// The screen type (an alert's with its title: `Alert: Wrong password`).
        package let screen: String
        /// The class of the coordinator that shows it.
        package let coordinator: String
        /// How the modal it shows in is presented (`pageSheet`, `fullScreen, ...`), nil when it is in none.
        package let modal: String?
        /// Whether it shows in a modal.
        package var inModal: Bool { modal != nil }
        /// What the node says: the screen, with its modal's presentation when it is not a plain page sheet
        /// (`Onboarding (fullScreen)`, `Terms (pageSheet, not dismissable)`); an alert is an alert.
        package var caption: String {
            guard let modal, modal != Presentation().description, !screen.hasPrefix("Alert") else { return screen }
            return screen + " (" + modal + ")"
        }
        /// The title of the tab it shows in, when it is in one (and not in a modal).
        package let tab: String?
        /// The gateway's state it shows in.
        package let gateway: String
        /// Whether flow tests reached it (nil: no coverage given).
        package var tested: Bool?
    }

    /// How an edge was taken.
    package enum Kind: String, Sendable {
        /// An output of the screen.
        case output
        /// The system's Back.
        case back
        /// The swipe-down of a modal.
        case dismiss
        /// A tab switch (not drawn).
        case tab
        /// An event from outside the flows (a push notification, the app going to the background).
        case event
        /// Time passing until a timer fires.
        case time
        /// The outside answering a request.
        case answer
        /// The app closed and launched again (only its storage kept).
        case relaunch
    }

    /// One way from a node to another (or to itself: an output that changes only data).
    package struct Edge: Hashable, Sendable {
        /// The node it leaves.
        package let from: String
        /// The node it reaches.
        package let to: String
        /// The output's name (`back`, `swipe down` for the system's), with the payload where the same output
        /// leaves this node for several places.
        package let label: String
        /// How it was taken.
        package let kind: Kind
    }

    /// Its nodes, in the order the states were found.
    package private(set) var nodes: [Node] = []
    /// Its edges, each once.
    package private(set) var edges: [Edge] = []
    /// The node of the exploration's first state.
    package private(set) var start: String?

    /// The graph of what `report` found. `tested` (screen types flow tests reached, from `coordrun test
    /// --coverage-json`; an alert as `Alert: title`, or `Alert` for all) colours the nodes when given.
    package init(_ report: ExploreReport, tested: Set<String>? = nil) {
        var ids: [String: String] = [:]
        func node(_ state: ExploreReport.State) -> String {
            let (key, screen) = Self.key(screen: state.screen, title: state.title, owner: state.owner, modal: state.modal, gateway: state.gateway)
            let alert = state.screen == "Alert"
            if let id = ids[key] { return id }
            let id = "n\(nodes.count + 1)"
            ids[key] = id
            let reached = tested.map { $0.contains(screen) || (alert && $0.contains("Alert")) }
            nodes.append(Node(id: id, screen: screen, coordinator: state.owner, modal: state.modal,
                              tab: state.inModal ? nil : state.tab, gateway: state.gateway, tested: reached))
            return id
        }
        for state in report.states { _ = node(state) }
        start = report.states.first.map(node)
        // Each drawn action with its payload; labels are made once all are known.
        var taken: [(from: String, to: String, name: String, payload: FlowValue?, kind: Kind, label: String?, draws: [Int])] = []
        for transition in report.transitions {
            if case .sizeClass = transition.action { continue } // a rotation shows the same screens: not drawn
            let from = report.states[transition.from]
            // A step's random draws are no part of its name: they say where it went when it went to several places.
            var action = transition.action, draws: [Int] = []
            while case let .drawn(inner, values) = action { (action, draws) = (inner, draws + values) }
            let (name, payload, kind): (String, FlowValue?, Kind) = switch action {
            // A secret in a payload (a password) is drawn masked.
            case .tap(let output, let payload): (output, SecretText.shown(payload, of: report.secretOutputs[from.screen + "." + output]), .output)
            case .back: ("back", nil, .back)
            case .dismiss: ("swipe down", nil, .dismiss)
            case .selectTab(let index): ("tab \(index &+ 1)", nil, .tab)
            case .swipeTo(let index): ("swipe to page \(index &+ 1)", nil, .tab)
            case .sizeClass(let sizeClass): (sizeClass.rawValue, nil, .tab)
            case .open(let url): (url, nil, .output)
            case let .event(name, payload): ("event " + name, payload, .event)
            case .advance(let seconds): ("after " + AppClock.seconds(seconds) + " s", nil, .time)
            case let .answer(kind, _, outcome, _): ("answer " + kind + " " + outcome, nil, .answer)
            case .relaunch: ("relaunch", nil, .relaunch)
            case .openWindow: ("open a window", nil, .relaunch)
            case .selectWindow(let number): ("window \(number)", nil, .tab)
            case .closeWindow(let number): ("close window \(number)", nil, .relaunch)
            case .drawn: ("", nil, .output) // unwrapped above
            }
            // A switch to another tab is not drawn (each tab is its group); a tab that is a button acts,
            // selecting nothing (the selected tab stays, or a modal covers the bar): that edge is drawn.
            let to = report.states[transition.to]
            if kind == .tab, to.tab != nil, to.tab != from.tab { continue }
            taken.append((node(from), node(report.states[transition.to]), name, payload, kind, report.itemLabels[from.screen + "." + name], draws))
        }
        // An output that leads one node to several places: its edges say which payload goes where (of a
        // record, the fields whose values differ).
        var targets: [String: Set<String>] = [:], payloads: [String: [FlowValue]] = [:]
        for edge in taken {
            let key = edge.from + "\u{0}" + edge.name
            targets[key, default: []].insert(edge.to)
            if let payload = edge.payload { payloads[key, default: []].append(payload) }
        }
        var seen = Set<Edge>()
        for edge in taken {
            let key = edge.from + "\u{0}" + edge.name
            var label = edge.name
            if (targets[key]?.count ?? 0) > 1, let payload = edge.payload {
                // An item read by a field (`label = "subject"`) is named by it.
                if let field = edge.label, let text = payload[field]?.luaDisplayText {
                    label += " " + (text.count <= 40 ? text : String(text.prefix(39)) + "…")
                } else {
                    label += " " + Self.distinguishing(payload, among: payloads[key] ?? [])
                }
            }
            if (targets[key]?.count ?? 0) > 1, !edge.draws.isEmpty {
                label += " (random " + edge.draws.map(String.init).joined(separator: ", ") + ")"
            }
            let drawn = Edge(from: edge.from, to: edge.to, label: label, kind: edge.kind)
            if seen.insert(drawn).inserted { edges.append(drawn) }
        }
    }

    /// A state's node key (gateway, coordinator, screen, modal's presentation) and the screen as the node
    /// names it (an alert by its title): one rule for the states found and the app shown now
    /// (``node(showing:)``).
    static func key(screen: String, title: String?, owner: String, modal: String?, gateway: String) -> (key: String, screen: String) {
        let shown = screen.isEmpty ? "(nothing)" : screen == "Alert" ? "Alert" + (title.map { ": " + $0 } ?? "") : screen
        return ([gateway, owner, shown, modal.map { "modal " + $0 } ?? ""].joined(separator: "/"), shown)
    }

    /// How the top modal of `app` is presented, as nodes and states say it; nil when no modal is up.
    package static func modal(in app: Application) -> String? { app.window.modals.last.map(\.presentation.description) }

    /// The node of the state `app` shows now (its screen, the coordinator showing it, a modal up, the
    /// gateway), or nil when the exploration found no such state.
    package func node(showing app: Application) -> Node? {
        let screen = app.window.visibleScreen
        let key = Self.key(screen: screen?.name ?? "", title: screen?["title"]?.stringValue, owner: screen?.owner?.name ?? "",
                           modal: Self.modal(in: app), gateway: app.gateway.state.rawValue).key
        return nodes.first { Self.key(screen: $0.screen, title: nil, owner: $0.coordinator, modal: $0.modal, gateway: $0.gateway).key == key }
    }

    /// What tells `payload` apart from `others`: of a record, the fields whose values differ among them
    /// (`password = "wrong"`); else the whole value; at most 40 characters.
    static func distinguishing(_ payload: FlowValue, among others: [FlowValue]) -> String {
        var text = payload.luaLiteral
        if case .record(let record) = payload {
            let differing = record.fields.filter { field in others.contains { $0[field.key] != field.value } }
            if !differing.isEmpty { text = differing.map { "\($0.key) = \($0.value.luaLiteral)" }.joined(separator: ", ") }
        }
        return text.count <= 40 ? text : String(text.prefix(39)) + "…"
    }

    /// Groups: by gateway state when the app passes through more than one, then by coordinator, in the
    /// order first met, each with its label (`Catalog (tab)`).
    private var groups: [(gateway: String, label: String, nodes: [Node])] {
        var order: [String] = []
        var members: [String: [Node]] = [:]
        var labels: [String: String] = [:]
        for node in nodes {
            let key = node.gateway + "\u{0}" + node.coordinator
            if members[key] == nil { order.append(key) }
            members[key, default: []].append(node)
            let name = node.coordinator.isEmpty ? "app" : node.coordinator
            if labels[key] == nil || node.tab != nil {
                labels[key] = name + (node.tab.map { $0 == name ? " (tab)" : " (tab \($0))" } ?? "")
            }
        }
        return order.map { key in (members[key]?.first?.gateway ?? "", labels[key] ?? key, members[key] ?? []) }
    }

    /// The gateway states the nodes show in, in the order first met (one: no gateway groups are drawn).
    private var gateways: [String] {
        var seen = Set<String>(), order: [String] = []
        for node in nodes where seen.insert(node.gateway).inserted { order.append(node.gateway) }
        return order
    }

    /// Mermaid (`flowchart LR`): subgraphs per gateway state and coordinator, modal screens as rounded stadiums.
    package var mermaid: String {
        var lines = ["flowchart LR"]
        let byGateway = gateways.count > 1
        var group = 0
        for gateway in byGateway ? gateways : [""] {
            let indent = byGateway ? "    " : "  "
            if byGateway { lines.append("  subgraph gw\(gateways.firstIndex(of: gateway).map { $0 + 1 } ?? 0)[\"gateway: \(Self.mermaidEscaped(gateway))\"]") }
            for entry in groups where !byGateway || entry.gateway == gateway {
                group += 1
                lines.append(indent + "subgraph g\(group)[\"\(Self.mermaidEscaped(entry.label))\"]")
                for node in entry.nodes {
                    let text = Self.mermaidEscaped(node.caption)
                    lines.append(indent + "  " + node.id + (node.inModal ? "([\"\(text)\"])" : "[\"\(text)\"]"))
                }
                lines.append(indent + "end")
            }
            if byGateway { lines.append("  end") }
        }
        if let start { lines.append("  start((start)) --> \(start)") }
        for edge in edges {
            let arrow = edge.kind == .output ? "-->" : "-.->"
            lines.append("  \(edge.from) \(arrow)|\"\(Self.mermaidEscaped(edge.label))\"| \(edge.to)")
        }
        let tested = nodes.filter { $0.tested == true }.map(\.id), untested = nodes.filter { $0.tested == false }.map(\.id)
        if !tested.isEmpty || !untested.isEmpty {
            lines.append("  classDef tested fill:#c8f7c5,stroke:#2e7d32")
            lines.append("  classDef untested fill:#fde0dc,stroke:#c62828")
            if !tested.isEmpty { lines.append("  class \(tested.joined(separator: ",")) tested") }
            if !untested.isEmpty { lines.append("  class \(untested.joined(separator: ",")) untested") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Graphviz DOT: clusters per gateway state and coordinator, modal screens rounded and doubled, Back
    /// dashed, a point for the start.
    package var dot: String { dot(clustered: true) }

    /// ``dot``, with its clusters or without them (the same nodes and edges: for a graph whose clusters
    /// Graphviz cannot lay out, ``Graphviz``).
    package func dot(clustered: Bool) -> String {
        var lines = [
            "digraph flow {",
            "  rankdir=LR;",
            "  graph [fontname=\"Helvetica\"];",
            "  node [shape=box, fontname=\"Helvetica\"];",
            "  edge [fontname=\"Helvetica\", fontsize=10];"
        ]
        let byGateway = clustered && gateways.count > 1
        var group = 0
        for (g, gateway) in (byGateway ? gateways : [""]).enumerated() {
            let indent = byGateway ? "    " : "  "
            if byGateway {
                lines.append("  subgraph cluster_gateway_\(g + 1) {")
                lines.append("    label=\"gateway: \(Self.dotEscaped(gateway))\"; style=dashed; color=gray50;")
            }
            for entry in groups where !byGateway || entry.gateway == gateway {
                group += 1
                if clustered {
                    lines.append(indent + "subgraph cluster_\(group) {")
                    lines.append(indent + "  label=\"\(Self.dotEscaped(entry.label))\"; style=rounded; color=gray;")
                }
                for node in entry.nodes { lines.append(indent + "  \(node.id) [\(Self.attributes(of: node))];") }
                if clustered { lines.append(indent + "}") }
            }
            if byGateway { lines.append("  }") }
        }
        if let start {
            lines.append("  start [shape=point, width=0.15, label=\"\"];")
            lines.append("  start -> \(start);")
        }
        for edge in edges {
            var attributes = ["label=\"\(Self.dotEscaped(edge.label))\""]
            switch edge.kind {
            case .output: break
            case .back, .dismiss: attributes.append("style=dashed")
            case .tab: attributes.append("style=dotted")
            case .event: attributes.append(contentsOf: ["style=bold", "color=\"#b35c00\"", "fontcolor=\"#b35c00\""])
            case .time: attributes.append(contentsOf: ["style=bold", "color=\"#6a1b9a\"", "fontcolor=\"#6a1b9a\""])
            case .answer: attributes.append(contentsOf: ["style=bold", "color=\"#00796b\"", "fontcolor=\"#00796b\""])
            case .relaunch: attributes.append(contentsOf: ["style=\"bold,dashed\"", "color=\"#455a64\"", "fontcolor=\"#455a64\""])
            }
            lines.append("  \(edge.from) -> \(edge.to) [\(attributes.joined(separator: ", "))];")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A node's DOT attributes: its label; a modal's rounded, doubled shape; its fill (coverage's colour,
    /// or a modal's tint), with one `style` that says all of it.
    static func attributes(of node: Node) -> String {
        var styles: [String] = []
        var attributes = ["label=\"\(dotEscaped(node.caption))\""]
        if node.inModal { styles.append("rounded"); attributes.append("peripheries=2") }
        let fill: String? = switch node.tested {
        case true?: "#c8f7c5"
        case false?: "#fde0dc"
        case nil: node.inModal ? "#eef3ff" : nil
        }
        if let fill { styles.append("filled"); attributes.append("fillcolor=\"\(fill)\"") }
        if !styles.isEmpty { attributes.insert("style=\"\(styles.joined(separator: ","))\"", at: 1) }
        return attributes.joined(separator: ", ")
    }

    /// JSON: `{"start", "nodes": [{"id", "screen", "coordinator", "gateway", "modal", "presentation"?, "tab"?, "tested"?}],
    /// "edges": [{"from", "to", "label", "kind"}]}`.
    package var json: String {
        let nodeValues: [FlowValue] = nodes.map { node in
            var fields: FlowRecord = ["id": .string(node.id), "screen": .string(node.screen), "coordinator": .string(node.coordinator),
                                      "gateway": .string(node.gateway), "modal": .bool(node.inModal)]
            if let modal = node.modal { fields["presentation"] = .string(modal) }
            if let tab = node.tab { fields["tab"] = .string(tab) }
            if let tested = node.tested { fields["tested"] = .bool(tested) }
            return .record(fields)
        }
        let edgeValues: [FlowValue] = edges.map { [
            "from": .string($0.from),
            "to": .string($0.to),
            "label": .string($0.label),
            "kind": .string($0.kind.rawValue)
        ] }
        var fields: FlowRecord = ["nodes": .list(nodeValues), "edges": .list(edgeValues)]
        if let start { fields["start"] = .string(start) }
        return FlowValue.record(fields).prettyJSON + "\n"
    }

    /// A label's text inside DOT's double quotes, scalar by scalar (never by Character: a quote with a
    /// combining accent is still a quote): `"` and `\\` escaped with a backslash, line ends and other
    /// control characters as a space, and the scalars XML 1.0 cannot hold (dot writes SVG) as U+FFFD.
    static func dotEscaped(_ text: String) -> String {
        text.replacingScalars { scalar in
            switch scalar {
            case "\"": "\\\""
            case "\\": "\\\\"
            case "\u{FFFE}", "\u{FFFF}": "\u{FFFD}"
            default: scalar.value < 32 || scalar.value == 127 ? " " : nil
            }
        }
    }

    /// A label's text inside Mermaid's `["..."]` or `|"..."|`, scalar by scalar: the characters Mermaid
    /// reads in a label (`"`, `#`, `<`, `>`, `|`) as its entity codes (`#quot;`, `#35;`, ...), line ends
    /// and other control characters as a space, U+FFFE and U+FFFF as U+FFFD.
    static func mermaidEscaped(_ text: String) -> String {
        text.replacingScalars { scalar in
            switch scalar {
            case "\"": "#quot;"
            case "#": "#35;"
            case "<": "#lt;"
            case ">": "#gt;"
            case "|": "#124;"
            case "\u{FFFE}", "\u{FFFF}": "\u{FFFD}"
            default: scalar.value < 32 || scalar.value == 127 ? " " : nil
            }
        }
    }
}
