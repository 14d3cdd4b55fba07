// swift-tools-version: 6.0
import PackageDescription

// Layers (each depends only on the ones above it):
//   CCoordinatorLua     - Lua 5.4's C API from the system (pkg-config lua5.4)
//   CCoordinatorLuaGlue - the bridge's C: trampolines, hooks, protected calls, macro wrappers (a C target: edits rebuild)
//   CoordinatorLua      - the safe Swift layer over Lua: the only code that calls lua_*
//   CoordinatorCore     - coordinators, router, headless navigation, screens, gateway, signals (no Lua)
//   CoordinatorScript   - the scripting bridge: the core as the Lua module "coordinator"
//   coordbench          - the benchmarks (bridge vs raw C API, journeys vs native Swift and plain Lua, memory, leaks)
//   coordrun            - the command-line front over CoordinatorScript's REPL engine: the terminal (line editing
//                         through CEditLine, libedit; signals; colours) and the arguments
// Every module a client links is prefixed with the project's name, so that this package links beside others
// that have their own `CLua`, `Lua` or `LuaKit` (tomsci/LuaSwift, lua4swift, ...); the C glue's symbols are
// `coordlua_`-prefixed for the same reason.
let package = Package(
    name: "Coordinator",
    platforms: [.macOS(.v15)],
    products: [
        // Coordinators, router, navigation and screens in Swift, without Lua.
        .library(name: "CoordinatorCore", targets: ["CoordinatorCore"]),
        // Flows scripted in Lua over the core: ScriptRuntime, the REPL engine, flow tests, links, snapshots, exploration.
        .library(name: "CoordinatorScript", targets: ["CoordinatorScript"]),
        // Lua 5.4 from Swift, safely (the layer the scripts run on), for hosts that want Lua of their own beside it.
        .library(name: "CoordinatorLua", targets: ["CoordinatorLua"]),
        // The command-line runner, REPL and test runner.
        .executable(name: "coordrun", targets: ["coordrun"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
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
        .target(name: "CoordinatorLua", dependencies: ["CCoordinatorLua", "CCoordinatorLuaGlue"]),
        .target(name: "CoordinatorCore"),
        .target(name: "CoordinatorScript", dependencies: ["CoordinatorLua", "CoordinatorCore"]),
        .executableTarget(
            name: "coordrun",
            dependencies: [
                "CoordinatorScript", "CEditLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "coordbench",
            dependencies: [
                "CCoordinatorLua", "CCoordinatorLuaGlue", "CoordinatorLua", "CoordinatorCore", "CoordinatorScript",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(name: "CFuzzDriver"),
        .executableTarget(
            // The session fuzzer: random sessions, corpus replay, and libFuzzer's driver in a fuzzer build
            // (scripts/fuzz; docs/Security.md).
            name: "coordfuzz",
            dependencies: ["CoordinatorScript", "CoordinatorCore", "CFuzzDriver"]
        ),
        .testTarget(
            name: "CoordinatorCoreTests",
            dependencies: ["CoordinatorCore", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(
            // A client of the public API: without package access, as another package would build it.
            name: "HostRouterTests",
            dependencies: ["CoordinatorCore"],
            packageAccess: false
        ),
        .target(name: "TestSupport", dependencies: ["CoordinatorLua"], path: "Tests/TestSupport"),
        .testTarget(
            name: "CoordinatorScriptTests",
            dependencies: [
                "CoordinatorScript", "CoordinatorCore", "CoordinatorLua", "coordrun", "coordfuzz", "TestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            exclude: ["Transcripts"]
        ),
        .testTarget(
            name: "CoordinatorLuaTests",
            dependencies: ["CoordinatorLua", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
