import CoordinatorServer
import ArgumentParser
import CoordinatorOptions
import CoordinatorTools
import FlyingSocks
import Foundation

/// `coordrun serve SCRIPT`: the app as a live web page (docs/Preview.md). coordrun runs this program for
/// its `serve` subcommand.
@main
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coordrun serve", abstract: ServeOptions.abstract, usage: ServeOptions.usage, discussion: ServeOptions.discussion)

    /// The command line (coordrun's `serve` declares the same).
    @OptionGroup var options: ServeOptions

    /// Parses and runs the command as ArgumentParser's `main` does, a usage mistake ending with status 2
    /// (``CommandEnding``).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if let serve = command as? ServeCommand { try await serve.run() } else { try command.run() }
        } catch {
            let ending = CommandEnding(Self.self, error: error)
            if !ending.message.isEmpty {
                (ending.isOutput ? FileHandle.standardOutput : FileHandle.standardError).write(Data((ending.message + "\n").utf8))
            }
            Foundation.exit(ending.status)
        }
    }

    func run() async throws {
        let (script, port, host, watch) = (options.script, options.port, options.host, options.watch)
        let (start, snapshotKey, actionTimeout, limitOptions) = (options.start, options.snapshotKey, options.actionTimeout, options.limitOptions)
        let preview: Preview
        do {
            let key = try snapshotKey.map { try SnapshotKey(contentsOf: $0) }
            preview = try Preview(script: script, limits: limitOptions.limits, timeLimit: actionTimeout.limit,
                                  start: start.appStart, snapshotKey: key)
        } catch {
            FileHandle.standardError.write(Data(TextStyle.inert("coordrun serve: \(REPL.message(for: error))\n").utf8))
            throw ExitCode.failure
        }
        let gate = Gate(listeningOn: host)
        if !Gate.isLoopback(host) {
            FileHandle.standardError.write(Data("""
                coordrun serve: warning: listening on \(host): whoever has the URL with its token runs Lua in this \
                process\n
                """.utf8))
        }
        let server: BoundedServer
        do {
            let address: any SocketAddress = host.contains(":") ? try sockaddr_in6.inet6(ip6: host, port: port)
                : try sockaddr_in.inet(ip4: host == "localhost" ? "127.0.0.1" : host, port: port)
            server = try BoundedServer(address: address, handler: PreviewHandler(preview: preview, gate: gate))
        } catch {
            FileHandle.standardError.write(Data("coordrun serve: cannot listen on \(host):\(port): \(error.localizedDescription)\n".utf8))
            throw ExitCode.failure
        }
        let serving = Task { try await server.run() }
        let listening: String = switch server.address {
        case .ip4(let ip, let port)?: "\(ip):\(port)"
        case .ip6(let ip, let port)?: "[\(ip)]:\(port)"
        default: "\(host):\(port)"
        }
        // The token is in the URL on every address: only whoever was given it (the person who ran this) gets in.
        FileHandle.standardOutput.write(Data("coordrun serve: http://\(listening)/?token=\(gate.token) (Ctrl-C stops)\n".utf8))
        if watch {
            Task {
                while !Task.isCancelled {
                    try await Task.sleep(for: .milliseconds(50))
                    await preview.reloadIfSaved()
                }
            }
        }
        try await serving.value
    }
}
