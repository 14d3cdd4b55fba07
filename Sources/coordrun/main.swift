import ArgumentParser
import LuaKit
#if canImport(Glibc)
import Glibc
#endif

@main
struct CoordRun: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coordrun",
        abstract: "Run a Lua coordinator app in the terminal.",
        version: "0.1.0"
    )

    @Argument(help: "The app's main Lua script.")
    var script: String

    func run() throws {
        let lua = try LuaState()
        do {
            try lua.runMainScript(script)
        } catch let error as LuaError {
            var standardError = StandardError()
            print(error.fullDescription, to: &standardError)
            throw ExitCode.failure
        }
    }
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { buffer in _ = Glibc.write(2, buffer.baseAddress, buffer.count) }
    }
}
