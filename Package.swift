// swift-tools-version: 6.0
import PackageDescription

// Layers (each depends only on the ones above it):
//   CLua      - Lua 5.4's C API from the system (pkg-config lua5.4)
//   CLuaGlue  - the bridge's C: trampolines, hooks, protected calls, macro wrappers (a C target: edits rebuild)
//   LuaKit    - the safe Swift layer over Lua: the only code that calls lua_*
//   CoordinatorCore - coordinators, router, headless navigation, screens, gateway, signals (no Lua)
//   CoordinatorScript - the scripting bridge: the core as the Lua module "coordinator"
//   coordbench - the benchmarks (bridge vs raw C API, journeys vs native Swift and plain Lua, memory, leaks)
//   coordrun  - the command-line front over CoordinatorScript's REPL engine: the terminal (line editing
//               through CEditLine, libedit; signals; colours) and the arguments
let package = Package(
    name: "Coordinator",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LuaKit", targets: ["LuaKit"]),
        .library(name: "CoordinatorCore", targets: ["CoordinatorCore"]),
        .library(name: "CoordinatorScript", targets: ["CoordinatorScript"]),
        .executable(name: "coordrun", targets: ["coordrun"]),
        .executable(name: "coordbench", targets: ["coordbench"]),
        .executable(name: "coordfuzz", targets: ["coordfuzz"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
        // `swift package generate-documentation` (DocC) for the libraries.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLua",
            pkgConfig: "lua5.4",
            providers: [.apt(["liblua5.4-dev"]), .brew(["lua"])]
        ),
        .systemLibrary(
            name: "CEditLine",
            pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"]), .brew(["libedit"])]
        ),
        .target(name: "CLuaGlue", dependencies: ["CLua"]),
        .target(name: "LuaKit", dependencies: ["CLua", "CLuaGlue"]),
        .target(name: "CoordinatorCore"),
        .target(name: "CoordinatorScript", dependencies: ["LuaKit", "CoordinatorCore"]),
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
                "CLua", "CLuaGlue", "LuaKit", "CoordinatorCore", "CoordinatorScript",
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
        .target(name: "TestSupport", dependencies: ["LuaKit"], path: "Tests/TestSupport"),
        .testTarget(
            name: "CoordinatorScriptTests",
            dependencies: [
                "CoordinatorScript", "CoordinatorCore", "LuaKit", "coordrun", "coordfuzz", "TestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            exclude: ["Transcripts"]
        ),
        .testTarget(
            name: "LuaKitTests",
            dependencies: ["LuaKit", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
