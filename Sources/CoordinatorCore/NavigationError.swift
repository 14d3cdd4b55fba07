/// A navigation or coordination mistake. Every operation that throws one leaves the app exactly as it was.
public struct NavigationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong, for code that reacts to particular mistakes.
    public enum Code: String, Sendable {
        case popRoot, nothingPresented, nothingToGoBack, alertNeedsAction, unknownScreen, unknownInput
        case missingInput, unknownOutput, badPayload, noVisibleScreen, alreadyFinished, notRunning
        case alreadyStarted, cycle, alreadyHasParent, screenInUse, containerNotShown, badTab
        case unknownState, stopped
    }

    public var code: Code
    /// A sentence a person understands.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
