/// The app's clock: virtual and deterministic. Time passes only when the user's side says so
/// (``Application/advance(by:)``, a step like a tap): every timer that falls due by then fires, in the
/// order it falls due (timers due at the same moment in the order they were made), the ones made meanwhile
/// too. A host drives it from real time; a test or exploration moves it by exactly the time it means.
///
/// A timer belongs to the coordinator that made it (``Coordinator/after(_:_:)``,
/// ``Coordinator/every(_:_:)``) and is cancelled, its action released, when that coordinator finishes.
/// Every change (a timer made, fired or cancelled, the clock moved) is undone with a failed operation.
public final class AppClock {
    /// Seconds since the app began (0 at the start).
    public private(set) var now: Double = 0
    /// The pending timers, in the order they fall due (ties: made first, first).
    public private(set) var timers: [AppTimer] = []
    /// How many timers one ``advance(by:in:)`` may fire: past it, the step fails (a repeating timer of a
    /// tiny period over a long time would never end).
    package static let maximumFirings = 100_000
    private var made = 0
    let context: AppContext

    init(context: AppContext) { self.context = context }

    /// Schedules `action` for `owner` in `seconds` (then every `period` seconds, when given).
    func schedule(after seconds: Double, every period: Double?, owner: Coordinator, action: @escaping () throws -> Void) throws -> AppTimer {
        guard seconds.isFinite, seconds >= 0 else {
            throw NavigationError(.badTime, "a timer's time is a finite number of seconds from now, not \(Self.seconds(seconds))")
        }
        if let period, !(period.isFinite && period > 0) {
            throw NavigationError(.badTime, "a repeating timer's period is a finite number of seconds above 0, not \(Self.seconds(period))")
        }
        guard (now + seconds).isFinite else {
            throw NavigationError(.badTime, "a timer \(Self.seconds(seconds)) s from \(Self.seconds(now)) s would fall due past the largest time there is")
        }
        record()
        made += 1
        let timer = AppTimer(id: context.nextID(), order: made, due: now + seconds, period: period, owner: owner, action: action, clock: self)
        insert(timer)
        return timer
    }

    /// Puts the clock back to the app's start, 0, its timers gone (their actions released): where a new
    /// process's clock begins.
    func rewind() {
        guard now != 0 || !timers.isEmpty else { return }
        record()
        for timer in timers { timer.action = nil }
        timers.removeAll()
        now = 0
    }

    /// Takes `timer` out (its action released); nothing when it is not pending.
    func cancel(_ timer: AppTimer) {
        guard let index = timers.firstIndex(where: { $0 === timer }) else { return }
        record()
        timers.remove(at: index)
        timer.action = nil
    }

    /// Cancels every timer `owner` made (it finished).
    func cancelTimers(of owner: Coordinator) {
        guard timers.contains(where: { $0.owner === owner }) else { return }
        record()
        for timer in timers where timer.owner === owner { timer.action = nil }
        timers.removeAll { $0.owner === owner }
    }

    /// Moves the clock `seconds` on, firing every timer due by then in due order; the clock reads each
    /// timer's due time while its action runs. Returns how many fired.
    func advance(by seconds: Double, in app: Application) throws -> Int {
        guard seconds.isFinite, seconds >= 0 else {
            throw NavigationError(.badTime, "the clock moves on by a finite number of seconds, 0 or more, not \(Self.seconds(seconds))")
        }
        let target = now + seconds
        guard target.isFinite else {
            throw NavigationError(.badTime, """
                the clock cannot move \(Self.seconds(seconds)) s on from \(Self.seconds(now)) s: it would pass the \
                largest time there is
                """)
        }
        record()
        var fired = 0
        while let first = timers.first, first.due <= target {
            guard fired < Self.maximumFirings else {
                throw NavigationError(.badTime, """
                    advancing \(seconds) s fires more than \(Self.maximumFirings) timers: move the clock on in \
                    smaller steps, or give the repeating timer a longer period
                    """)
            }
            fired += 1
            timers.removeFirst()
            now = first.due
            let action = first.action
            if let period = first.period {
                first.due += period
                insert(first)
            } else {
                first.action = nil
            }
            app.emit(.timerFired(first.owner?.info, due: first.due))
            try action?()
        }
        now = target
        return fired
    }

    /// Seconds as people write them: `2`, `2.5`, `0.001`.
    package static func seconds(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// The seconds until the next timer falls due, or nil when none is pending.
    public var untilNext: Double? { timers.first.map { max(0, $0.due - now) } }

    private func insert(_ timer: AppTimer) {
        let index = timers.firstIndex { $0.due > timer.due || ($0.due == timer.due && $0.order > timer.order) } ?? timers.count
        timers.insert(timer, at: index)
    }

    /// Notes the clock as it is, for the running operation's undo (a few timers: copied whole).
    private func record() {
        guard context.journal.isOpen else { return }
        let saved = (now, timers.map { ($0, $0.due, $0.action) })
        context.journal.recordAlways(.custom(born: 0) { [weak self] in
            guard let self else { return }
            now = saved.0
            timers = saved.1.map(\.0)
            for (timer, due, action) in saved.1 { (timer.due, timer.action) = (due, action) }
        })
    }
}

/// A timer of the app's clock (``AppClock``): an action that runs once when it falls due, or every period.
public final class AppTimer {
    /// A number that identifies it in the app.
    public let id: Int
    /// Its place among the timers made, for those that fall due at the same moment.
    let order: Int
    /// When it falls due next, in the clock's seconds.
    public internal(set) var due: Double
    /// Its period, for a repeating timer.
    public let period: Double?
    /// The coordinator that made it (it goes when that one finishes).
    public private(set) weak var owner: Coordinator?
    /// What it runs; nil once it will not run again (fired once, cancelled).
    var action: (() throws -> Void)?
    private weak var clock: AppClock?

    init(id: Int, order: Int, due: Double, period: Double?, owner: Coordinator, action: @escaping () throws -> Void, clock: AppClock) {
        (self.id, self.order, self.due, self.period, self.owner, self.action, self.clock) = (id, order, due, period, owner, action, clock)
    }

    /// Whether it will still fire.
    public var isPending: Bool { clock?.timers.contains { $0 === self } ?? false }

    /// Seconds until it fires, or nil when it will not.
    public var remaining: Double? {
        guard let clock, isPending else { return nil }
        return max(0, due - clock.now)
    }

    /// Cancels it (its action released): it never fires again. Cancelling one that is not pending does
    /// nothing. Undone with a failed operation.
    public func cancel() { clock?.cancel(self) }
}
