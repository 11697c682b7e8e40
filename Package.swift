// swift-tools-version:6.0
import PackageDescription

// The layers, lowest first. A target sees only the targets below it, so an upward reference
// does not compile:
//
//   GitbaySupport                      text, time, secrets, logging, signals
//   ├── GitbayState   (SQLite)         the local record: accounts, rows, leases, migrations
//   ├── GitbayAPI                      one account's client for one gitbay instance, over a transport
//   │   ├── GitbayCurl (libcurl)       the agent's transport
//   │   └── GitbayURLSession           an app's transport on Apple's platforms (not linked into gitbay-sync)
//   ├── GitbayKeyring (libsecret)      tokens in the OS keyring: Secret Service, Keychain
//   └── PushResolve                    which account a push payload is for
//   GitbayReconcile                    the pure core (plans, verdicts, schedule) and the runs; tokens where they live
//   GitbaySyncKit                      the public API an app embeds: the use cases, URLSession
//   GitbaySync                         the command line: commands, output, services
//   gitbay-sync                        the executable
//
// GitbayFake is a stand-in gitbay server for the tests, the demo and the benchmark. It depends
// on nothing of the product, so it cannot agree with the client by sharing its code.
let package = Package(
    name: "gitbay-sync",
    // iOS 18, like macOS 15, is where Synchronization's Mutex begins.
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "gitbay-sync", targets: ["gitbay-sync"]),
        // The engine for an app to embed: its use cases, the store, the transport protocol.
        .library(name: "GitbaySyncKit", targets: ["GitbaySyncKit"]),
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
        // Not linked either: libsecret is opened at run time (see Sources/CSecret/shim.h), and
        // the shim declares the few GLib types it needs, so no -dev package is required.
        .systemLibrary(name: "CSecret", path: "Sources/CSecret"),
        // Process calls Swift cannot make (prctl is variadic, a signal handler must be C); headers only.
        .systemLibrary(name: "CProcess", path: "Sources/CProcess"),
        .target(name: "GitbaySupport"),
        .target(name: "GitbayState", dependencies: ["GitbaySupport", "CSQLite"]),
        .target(name: "GitbayAPI", dependencies: ["GitbaySupport"]),
        .target(name: "GitbayCurl", dependencies: ["GitbaySupport", "GitbayAPI", "CCurl"]),
        .target(name: "GitbayURLSession", dependencies: ["GitbaySupport", "GitbayAPI"]),
        .target(
            name: "GitbaySyncKit",
            dependencies: [
                "GitbaySupport", "GitbayState", "GitbayAPI", "GitbayURLSession", "GitbayKeyring", "GitbayReconcile", "PushResolve",
            ]),
        .target(name: "GitbayKeyring", dependencies: ["GitbaySupport", "CSecret"]),
        .target(name: "PushResolve", dependencies: ["GitbaySupport"]),
        .target(name: "GitbayReconcile", dependencies: ["GitbaySupport", "GitbayState", "GitbayAPI", "GitbayKeyring"]),
        .target(
            name: "GitbaySync",
            dependencies: [
                "GitbaySupport", "GitbayState", "GitbayAPI", "GitbayCurl", "GitbayKeyring", "PushResolve", "GitbayReconcile", "CProcess",
            ]
        ),
        .executableTarget(name: "gitbay-sync", dependencies: ["GitbaySync", "GitbaySupport", "CProcess"]),
        .target(name: "GitbayFake"),
        .executableTarget(name: "gitbay-fake-server", dependencies: ["GitbayFake"]),
        // Helpers the test targets share; they know nothing of the product.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // Transports for the tests: the fake server in memory, and one that stops where a crash would.
        .target(
            name: "TransportSupport", dependencies: ["GitbayAPI", "GitbayCurl", "GitbayURLSession", "GitbayFake"], path: "Tests/TransportSupport"),
        // A state database driven through the core directly, for the core's tests and the CLI's.
        .target(
            name: "ReconcileSupport",
            dependencies: [
                "GitbayReconcile", "GitbayState", "GitbayAPI", "GitbayCurl", "GitbayKeyring", "GitbaySupport", "GitbayFake", "TestSupport",
                "TransportSupport",
            ],
            path: "Tests/ReconcileSupport"),
        .testTarget(name: "GitbayFakeTests", dependencies: ["GitbayFake", "TestSupport"]),
        .testTarget(name: "GitbaySupportTests", dependencies: ["GitbaySupport", "TestSupport"]),
        .testTarget(name: "GitbayStateTests", dependencies: ["GitbayState", "GitbaySupport", "TestSupport"]),
        .testTarget(
            name: "GitbayAPITests", dependencies: ["GitbayAPI", "GitbayCurl", "GitbaySupport", "GitbayFake", "TestSupport", "TransportSupport"]),
        // The same exchanges over both transports, against the fake server on 127.0.0.1.
        .testTarget(name: "GitbaySyncKitTests", dependencies: ["GitbaySyncKit", "GitbayFake", "TestSupport"]),
        .testTarget(
            name: "GitbayURLSessionTests",
            dependencies: ["GitbayURLSession", "GitbayAPI", "GitbayCurl", "GitbaySupport", "GitbayFake", "TestSupport"]),
        .testTarget(name: "GitbayKeyringTests", dependencies: ["GitbayKeyring", "GitbaySupport", "TestSupport"]),
        .testTarget(name: "PushResolveTests", dependencies: ["PushResolve", "GitbaySupport", "TestSupport"]),
        .testTarget(
            name: "GitbayReconcileTests",
            dependencies: [
                "GitbayReconcile", "GitbayState", "GitbayAPI", "GitbayCurl", "GitbayKeyring", "GitbaySupport", "GitbayFake", "TestSupport",
                "TransportSupport", "ReconcileSupport",
            ]
        ),
        .testTarget(
            name: "GitbaySyncTests",
            dependencies: [
                "GitbaySupport", "GitbayState", "GitbayAPI", "GitbayCurl", "GitbayKeyring", "PushResolve", "GitbayReconcile", "GitbaySync",
                "GitbayFake", "TestSupport", "TransportSupport", "ReconcileSupport",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
