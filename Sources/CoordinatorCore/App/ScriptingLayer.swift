/// What a scripting layer carries out for an ``Application`` and where it joins in: the steps the core
/// records but cannot take itself (a link follows the layer's routes, a relaunch runs its scripts again),
/// and the hooks a link held until its gateway state needs. Nil: the app has no such layer (a link or a
/// relaunch is then an error), or nothing to do there.
package struct ScriptingLayer {
    /// Opens a link for ``Application/perform(_:)`` (``UserStep/open(_:)``): the layer's routes. It records
    /// the step itself.
    package var openLink: ((String) throws -> Void)?
    /// Relaunches the app for ``Application/perform(_:)`` (``UserStep/relaunch``): the layer runs its
    /// scripts again and starts the app, inside the step's operation.
    package var relaunch: (() throws -> Void)?
    /// Runs at the end of every outermost operation that succeeded so far, before it commits, inside it (an
    /// error fails it), while set: a held link continues there.
    package var beforeCommit: (() throws -> Void)?
    /// Runs at the end of every step of the user's side, inside its operation, while set (while a link is
    /// held).
    package var afterStep: (() throws -> Void)?
    /// Whether an error stops everything rather than failing the work it came from (the user's Ctrl-C, a
    /// memory limit): a later (``Coordinator/later(_:)``) that fails with one fails the step.
    package var isFatal: ((Error) -> Bool)?

    package init() {}
}
