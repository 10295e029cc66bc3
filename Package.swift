// swift-tools-version:6.0
// The todod package: a todo and reminder daemon (`todod`) and its client (`todoctl`).
// No package dependencies: only the toolchain's modules and system C libraries.
import PackageDescription

let package = Package(
    name: "todod",
    products: [
        .executable(name: "todod", targets: ["todod"]),
        .executable(name: "todoctl", targets: ["todoctl"]),
        .executable(name: "todobench", targets: ["todobench"]),
        .executable(name: "todod-notify", targets: ["todod-notify"]),
        .executable(name: "todod-sync", targets: ["todod-sync"]),
    ],
    targets: [
        // MARK: - C libraries, fenced off behind systemLibrary shims
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),

        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),

        .target(name: "CTodoLinux"),

        // MARK: - Libraries
        .target(name: "TodoCore"),
        .target(name: "TodoStore", dependencies: ["TodoCore", "CSQLite", "TodoPosix", "TodoTime", "TodoCalendar"]),
        .target(name: "TodoPosix", dependencies: ["CTodoLinux"]),
        .target(name: "TodoProtocol", dependencies: ["TodoCore"]),
        .target(name: "TodoSystemd", dependencies: ["CSystemd", "TodoPosix"]),
        .target(name: "TodoTime", dependencies: ["TodoCore", "TodoPosix"]),
        .target(name: "TodoCalendar", dependencies: ["TodoCore", "TodoTime"]),
        // RFC 5545 VTODO reader and writer and the todo <-> VTODO mapping (SPEC §9); no I/O.
        .target(name: "TodoICal", dependencies: ["TodoCore", "TodoTime", "TodoCalendar"]),
        .target(name: "TodoClient", dependencies: ["TodoCore", "TodoProtocol", "TodoPosix", "TodoTime", "TodoCalendar", "TodoICal"]),
        .target(name: "TodoDaemon", dependencies: ["TodoCore", "TodoStore", "TodoProtocol", "TodoPosix", "TodoSystemd", "TodoTime", "TodoCalendar"]),
        // todod-notify: journal follower -> desktop notifications, --print, --exec (SPEC §8).
        .target(name: "TodoNotify", dependencies: ["TodoCore", "TodoProtocol", "TodoPosix", "TodoSystemd", "TodoTime", "TodoClient"]),
        // CalDAV client (SPEC §9): HTTP through libcurl and XML through libxml2, each behind one wrapper.
        .target(name: "TodoCalDAV", dependencies: ["CCurl", "CLibXML2", "TodoCore", "TodoPosix"]),
        // todod-sync's engine: state, three-way merge, the sync round; a client of todod.
        .target(name: "TodoSync", dependencies: ["TodoCore", "TodoStore", "TodoProtocol", "TodoPosix", "TodoSystemd", "TodoTime", "TodoICal", "TodoClient", "TodoCalDAV"]),
        .target(name: "TodoTestSupport", dependencies: ["TodoCore", "TodoProtocol", "TodoPosix"]),

        // MARK: - Executables
        .executableTarget(name: "todod", dependencies: ["TodoDaemon", "TodoProtocol"]),
        // todod with faults tests ask for (a hung store); never installed, so the shipped todod
        // obeys no test switch.
        .executableTarget(name: "todod-faults", dependencies: ["TodoDaemon", "TodoProtocol"]),
        // A release todoctl is one fully static file: no dynamic loader work at start (P3 in
        // docs/PERFORMANCE.md), and it runs wherever it is copied.
        .executableTarget(name: "todoctl", dependencies: ["TodoClient", "TodoCore", "TodoPosix", "TodoTime"],
                          linkerSettings: [.unsafeFlags(["-static-executable"], .when(configuration: .release))]),
        .executableTarget(name: "todod-notify", dependencies: ["TodoNotify", "TodoPosix"]),
        .executableTarget(name: "todod-sync", dependencies: ["TodoSync", "TodoPosix"]),
        .executableTarget(name: "todofuzz", dependencies: ["TodoCore", "TodoProtocol", "TodoPosix", "TodoTestSupport", "TodoICal", "TodoCalendar", "TodoTime"]),
        .executableTarget(name: "todobench", dependencies: ["TodoCore", "TodoStore", "TodoProtocol", "TodoPosix", "TodoSystemd", "TodoTime", "TodoCalendar",
                                                           "TodoClient"]),

        // MARK: - Tests
        .testTarget(name: "TodoCoreTests", dependencies: ["TodoCore"]),
        .testTarget(name: "TodoTimeTests", dependencies: ["TodoCore", "TodoTime", "TodoTestSupport"]),
        .testTarget(name: "TodoProtocolTests", dependencies: ["TodoCore", "TodoProtocol"]),
        .testTarget(name: "TodoClientTests", dependencies: ["TodoCore", "TodoClient", "TodoTestSupport"]),
        .testTarget(name: "TodoDaemonTests", dependencies: ["TodoCore", "TodoDaemon", "TodoProtocol", "TodoTestSupport", "TodoTime"]),
        .testTarget(name: "EndToEndTests", dependencies: ["TodoCore", "TodoProtocol", "TodoPosix", "TodoTestSupport"],
                    exclude: ["Golden"]),
        .testTarget(name: "TodoICalTests", dependencies: ["TodoCore", "TodoTime", "TodoICal", "TodoCalendar"], exclude: ["Golden"]),
        .testTarget(name: "TodoCalendarTests", dependencies: ["TodoCore", "TodoTime", "TodoCalendar", "TodoTestSupport"]),
        .testTarget(name: "TodoNotifyTests", dependencies: ["TodoCore", "TodoNotify", "TodoClient", "TodoSystemd", "TodoTestSupport"]),
        .testTarget(name: "TodoCalDAVTests", dependencies: ["TodoCore", "TodoCalDAV", "TodoTestSupport"]),
        .testTarget(name: "TodoSyncTests", dependencies: ["TodoCore", "TodoSync", "TodoCalDAV", "TodoICal", "TodoTestSupport", "TodoProtocol", "TodoClient", "TodoPosix"]),
        .testTarget(name: "TodoStoreTests", dependencies: ["TodoCore", "TodoStore", "TodoTestSupport", "TodoTime", "TodoCalendar"]),
    ],
    swiftLanguageModes: [.v6]
)
