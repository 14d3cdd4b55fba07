// swift-tools-version: 6.0
import PackageDescription

// Layers (each depends only on the ones above it):
//   CCoordinatorLua     - Lua 5.4's C API from the system (pkg-config lua5.4)
//   CCoordinatorLuaGlue - the bridge's C: trampolines, hooks, protected calls, macro wrappers (a C target: edits rebuild)
//   CoordinatorLua      - the safe Swift layer over Lua: the only code that calls lua_*
//   CoordinatorCore     - coordinators, router, headless navigation, screens, gateway, signals (no Lua)
//   CoordinatorScript   - the embeddable runtime: the core as the Lua module "coordinator", loading and live
//                         reload, links, snapshots, hosts (what an app or a server links)
//   CoordinatorTools    - the tools over the runtime, for people and CI: the REPL engine, flow tests and the
//                         lifecycle oracle, exploration and the flow graph, the route check
//   coordrun            - the command line over the tools: lua.c's options and run mode, the terminal (line
//                         editing through CEditLine, libedit; signals; colours), the subcommands
//   CCoordinatorPostgres - libpq, PostgreSQL's client library, loaded when `coordrun explore --queue` first
//                         needs it (dlopen): linked, it would add its libraries to every start of coordrun
//   coordrun-serve      - `coordrun serve`, the live web preview (over FlyingSocks), a program of its own: coordrun
//                         does not link Foundation
//   coordbench          - the benchmarks (bridge vs raw C API, journeys vs native Swift and plain Lua, memory, leaks)
// Every module a client links is prefixed with the project's name, so that this package links beside others
// that have their own `CLua`, `Lua` or `LuaKit` (tomsci/LuaSwift, lua4swift, ...); the C glue's symbols are
// `coordlua_`-prefixed for the same reason.
// Where the sources turn Swift's run-time exclusivity checks off for speed, `@exclusivity(unchecked)` sits
// under `#if !COORDINATOR_CHECKED_EXCLUSIVITY` (docs/Safety.md lists every such site and its proof).
// COORDINATOR_CHECKED_EXCLUSIVITY=1 in the environment of a build turns them all back on:
// `scripts/test --checked-exclusivity` runs the whole suite so.
let checkedExclusivity = Context.environment["COORDINATOR_CHECKED_EXCLUSIVITY"].map { !$0.isEmpty && $0 != "0" } ?? false
let swiftSettings: [SwiftSetting] = checkedExclusivity ? [.define("COORDINATOR_CHECKED_EXCLUSIVITY")] : []

let package = Package(
    name: "Coordinator",
    platforms: [.macOS(.v15)],
    products: [
        // Coordinators, router, navigation and screens in Swift, without Lua.
        .library(name: "CoordinatorCore", targets: ["CoordinatorCore"]),
        // Flows scripted in Lua over the core, for hosts to embed: ScriptRuntime, ScriptHost and ScriptSession,
        // links, snapshots, live reload.
        .library(name: "CoordinatorScript", targets: ["CoordinatorScript"]),
        // The tools over the runtime: the REPL engine, flow tests, exploration and the flow graph.
        .library(name: "CoordinatorTools", targets: ["CoordinatorTools"]),
        // Lua 5.4 from Swift, safely (the layer the scripts run on), for hosts that want Lua of their own beside it.
        .library(name: "CoordinatorLua", targets: ["CoordinatorLua"]),
        // The command-line runner, REPL and test runner.
        .executable(name: "coordrun", targets: ["coordrun"]),
        // The web preview `coordrun serve` runs.
        .executable(name: "coordrun-serve", targets: ["coordrun-serve"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The web preview's sockets (`coordrun serve`, its own executable: it links Foundation, which coordrun
        // itself does not, to start as fast as lua): FlyingSocks, under the preview's own bounded HTTP/1.1 and
        // WebSocket server.
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
        // `swift package generate-documentation` (DocC) for the libraries.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CCoordinatorLua",
            pkgConfig: "lua5.4",
            providers: [.apt(["liblua5.4-dev"]), .brew(["lua"])]
        ),
        .systemLibrary(
            name: "CEditLine",
            pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"]), .brew(["libedit"])]
        ),
        .target(name: "CCoordinatorLuaGlue", dependencies: ["CCoordinatorLua"]),
        .target(name: "CCoordinatorPostgres", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // Files of other languages (Lua, HTML, SQL, ...) beside a target's Swift, built into it as string
        // constants (`EmbeddedFile`): read by their own tools, found at run time without a bundle.
        .executableTarget(name: "embed-files"),
        .plugin(name: "EmbedFilesPlugin", capability: .buildTool(), dependencies: ["embed-files"], path: "Sources/EmbedFilesPlugin"),
        .target(name: "CoordinatorLua", dependencies: ["CCoordinatorLua", "CCoordinatorLuaGlue"]),
        .target(name: "CoordinatorCore"),
        .target(name: "CoordinatorScript", dependencies: ["CoordinatorLua", "CoordinatorCore"], plugins: ["EmbedFilesPlugin"]),
        .target(name: "CoordinatorTools", dependencies: ["CoordinatorScript"], plugins: ["EmbedFilesPlugin"]),
        .target(
            // What coordrun and coordrun-serve share: the limit options, seconds, the file watcher of --watch.
            name: "CoordinatorOptions",
            dependencies: ["CoordinatorTools", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "coordrun",
            dependencies: [
                "CoordinatorTools", "CoordinatorOptions", "CEditLine", "CCoordinatorPostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            plugins: ["EmbedFilesPlugin"]
        ),
        .target(
            // The preview's bounded HTTP/1.1 and WebSocket server over FlyingSocks: the protocols alone
            // (no runtime, no tools), so that they are tested on their own.
            name: "CoordinatorServer",
            dependencies: [.product(name: "FlyingSocks", package: "FlyingFox")]
        ),
        .executableTarget(
            // `coordrun serve`: the web preview (coordrun runs it).
            name: "coordrun-serve",
            dependencies: [
                "CoordinatorTools", "CoordinatorOptions", "CoordinatorServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "FlyingSocks", package: "FlyingFox"),
            ],
            plugins: ["EmbedFilesPlugin"]
        ),
        .executableTarget(
            name: "coordbench",
            dependencies: [
                "CCoordinatorLua", "CCoordinatorLuaGlue", "CoordinatorLua", "CoordinatorCore", "CoordinatorScript", "CoordinatorTools",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            exclude: ["Apps"], // Lua apps the cases load from the repository (held-route checks)
            plugins: ["EmbedFilesPlugin"]
        ),
        .target(name: "CFuzzDriver"),
        .executableTarget(
            // The session fuzzer: random sessions, corpus replay, and libFuzzer's driver in a fuzzer build
            // (scripts/fuzz; docs/Security.md).
            name: "coordfuzz",
            dependencies: ["CoordinatorTools", "CFuzzDriver"]
        ),
        // Tests, by subject: each library's unit tests, then end to end through the coordrun binary, in a
        // real terminal (tmux), the fuzzers' sessions, a client of the public API, and the repository's rules.
        .target(
            name: "TestSupport",
            dependencies: ["CoordinatorTools", .product(name: "PropertyBased", package: "swift-property-based")],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "CoordinatorLuaTests",
            dependencies: ["CoordinatorLua", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(
            name: "CoordinatorCoreTests",
            dependencies: ["CoordinatorCore", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(
            name: "CoordinatorScriptTests",
            dependencies: ["CoordinatorScript", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(
            name: "CoordinatorToolsTests",
            dependencies: ["CoordinatorTools", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(
            // The preview's server: SHA-1 against FIPS 180's vectors, WebSocket frames against RFC 6455.
            name: "CoordinatorServerTests",
            dependencies: ["CoordinatorServer"]
        ),
        .testTarget(
            // coordrun itself, run as a user runs it (and coordbench, for its smoke test).
            name: "EndToEndTests",
            dependencies: ["coordrun", "coordbench", "TestSupport"],
            exclude: ["Transcripts", "Schemas"]
        ),
        .testTarget(
            // The REPL in a real terminal, through tmux.
            name: "TerminalTests",
            dependencies: ["coordrun", "TestSupport"]
        ),
        .testTarget(
            // Random sessions (coordfuzz's engine) and the regressions of what attacking the runtime found.
            name: "FuzzTests",
            dependencies: ["coordfuzz", "TestSupport"]
        ),
        .testTarget(
            // A client of the public API: without package access, as another package builds it.
            name: "ClientTests",
            dependencies: ["CoordinatorCore", "CoordinatorLua"],
            packageAccess: false
        ),
        .testTarget(
            // Every Swift snippet of README.md and docs/, compiled as a client of the public API builds it
            // (their unused results and values warn by design: the snippets show calls, not programs).
            name: "DocSnippetTests",
            dependencies: ["CoordinatorCore", "CoordinatorLua", "CoordinatorScript", "CoordinatorTools"],
            packageAccess: false,
            swiftSettings: [.unsafeFlags(["-suppress-warnings"])]
        ),
        .testTarget(
            // The repository's own rules: the safety inventory against the sources.
            name: "RepositoryTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Every Swift target builds with the exclusivity setting above.
for target in package.targets where target.type != .system && target.type != .plugin && !["CCoordinatorLuaGlue", "CFuzzDriver"].contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + swiftSettings
}
