// swift-tools-version:6.2
import PackageDescription

// An app's use of the engine, built from outside the package: it depends on the library
// product only, as an app's package (or Xcode project) would. `EmbedApp` is shaped like an
// app module: main-actor isolation by default, and members visible only from what it imports.
let appSettings: [SwiftSetting] = [.defaultIsolation(MainActor.self), .enableUpcomingFeature("MemberImportVisibility")]

let package = Package(
    name: "embed",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [.package(name: "gitbay-sync", path: "../..")],
    targets: [
        .target(name: "EmbedApp", dependencies: [.product(name: "GitbaySyncKit", package: "gitbay-sync")], swiftSettings: appSettings),
        .executableTarget(name: "embed", dependencies: ["EmbedApp"], swiftSettings: appSettings),
        // The app's tests, over URLSession against gitbay-fake-server (built at the repository's root).
        .testTarget(
            name: "EmbedAppTests", dependencies: ["EmbedApp", .product(name: "GitbaySyncKit", package: "gitbay-sync")], swiftSettings: appSettings),
    ],
    swiftLanguageModes: [.v6]
)
