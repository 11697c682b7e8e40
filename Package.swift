// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "gitbay-sync",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "gitbay-sync", targets: ["gitbay-sync"]),
        .executable(name: "gitbay-fake-server", targets: ["gitbay-fake-server"]),
    ],
    targets: [
        // System C libraries, each reached through a module map; nothing is fetched.
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CCurl",
            path: "Sources/CCurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
        ),
        .target(name: "GitbaySync", dependencies: ["CSQLite", "CCurl"]),
        .executableTarget(name: "gitbay-sync", dependencies: ["GitbaySync"]),
        // A stateful stand-in for a gitbay server, for the tests, the demo and the benchmark.
        .target(name: "GitbayFake"),
        .executableTarget(name: "gitbay-fake-server", dependencies: ["GitbayFake"]),
        .testTarget(name: "GitbaySyncTests", dependencies: ["GitbaySync", "GitbayFake"]),
    ],
    swiftLanguageModes: [.v6]
)
