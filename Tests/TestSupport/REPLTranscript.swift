import CoordinatorTools

/// The REPL engine in process, as `coordrun` drives it: lines in, text out.
public final class REPLTranscript {
    public var text = ""
    public var errors: [String] = []
    public let repl: REPL

    public init(mode: REPL.Mode = .repl, script: String = repositoryRoot + "/scripts/app.lua", idiom: Idiom = .phone) throws {
        let runtime = try ScriptRuntime()
        runtime.app.setIdiom(idiom)
        try runtime.load(script: script)
        try runtime.start()
        var sink: (text: (String) -> Void, error: (String) -> Void) = ({ _ in }, { _ in })
        repl = try REPL(runtime: runtime, mode: mode, output: REPL.Output(write: { sink.text($0) }, error: { sink.error($0) }))
        sink = ({ [unowned self] in self.text += $0 }, { [unowned self] in self.errors.append($0) })
    }

    /// Runs a line and returns what it printed.
    @discardableResult
    public func line(_ line: String) -> String {
        text = ""
        errors = []
        repl.handle(line)
        return text
    }
}

