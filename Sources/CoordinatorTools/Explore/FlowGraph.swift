import CoordinatorScript

/// The flow as a graph (`coordrun explore --graph FILE`): a node per screen type as each coordinator
/// shows it, grouped by coordinator (a tab's flow labelled with its tab); an edge per output that leads
/// from one to another, labelled with the output; system Back and swipe-down dashed; screens in a modal
/// drawn as such. Switching tabs leads from every screen to every tab, so it is not drawn: each tab is its
/// group.
/// Written as Mermaid, Graphviz DOT or JSON; `coordrun` renders DOT as SVG or PNG with Graphviz's `dot`.
public struct FlowGraph {
    /// A screen type shown by a coordinator class.
    public struct Node: Hashable {
        /// Its id in the graph's text (`n3`).
        public let id: String
        /// The screen type.
        public let screen: String
        /// The class of the coordinator that shows it.
        public let coordinator: String
        /// Whether it shows in a modal.
        public let inModal: Bool
        /// The title of the tab it shows in, when it is in one (and not in a modal).
        public let tab: String?
        /// Whether flow tests reached its screen type (nil: no coverage given).
        public var tested: Bool?
    }

    /// How an edge was taken.
    public enum Kind: String {
        /// An output of the screen.
        case output
        /// The system's Back.
        case back
        /// The swipe-down of a modal.
        case dismiss
        /// A tab switch (not drawn).
        case tab
    }

    /// One way from a node to another.
    public struct Edge: Hashable {
        /// The node it leaves.
        public let from: String
        /// The node it reaches.
        public let to: String
        /// The output's name (`back`, `swipe down` for the system's).
        public let label: String
        /// How it was taken.
        public let kind: Kind
    }

    /// Its nodes, in the order the states were found.
    public private(set) var nodes: [Node] = []
    /// Its edges, each once.
    public private(set) var edges: [Edge] = []

    /// The graph of what `report` found. `tested` (screen types flow tests reached, from `coordrun test
    /// --coverage-json`) colours the nodes when given.
    public init(_ report: ExploreReport, tested: Set<String>? = nil) {
        var ids: [String: String] = [:]
        func node(_ state: ExploreReport.State) -> String {
            let key = state.owner + "/" + state.screen + (state.inModal ? "/modal" : "")
            if let id = ids[key] { return id }
            let id = "n\(nodes.count + 1)"
            ids[key] = id
            nodes.append(Node(id: id, screen: state.screen.isEmpty ? "(nothing)" : state.screen, coordinator: state.owner,
                              inModal: state.inModal, tab: state.inModal ? nil : state.tab, tested: tested.map { $0.contains(state.screen) }))
            return id
        }
        for state in report.states { _ = node(state) }
        var seen = Set<Edge>()
        for transition in report.transitions where transition.from != transition.to {
            if case .selectTab = transition.action { continue }
            let (label, kind): (String, Kind) = switch transition.action {
            case .tap(let output, _): (output, .output)
            case .back: ("back", .back)
            case .dismiss: ("swipe down", .dismiss)
            case .selectTab(let index): ("tab \(index &+ 1)", .tab)
            case .open(let url): (url, .output)
            }
            let edge = Edge(from: node(report.states[transition.from]), to: node(report.states[transition.to]), label: label, kind: kind)
            if edge.from != edge.to, seen.insert(edge).inserted { edges.append(edge) }
        }
    }

    /// The nodes by coordinator, in the order first met, each group with its label (`Catalog · tab Catalog`).
    private var groups: [(label: String, nodes: [Node])] {
        var order: [String] = []
        var members: [String: [Node]] = [:]
        var labels: [String: String] = [:]
        for node in nodes {
            if members[node.coordinator] == nil { order.append(node.coordinator) }
            members[node.coordinator, default: []].append(node)
            let name = node.coordinator.isEmpty ? "app" : node.coordinator
            if labels[node.coordinator] == nil || node.tab != nil {
                labels[node.coordinator] = name + (node.tab.map { $0 == name ? " (tab)" : " (tab \($0))" } ?? "")
            }
        }
        return order.map { (labels[$0] ?? $0, members[$0] ?? []) }
    }

    /// Mermaid (`flowchart LR`): subgraphs per coordinator, modal screens as rounded stadiums.
    public var mermaid: String {
        var lines = ["flowchart LR"]
        for (i, group) in groups.enumerated() {
            lines.append("  subgraph g\(i + 1)[\"\(Self.escaped(group.label))\"]")
            for node in group.nodes {
                let text = Self.escaped(node.screen)
                lines.append("    " + node.id + (node.inModal ? "([\"\(text)\"])" : "[\"\(text)\"]"))
            }
            lines.append("  end")
        }
        for edge in edges {
            let arrow = switch edge.kind {
            case .output: "-->"
            case .back, .dismiss: "-.->"
            case .tab: "-.->"
            }
            lines.append("  \(edge.from) \(arrow)|\"\(Self.escaped(edge.label))\"| \(edge.to)")
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

    /// Graphviz DOT: clusters per coordinator, modal screens rounded and doubled, Back dashed, tabs dotted.
    public var dot: String {
        var lines = ["digraph flow {", "  rankdir=LR;", "  graph [fontname=\"Helvetica\"];", "  node [shape=box, fontname=\"Helvetica\"];", "  edge [fontname=\"Helvetica\", fontsize=10];"]
        for (i, group) in groups.enumerated() {
            lines.append("  subgraph cluster_\(i + 1) {")
            lines.append("    label=\"\(Self.escaped(group.label))\"; style=rounded; color=gray;")
            for node in group.nodes {
                var attributes = ["label=\"\(Self.escaped(node.screen))\""]
                if node.inModal { attributes.append("style=\"rounded,filled\"") ; attributes.append("peripheries=2") }
                switch node.tested {
                case true?: attributes += ["style=filled", "fillcolor=\"#c8f7c5\""]
                case false?: attributes += ["style=filled", "fillcolor=\"#fde0dc\""]
                case nil: if node.inModal { attributes.append("fillcolor=\"#eef3ff\"") }
                }
                lines.append("    \(node.id) [\(attributes.joined(separator: ", "))];")
            }
            lines.append("  }")
        }
        for edge in edges {
            var attributes = ["label=\"\(Self.escaped(edge.label))\""]
            switch edge.kind {
            case .output: break
            case .back, .dismiss: attributes.append("style=dashed")
            case .tab: attributes.append("style=dotted")
            }
            lines.append("  \(edge.from) -> \(edge.to) [\(attributes.joined(separator: ", "))];")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// JSON: `{"nodes": [{"id", "screen", "coordinator", "modal", "tab"?, "tested"?}], "edges": [{"from", "to", "label", "kind"}]}`.
    public var json: String {
        let nodeValues: [FlowValue] = nodes.map { node in
            var fields: FlowRecord = ["id": .string(node.id), "screen": .string(node.screen), "coordinator": .string(node.coordinator), "modal": .bool(node.inModal)]
            if let tab = node.tab { fields["tab"] = .string(tab) }
            if let tested = node.tested { fields["tested"] = .bool(tested) }
            return .record(fields)
        }
        let edgeValues: [FlowValue] = edges.map { ["from": .string($0.from), "to": .string($0.to), "label": .string($0.label), "kind": .string($0.kind.rawValue)] }
        return FlowValue.record(["nodes": .list(nodeValues), "edges": .list(edgeValues)]).prettyJSON + "\n"
    }

    /// Text safe inside a double-quoted label of DOT or Mermaid.
    static func escaped(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "\"": out += "'"
            case "\\": out += "/"
            case "\n": out += " "
            case "<", ">", "{", "}", "|", "[", "]": out += " "
            default: out.append(c)
            }
        }
        return out
    }
}
