// swift-tools-version: 6.0
// A Swift host that embeds the coordinator runtime as a client package would (examples/SwiftHost/README.md).
// A client names the package by URL: .package(url: "https://github.com/OWNER/coordinator", from: "1.0.0");
// this example uses the checkout it sits in.
import PackageDescription

let package = Package(
    name: "SwiftHost",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Coordinator", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "SwiftHost",
            dependencies: [
                .product(name: "CoordinatorScript", package: "Coordinator"),
                .product(name: "CoordinatorCore", package: "Coordinator"),
            ],
            resources: [.copy("flows")]
        ),
    ]
)
