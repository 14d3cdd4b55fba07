import ArgumentParser

/// How a coordrun command that ArgumentParser parsed ends when parsing or running it threw: the message
/// ArgumentParser writes (help and the version on standard output, mistakes on standard error) and the exit
/// status, where a usage mistake is 2, as every other mistake in a coordrun command, not ArgumentParser's 64.
package struct CommandEnding {
    /// What to print (empty: nothing).
    package let message: String
    /// Whether it goes to standard output (help, the version) rather than standard error.
    package let isOutput: Bool
    /// The exit status.
    package let status: Int32

    /// The ending of `command` after `error`, the command named as users type it (`coordrun explore`).
    package init(_ command: ParsableCommand.Type, error: any Error, typedAs name: String? = nil) {
        let code = command.exitCode(for: error)
        var text = command.fullMessage(for: error)
        if let name { text = text.replacing("See '\(command.configuration.commandName ?? name) --help'", with: "See '\(name) --help'") }
        message = text
        isOutput = code == .success
        status = code == .validationFailure ? 2 : code.rawValue
    }
}
