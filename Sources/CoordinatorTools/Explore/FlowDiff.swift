import CoordinatorScript

/// What a change does to an app's flow (`coordrun diff OLD NEW`): both versions explored, and their flows
/// compared by what a reviewer reads — the screen types and outputs declared, the routes, the edges of the
/// flow graph by their screens and labels, the screens reached, the findings — never by state identities,
/// which change with any edit of the code.
package struct FlowDiff {
    /// One version as the diff compares it: what its scripts declare and what exploring it found.
    package struct Side {
        /// The screen types the scripts declare.
        package let screenTypes: Set<String>
        /// Every output of every screen type, as `Screen.output`.
        package let outputs: Set<String>
        /// The routes' patterns.
        package let routes: Set<String>
        /// The screen types shown in some state exploring reached.
        package let reached: Set<String>
        /// The flow graph's edges, each by its screens and label (``Edge``).
        package let edges: Set<Edge>
        /// The findings, each as its kind and first line, with the scripts' line numbers left out (an edit
        /// above a fault moves it, and it is the same fault) and the app's folder too (each version has its
        /// own); the main script's name is ``scriptMark``, so that two versions named apart compare.
        package let findings: Set<String>
        /// The main script's file name.
        package let scriptName: String
        /// What stands for the main script's name in ``findings``.
        static let scriptMark = "\u{1}script\u{1}"
        /// How far the search went (``ExploreReport/reach``), and whether it saw every reachable state.
        package let reach: String, complete: Bool
        /// Short of every state: within how many steps it found every one (``ExploreReport/completeWithin``).
        package let completeWithin: Int?

        /// The side of an app whose exploration gave `report`, with the screen types and routes its runtime
        /// declares.
        package init(report: ExploreReport, catalog: ScreenCatalog, routes: [Route], script: String) {
            let parts = script.split(separator: "/", omittingEmptySubsequences: false)
            scriptName = String(parts.last ?? "")
            let folder = parts.dropLast().joined(separator: "/")
            func normalized(_ message: String) -> String {
                var text = Self.withoutLineNumbers(message)
                text = text.replacing(script, with: Self.scriptMark)
                if !folder.isEmpty { text = text.replacing(folder + "/", with: "") }
                return text
            }
            screenTypes = Set(catalog.types.keys)
            outputs = Set(catalog.types.flatMap { name, type in type.outputs.map { name + "." + $0.name } })
            self.routes = Set(routes.map(\.pattern))
            reached = Set(report.states.flatMap(\.seen.shownTypes))
            let graph = FlowGraph(report)
            var names: [String: String] = [:]
            for node in graph.nodes { names[node.id] = Self.name(of: node) }
            edges = Set(graph.edges.map { Edge(from: names[$0.from] ?? $0.from, label: $0.label, to: names[$0.to] ?? $0.to, kind: $0.kind.rawValue) })
            findings = Set((report.reproducible.map { ($0.kind.rawValue, $0.finding) } + report.traps.map { ("trap", $0) }).map { kind, finding in
                kind + ": " + normalized(String(finding.message.split(separator: "\n", omittingEmptySubsequences: false).first ?? ""))
            })
            reach = report.reach
            complete = report.complete
            completeWithin = report.reachedFixedPoint ? nil : report.completeWithin
        }

        /// A node as an edge names it: the screen (an alert by its title, a modal with its presentation),
        /// the coordinator class that shows it, the gateway's state.
        static func name(of node: FlowGraph.Node) -> String {
            node.caption + " in " + (node.coordinator.isEmpty ? "the app" : node.coordinator) + " [" + node.gateway + "]"
        }

        /// `text` with each `file.lua:LINE` as `file.lua`.
        static func withoutLineNumbers(_ text: String) -> String {
            var result = "", rest = Substring(text)
            while let range = rest.firstRange(of: ".lua:") {
                result += rest[..<range.lowerBound] + ".lua"
                rest = rest[range.upperBound...]
                let digits = rest.prefix { $0.isASCII && $0.isNumber }
                if digits.isEmpty { result += ":" } else { rest = rest.dropFirst(digits.count) }
            }
            return result + rest
        }
    }

    /// An edge of the flow graph as both versions name it.
    package struct Edge: Hashable, Comparable, Sendable {
        /// The screen it leaves (``Side/name(of:)``).
        package let from: String
        /// The output (with the payload where one output leads several places), `back`, `swipe down`, ...
        package let label: String
        /// The screen it reaches.
        package let to: String
        /// How it is taken (``FlowGraph/Kind``).
        package let kind: String

        package static func < (a: Edge, b: Edge) -> Bool { (a.from, a.label, a.to) < (b.from, b.label, b.to) }
        /// `Cart in Cart [main] --checkout--> Payment in Checkout [main]`.
        package var text: String { from + " --" + label + "--> " + to }
    }

    /// What one kind of thing gained and lost, each sorted.
    package struct Change<Item: Hashable & Comparable> {
        package let added: [Item], removed: [Item]
        init(_ old: Set<Item>, _ new: Set<Item>) {
            added = new.subtracting(old).sorted()
            removed = old.subtracting(new).sorted()
        }
        package var isEmpty: Bool { added.isEmpty && removed.isEmpty }
    }

    /// The two versions compared.
    package let old: Side, new: Side
    package let screenTypes: Change<String>, outputs: Change<String>, routes: Change<String>, findings: Change<String>
    /// The edges drawn in one flow graph and not the other.
    package let edges: Change<Edge>
    /// The screen types reached in the new version and not the old (`added`), and the other way round.
    package let reachable: Change<String>

    /// The differences between `old` and `new`.
    package init(old: Side, new: Side) {
        self.old = old
        self.new = new
        screenTypes = Change(old.screenTypes, new.screenTypes)
        outputs = Change(old.outputs, new.outputs)
        routes = Change(old.routes, new.routes)
        findings = Change(old.findings, new.findings)
        edges = Change(old.edges, new.edges)
        reachable = Change(old.reached, new.reached)
    }

    /// Whether the two flows are the same in everything the diff compares.
    package var isEmpty: Bool {
        screenTypes.isEmpty && outputs.isEmpty && routes.isEmpty && findings.isEmpty && edges.isEmpty && reachable.isEmpty
    }

    /// Within how many steps the differences are complete: the smaller of the two sides' (nil when both
    /// searches saw every state).
    package var withinSteps: Int? {
        switch (old.completeWithin, new.completeWithin) {
        case let (a?, b?): min(a, b)
        case let (a?, nil): a
        case let (nil, b?): b
        case (nil, nil): nil
        }
    }

    /// What a search cut short leaves unknown, one sentence per side cut (none when both were complete),
    /// and within how many steps the differences are complete.
    package var unknowns: [String] {
        let within = withinSteps.map { ["every difference within \($0) step\($0 == 1 ? "" : "s") of the start is here"] } ?? []
        return within + 
        [("the old version", old), ("the new version", new)].compactMap { name, side in
            side.complete ? nil : "exploring \(name) stopped short (\(side.reach)): differences past it are unknown"
        }
    }

    /// The sections of the report, each a title and its lines, in the order a reviewer reads them.
    private var sections: [(title: String, added: [String], removed: [String])] {
        [("screen types", screenTypes.added, screenTypes.removed),
         ("outputs", outputs.added, outputs.removed),
         ("edges", edges.added.map(\.text), edges.removed.map(\.text)),
         ("reachable screens", reachable.added, reachable.removed),
         ("routes", routes.added, routes.removed),
         ("findings", findings.added.map { $0.replacing(Side.scriptMark, with: new.scriptName) },
          findings.removed.map { $0.replacing(Side.scriptMark, with: old.scriptName) })]
    }

    /// The report as text: `+` for what the new version adds, `-` for what it takes away.
    package func text(old oldName: String, new newName: String) -> String {
        var lines = ["flow diff: \(oldName) -> \(newName)"]
        if isEmpty { lines.append("no differences in the flow") }
        for section in sections where !section.added.isEmpty || !section.removed.isEmpty {
            lines.append(section.title + ":")
            let (added, removed) = section.title == "reachable screens" ? ("newly reachable: ", "no longer reachable: ") : ("+ ", "- ")
            lines += section.added.map { "  " + added + $0 } + section.removed.map { "  " + removed + $0 }
        }
        lines += unknowns.map { "note: " + $0 }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The report as Markdown, for a pull request's comment or a job summary: a heading, a summary line,
    /// then each section that changed as a list (Markdown's own characters in names escaped).
    package func markdown(old oldName: String, new newName: String) -> String {
        var lines = ["### Flow diff: \(Self.escaped(oldName)) → \(Self.escaped(newName))", ""]
        if isEmpty {
            lines.append("No differences in the flow.")
        } else {
            let counts = sections.filter { !$0.added.isEmpty || !$0.removed.isEmpty }.map { "\($0.title): +\($0.added.count) −\($0.removed.count)" }
            lines.append(counts.joined(separator: " · "))
        }
        for section in sections where !section.added.isEmpty || !section.removed.isEmpty {
            lines += ["", "#### " + section.title.prefix(1).uppercased() + section.title.dropFirst(), ""]
            let (added, removed) = section.title == "reachable screens" ? ("newly reachable", "no longer reachable") : ("added", "removed")
            lines += section.added.map { "- **\(added)** `\(Self.code($0))`" } + section.removed.map { "- **\(removed)** `\(Self.code($0))`" }
        }
        if !unknowns.isEmpty { lines += [""] + unknowns.map { "> **Note:** " + Self.escaped($0) } }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The report for machines (`--json`): `{"format": 1, "differences", "old", "new", "screenTypes",
    /// "outputs", "edges", "reachable", "routes", "findings", "unknown"}` (docs/Explore.md).
    package func json(old oldName: String, new newName: String) -> FlowValue {
        func change(_ change: Change<String>) -> FlowValue {
            ["added": .list(change.added.map(FlowValue.string)), "removed": .list(change.removed.map(FlowValue.string))]
        }
        func edge(_ edge: Edge) -> FlowValue { ["from": .string(edge.from), "label": .string(edge.label), "to": .string(edge.to), "kind": .string(edge.kind)] }
        func side(_ name: String, _ side: Side) -> FlowValue { ["name": .string(name), "reach": .string(side.reach), "complete": .bool(side.complete)] }
        var fields: FlowRecord = [
            "format": 1, "differences": .bool(!isEmpty), "old": side(oldName, old), "new": side(newName, new),
            "screenTypes": change(screenTypes), "outputs": change(outputs), "routes": change(routes),
            "findings": ["added": .list(sections[5].added.map(FlowValue.string)), "removed": .list(sections[5].removed.map(FlowValue.string))],
            "edges": ["added": .list(edges.added.map(edge)), "removed": .list(edges.removed.map(edge))],
            "reachable": ["newly": .list(reachable.added.map(FlowValue.string)), "noLonger": .list(reachable.removed.map(FlowValue.string))],
            "unknown": .list(unknowns.map(FlowValue.string)),
        ]
        if let withinSteps { fields["withinSteps"] = .int(withinSteps) }
        return .record(fields)
    }

    /// Both flows as one Graphviz graph: what both have in grey, what the new version adds in green, what
    /// it takes away in red and dashed; screens only one version reaches outlined in its colour.
    package var dot: String {
        let added = "#2e7d32", removed = "#c62828", same = "#9e9e9e"
        var ids: [String: String] = [:], order: [String] = []
        func id(_ name: String) -> String {
            if let id = ids[name] { return id }
            let id = "n\(ids.count + 1)"
            ids[name] = id
            order.append(name)
            return id
        }
        let all = old.edges.union(new.edges).sorted()
        for edge in all { _ = id(edge.from); _ = id(edge.to) }
        let oldNodes = Set(old.edges.flatMap { [$0.from, $0.to] }), newNodes = Set(new.edges.flatMap { [$0.from, $0.to] })
        var lines = ["digraph diff {", "  rankdir=LR;", "  graph [fontname=\"Helvetica\"];", "  node [shape=box, fontname=\"Helvetica\"];",
                     "  edge [fontname=\"Helvetica\", fontsize=10];"]
        for name in order {
            let color = !oldNodes.contains(name) ? added : !newNodes.contains(name) ? removed : "black"
            lines.append("  \(ids[name] ?? "") [label=\"\(FlowGraph.dotEscaped(name))\", color=\"\(color)\"\(color == "black" ? "" : ", penwidth=2")];")
        }
        for edge in all {
            let (color, style) = !old.edges.contains(edge) ? (added, "bold") : !new.edges.contains(edge) ? (removed, "dashed") : (same, "solid")
            lines.append("""
                  \(ids[edge.from] ?? "") -> \(ids[edge.to] ?? "") [label=\"\(FlowGraph.dotEscaped(edge.label))\", \
                color=\"\(color)\", fontcolor=\"\(color)\", style=\(style)];
                """)
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Text inside Markdown's code spans: a backtick cannot close it (it becomes a similar quote).
    static func code(_ text: String) -> String { text.replacingScalars { $0 == "`" ? "ˋ" : $0.value < 32 ? " " : nil } }

    /// Text in Markdown's prose: its punctuation escaped, so that a name never becomes markup or HTML.
    static func escaped(_ text: String) -> String {
        text.replacingScalars { scalar in
            "\\`*_{}[]()#+-!|<>~".unicodeScalars.contains(scalar) ? "\\" + String(scalar) : scalar.value < 32 ? " " : nil
        }
    }
}
