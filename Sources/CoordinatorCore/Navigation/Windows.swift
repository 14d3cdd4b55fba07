/// The windows of one app, as an iPad runs several scenes of one app: each shows its own root flow under
/// the same gateway state, storage, clock and events; the user (and a script's driver functions) acts on
/// the current one. Windows are numbered by opening order, numbers never reused within a launch; the last
/// one open cannot close. Every change (one opened, closed or chosen) is undone with a failed operation.
public final class Windows {
    /// The windows open, in opening order.
    public private(set) var all: [Window]
    /// The one the user acts on.
    public private(set) var current: Window
    /// The number the next window opened gets.
    private var nextNumber = 2
    let context: AppContext

    init(context: AppContext) {
        self.context = context
        let first = Window(context: context)
        (all, current) = ([first], first)
    }

    /// The window whose flows `coordinator` belongs to; the current one for a coordinator no open window
    /// has (it finished with its window, and cannot navigate).
    func window(of coordinator: Coordinator) -> Window {
        if all.count == 1 { return current }
        return all.first { $0.number == coordinator.windowNumber } ?? current
    }

    /// The open window numbered `number`, or nil.
    public func window(numbered number: Int) -> Window? { all.first { $0.number == number } }

    /// The open window numbered `number`, or an error naming the ones open.
    func existing(_ number: Int) throws -> Window {
        guard let window = window(numbered: number) else {
            throw NavigationError(.badWindow, "there is no window \(number) (windows: \(numbers))")
        }
        return window
    }

    /// The numbers of the windows open, in order, for messages: `1, 3`.
    var numbers: String { all.map { String($0.number) }.joined(separator: ", ") }

    /// Opens a new window (its root stack empty) and makes it the current one.
    func open() -> Window {
        record()
        let window = Window(context: context, number: nextNumber)
        window.sizeClass = current.sizeClass
        nextNumber += 1
        all.append(window)
        current = window
        return window
    }

    /// Makes `window` the current one.
    func choose(_ window: Window) {
        guard window !== current else { return }
        record()
        current = window
    }

    /// Takes `window` out (its flows already finished and its screens gone); the current one, when it was
    /// that one, becomes the window opened before it (or the first).
    func remove(_ window: Window) {
        guard let index = all.firstIndex(where: { $0 === window }) else { return }
        record()
        all.remove(at: index)
        if current === window { current = all[max(index - 1, 0)] }
    }

    /// Back to one window, numbered 1, as a new launch has (its contents are the caller's to clear).
    func reset() {
        guard all.count > 1 || current.number != 1 || nextNumber != 2 else { return }
        record()
        let first = all[0]
        first.number = 1
        (all, current, nextNumber) = ([first], first, 2)
    }

    /// Notes the windows as they are, for the running operation's undo (a few windows: copied whole).
    private func record() {
        guard context.journal.isOpen else { return }
        let saved = (all, current, nextNumber, all.map(\.number))
        context.journal.recordAlways(.custom(born: 0) { [weak self] in
            guard let self else { return }
            (all, current, nextNumber) = (saved.0, saved.1, saved.2)
            for (window, number) in zip(saved.0, saved.3) { window.number = number }
        })
    }
}
