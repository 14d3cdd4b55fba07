/// What the user did since the app started (``Application/steps``): the steps of operations that
/// succeeded, in order, undone with a failing operation, and bounded.
///
/// Every tap records a step.
package final class StepLog {
    private let journal: Journal
    /// The steps, oldest first.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    package internal(set) var steps: [UserStep] = []
    /// The gateway's state when the root coordinator last started: where ``steps`` begin.
    package internal(set) var startState: AppState
    /// The window's width when the root coordinator last started.
    package internal(set) var startWidth: SizeClass = .regular
    /// The storage when the root coordinator last started, without its secret keys.
    package internal(set) var startStorage = FlowRecord()
    /// While above 0, steps are not recorded (``withoutRecording(_:)``).
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    private var paused = 0
    /// The most steps kept (see ``Application/maximumSteps``).
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    package var maximum = 100_000
    /// Whether more steps were taken than ``maximum`` since the app started.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    package private(set) var overflowed = false
    /// Changes whenever steps already recorded are taken away or replaced (never when one is added): what
    /// was noted of the steps under one epoch (the state after each number of them) holds while it lasts.
    package private(set) var epoch = 0

    init(journal: Journal, startState: AppState) {
        self.journal = journal
        self.startState = startState
    }

    /// Records a step the running operation took (undone with it); nothing while steps are paused. Past
    /// ``maximum`` the log stops recording and says so (``overflowed``): memory stays bounded for a host
    /// that drives the app forever, and a snapshot refuses what it could not replay.
    package func note(_ step: UserStep) {
        guard paused == 0 else { return }
        guard steps.count < maximum else {
            overflowed = true
            return
        }
        journal.recordAlways(.steps(self, count: steps.count))
        steps.append(step)
    }

    /// Records the random values a step drew with it, the step recorded at `index` (undone with the running
    /// operation): nothing when it drew none or recorded no step there.
    package func attach(draws values: [Int], toStepAt index: Int) {
        guard !values.isEmpty, index == steps.count - 1 else { return }
        let step = steps[index]
        journal.recordAlways(.custom(born: 0) { [weak self] in
            if let self, index < self.steps.count { self.steps[index] = step }
        })
        steps[index] = .drawn(step, values: values)
    }

    /// Runs `body` without recording the steps it takes (a link records itself, not the taps it made).
    package func withoutRecording<T>(_ body: () throws -> T) rethrows -> T {
        paused += 1
        defer { paused -= 1 }
        return try body()
    }

    /// Replaces the recorded steps (undone with the running operation): a link that rebuilt the app from its
    /// start is the only step that led there.
    package func reset(to new: [UserStep]) {
        let old = (steps, overflowed)
        (steps, overflowed) = (new, false)
        epoch &+= 1
        journal.recordAlways(.custom(born: 0) { [weak self] in
            if let self { (self.steps, self.overflowed) = old; self.epoch &+= 1 }
        })
    }

    /// The app (re)started its root in `state`, the window `width` wide, with `storage` (its values but the
    /// secret ones): the steps begin there (undone with the operation).
    func started(in state: AppState, width: SizeClass, storage: FlowRecord) {
        let old = (startState, startWidth, startStorage)
        (startState, startWidth, startStorage) = (state, width, storage)
        journal.recordAlways(.custom(born: 0) { [weak self] in if let self { (self.startState, self.startWidth, self.startStorage) = old } })
    }

    /// Takes back the steps recorded after the first `count` (the undo of ``note(_:)``).
    func truncate(to count: Int) {
        guard steps.count > count else { return }
        steps.removeSubrange(count...)
        epoch &+= 1
    }
}
