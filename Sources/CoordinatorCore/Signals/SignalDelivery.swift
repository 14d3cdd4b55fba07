/// Signal delivery: a signal spreads from its sender through the whole tree (see ``Signal``). An
/// application owns one, which numbers its deliveries.
final class SignalDelivery {
    /// Numbers deliveries, to mark the nodes a delivery reached.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    private var round = 0

    /// Delivers a signal breadth first from its sender: nearest nodes first, each node once.
    ///
    /// The queue holds whole neighbour lists (a coordinator's screens, its children, its parent) rather
    /// than single nodes, so crossing a node costs no reference counting of its own; nodes are marked with
    /// the number of this delivery instead of being kept in a set, so there is no hashing either. A list
    /// reached from a parent skips the upward step: a signal from the root never looks up.
    func send(_ signal: Signal, in app: Application, everyWindow: Bool = false) throws -> Signal {
        self.round &+= 1
        let round = self.round
        var queue: [SignalSegment] = []
        queue.reserveCapacity(16)
        signal.sender.mark(round)
        switch signal.sender {
        case .coordinator(let coordinator): enqueueNeighbors(of: coordinator, fromParent: false, into: &queue)
        case .screen(let screen): if let owner = screen.owner { queue.append(.coordinators([owner], fromParent: false)) }
        }
        // Then the trees of the other windows, from their roots (the sender's own is reached already).
        if everyWindow { queue.append(.coordinators(app.roots, fromParent: true)) }
        var head = 0, reached = 0
        deliver: while head < queue.count {
            let segment = queue[head]
            head += 1
            switch segment {
            case .screens(let screens):
                for screen in screens where screen.signalMark != round {
                    guard !signal.isStopped else { break deliver }
                    screen.signalMark = round
                    reached += 1
                    if !screen.signalHandlers.isEmpty, let handler = screen.signalHandlers[signal.name] {
                        try handler.run(signal)
                        signal.received(by: screen.name, id: screen.id)
                    }
                    // A screen's only other neighbour is its owner, which reached it.
                }
            case .coordinators(let coordinators, let fromParent):
                for coordinator in coordinators where coordinator.signalMark != round {
                    guard !signal.isStopped else { break deliver }
                    coordinator.signalMark = round
                    reached += 1
                    guard coordinator.status == .running else { continue } // a finished flow passes nothing on
                    // Asked before the handler runs: one that finishes its flow takes its handlers with it.
                    let hears = !coordinator.handlers.signals.isEmpty && coordinator.handlers.signals[signal.name] != nil
                    try coordinator.receive(signal)
                    if hears { signal.received(by: coordinator.name, id: coordinator.id) }
                    enqueueNeighbors(of: coordinator, fromParent: fromParent, into: &queue)
                }
            }
        }
        if signal.receivers.isEmpty { app.context.unheardSignals.note((signal.name, signal.sender.description)) }
        app.emit(.signal(signal.name, from: signal.sender.description, receivers: reached))
        return signal
    }

    /// Queues a coordinator's screens, the children signals may reach, and (unless it was reached from
    /// its parent) its parent.
    private func enqueueNeighbors(of coordinator: Coordinator, fromParent: Bool, into queue: inout [SignalSegment]) {
        let screens = coordinator.screens
        if !screens.isEmpty { queue.append(.screens(screens)) }
        let children = coordinator.children
        if !children.isEmpty {
            switch coordinator.handlers.signalIsolation {
            case .open: queue.append(.coordinators(children, fromParent: true))
            case .only(let chosen):
                let allowed = children.filter { child in chosen.contains { $0 === child } }
                if !allowed.isEmpty { queue.append(.coordinators(allowed, fromParent: true)) }
            }
        }
        if !fromParent, let parent = coordinator.parent { queue.append(.coordinators([parent], fromParent: false)) }
    }
}

/// Neighbours a signal reaches together: they are checked for a mark when their turn comes.
private enum SignalSegment {
    case screens([Screen])
    case coordinators([Coordinator], fromParent: Bool)
}
