// swift-tools-version:6.0
import PackageDescription

// An app's use of the engine, built from outside the package: it depends on the library
// product only, as an app's package (or Xcode project) would.
let package = Package(
    name: "embed",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [.package(name: "gitbay-sync", path: "../..")],
    targets: [
        .executableTarget(name: "embed", dependencies: [.product(name: "GitbaySyncKit", package: "gitbay-sync")])
    ],
    swiftLanguageModes: [.v6]
)
