import ArgumentParser

/// The shells' completion scripts (`coordrun --generate-completion-script bash|zsh|fish`): the command
/// tree's, as swift-argument-parser writes them, plus what the tree cannot say: that `coordrun`'s first
/// word may be a script (lua's command line, which the tree does not parse), so a `.lua` file completes
/// there beside the subcommands. Every file argument of the subcommands completes from the tree itself.
enum CompletionScripts {
    /// The script `arguments` (`--generate-completion-script SHELL` or `=SHELL`) ask for, or nil when they
    /// ask for none or for a shell the tree does not know (the tree then says so).
    static func script(for arguments: [String]) -> String? {
        let option = "--generate-completion-script"
        let name: String
        if arguments.count == 2, arguments[0] == option { name = arguments[1] }
        else if arguments.count == 1, arguments[0].hasPrefix(option + "=") { name = String(arguments[0].dropFirst(option.count + 1)) }
        else { return nil }
        guard let shell = CompletionShell(rawValue: name) else { return nil }
        return withScripts(CoordRunCommand.completionScript(for: shell), shell: shell)
    }

    /// `script` with the first word completing `.lua` files too; unchanged where the generator's text is
    /// not what this expects (the subcommands still complete).
    static func withScripts(_ script: String, shell: CompletionShell) -> String {
        switch shell {
        case .bash:
            // The branch that offers the subcommands when the first word is none of them.
            let offer = "COMPREPLY+=($(compgen -W '"
            guard let start = script.firstRange(of: offer), let end = script[start.upperBound...].firstIndex(of: "\n") else { return script }
            var result = script
            result.insert(contentsOf: "\n        __coordrun_add_completions -o plusdirs -fX '!*.@(lua)'", at: end)
            return result
        case .zsh:
            let offer = "_describe -V subcommand subcommands && ret=0"
            return script.replacing(offer, with: offer + "\n        _files -g '*.lua' && ret=0")
        case .fish:
            // The `.lua` files and the folders, as the generator completes a subcommand's script.
            let files = #"(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'lua\';printf %s\n $p;end;"#
                + #"__fish_complete_directories (commandline -t) \'\')"#
            return script + (script.hasSuffix("\n") ? "" : "\n")
                + "complete -c 'coordrun' -n '__coordrun_should_offer_completions_for_positional \"coordrun\" -eq 1' -fa '\(files)'\n"
        default:
            return script
        }
    }
}
