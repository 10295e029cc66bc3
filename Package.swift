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
        .executable(name: "todoctl-ui", targets: ["todoctl-ui"])
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

        // No pkgConfig: Debian's ncursesw.pc sets -D flags SwiftPM refuses; the header is in /usr/include.
        .systemLibrary(
            name: "CNcursesw",
            providers: [.apt(["libncurses-dev"])]
        ),

        .target(name: "CTodoLinux"),

        // MARK: - Libraries
        .target(name: "TodoCore"),
        // The only module that touches CSQLite: Connection, Statement, result codes.
        .target(name: "TodoSQLite", dependencies: ["CSQLite", "TodoCore"]),
        .target(name: "TodoStore", dependencies: ["TodoCore", "TodoSQLite", "TodoPosix", "TodoTime", "TodoCalendar"]),
        .target(name: "TodoPosix", dependencies: ["CTodoLinux"]),
        .target(name: "TodoProtocol", dependencies: ["TodoCore"]),
        .target(name: "TodoSystemd", dependencies: ["CSystemd", "TodoPosix"]),
        .target(name: "TodoTime", dependencies: ["TodoCore", "TodoPosix"]),
        .target(name: "TodoCalendar", dependencies: ["TodoCore", "TodoTime"]),
        // RFC 5545 VTODO reader and writer and the todo <-> VTODO mapping (SPEC §9); no I/O.
        .target(name: "TodoICal", dependencies: ["TodoCore", "TodoTime", "TodoCalendar"]),
        // The WHEN and DURATION grammar (English and Japanese); no I/O.
        .target(name: "TodoWhen", dependencies: ["TodoCore", "TodoTime"]),
        // The client side of the socket: transports and client errors; every client links it.
        .target(name: "TodoRPC", dependencies: ["TodoProtocol", "TodoPosix"]),
        // The files clients share: todoctl's config, sync.conf, todod-sync's state paths and status files.
        .target(name: "TodoUserFiles", dependencies: ["TodoCore", "TodoProtocol", "TodoPosix", "TodoWhen"]),
        // todoctl's command line (SPEC §3-§5, §10): only todoctl, its tests and todobench link it.
        .target(
            name: "TodoCLI",
            dependencies: [
                "TodoCore", "TodoProtocol", "TodoPosix", "TodoTime", "TodoCalendar", "TodoICal",
                "TodoWhen", "TodoRPC", "TodoUserFiles"
            ]),
        // The terminal as a screen of cells: the only module that touches ncursesw.
        .target(name: "TodoTerminal", dependencies: ["CNcursesw", "TodoPosix"]),
        // `todoctl ui`: the interactive, live list; runs todoctl's commands in process.
        .target(
            name: "TodoUI",
            dependencies: [
                "TodoCLI", "TodoCore", "TodoPosix", "TodoProtocol", "TodoRPC", "TodoTerminal", "TodoTime",
                "TodoUserFiles"
            ]),
        .target(
            name: "TodoDaemon",
            dependencies: [
                "TodoCore", "TodoStore", "TodoProtocol", "TodoPosix", "TodoSystemd", "TodoTime", "TodoCalendar"
            ]),
        // todod-notify: journal follower -> desktop notifications, --print, --exec (SPEC §8).
        .target(
            name: "TodoNotify",
            dependencies: [
                "TodoCore", "TodoProtocol", "TodoPosix", "TodoSystemd", "TodoTime", "TodoRPC", "TodoUserFiles"
            ]),
        // CalDAV client (SPEC §9): HTTP through libcurl and XML through libxml2, each behind one wrapper.
        .target(name: "TodoCalDAV", dependencies: ["CCurl", "CLibXML2", "TodoCore", "TodoPosix"]),
        // todod-sync's engine: state, three-way merge, the sync round; a client of todod.
        .target(
            name: "TodoSync",
            dependencies: [
                "TodoCore", "TodoSQLite", "TodoProtocol", "TodoPosix", "TodoSystemd", "TodoTime", "TodoICal",
                "TodoRPC", "TodoUserFiles", "TodoCalDAV"
            ]),
        .target(name: "TodoTestSupport", dependencies: ["TodoCore", "TodoProtocol", "TodoPosix"]),

        // MARK: - Executables
        .executableTarget(name: "todod", dependencies: ["TodoDaemon", "TodoProtocol"]),
        // todod with faults tests ask for (a hung store); never installed, so the shipped todod
        // obeys no test switch.
        .executableTarget(name: "todod-faults", dependencies: ["TodoDaemon", "TodoProtocol"]),
        // A release todoctl is one fully static file: no dynamic loader work at start (P3 in
        // docs/PERFORMANCE.md), and it runs wherever it is copied.
        .executableTarget(
            name: "todoctl", dependencies: ["TodoCLI", "TodoCore", "TodoPosix", "TodoTime", "TodoRPC"],
            linkerSettings: [.unsafeFlags(["-static-executable"], .when(configuration: .release))]),
        .executableTarget(name: "todoctl-ui", dependencies: ["TodoUI", "TodoPosix"]),
        .executableTarget(name: "todod-notify", dependencies: ["TodoNotify", "TodoPosix"]),
        .executableTarget(name: "todod-sync", dependencies: ["TodoSync", "TodoPosix"]),
        .executableTarget(
            name: "todofuzz",
            dependencies: [
                "TodoCore", "TodoProtocol", "TodoPosix", "TodoTestSupport", "TodoICal", "TodoCalendar", "TodoTime"
            ]),
        .executableTarget(
            name: "todobench",
            dependencies: [
                "TodoCore", "TodoStore", "TodoSQLite", "TodoProtocol", "TodoPosix", "TodoSystemd", "TodoTime",
                "TodoCalendar",
                "TodoWhen"
            ]),

        // MARK: - Tests
        .testTarget(name: "TodoCoreTests", dependencies: ["TodoCore"]),
        .testTarget(name: "TodoTimeTests", dependencies: ["TodoCore", "TodoTime", "TodoTestSupport"]),
        .testTarget(name: "TodoProtocolTests", dependencies: ["TodoCore", "TodoProtocol", "TodoSQLite"]),
        .testTarget(
            name: "TodoCLITests",
            dependencies: [
                "TodoCore", "TodoCLI", "TodoWhen", "TodoRPC", "TodoUserFiles", "TodoTestSupport",
                "TodoPosix", "TodoProtocol", "TodoTime"
            ]),
        .testTarget(
            name: "TodoDaemonTests",
            dependencies: [
                "TodoCore", "TodoDaemon", "TodoProtocol", "TodoTestSupport", "TodoTime",
                "TodoPosix", "TodoStore"
            ]),
        .testTarget(
            name: "EndToEndTests", dependencies: ["TodoCore", "TodoProtocol", "TodoPosix", "TodoTestSupport"],
            exclude: ["Golden"]),
        .testTarget(
            name: "TodoICalTests", dependencies: ["TodoCore", "TodoTime", "TodoICal", "TodoCalendar"],
            exclude: ["Golden", "RecurrenceSets"]),
        .testTarget(
            name: "TodoCalendarTests", dependencies: ["TodoCore", "TodoTime", "TodoCalendar", "TodoTestSupport"]),
        .testTarget(
            name: "TodoNotifyTests",
            dependencies: [
                "TodoCore", "TodoNotify", "TodoUserFiles", "TodoSystemd", "TodoTestSupport",
                "TodoProtocol", "TodoTime"
            ]),
        .testTarget(name: "TodoCalDAVTests", dependencies: ["TodoCore", "TodoCalDAV", "TodoTestSupport"]),
        .testTarget(
            name: "TodoSyncTests",
            dependencies: [
                "TodoCore", "TodoSync", "TodoCalDAV", "TodoICal", "TodoTestSupport", "TodoProtocol", "TodoRPC",
                "TodoUserFiles", "TodoPosix"
            ]),
        .testTarget(
            name: "TodoStoreTests",
            dependencies: ["TodoCore", "TodoStore", "TodoSQLite", "TodoTestSupport", "TodoTime", "TodoCalendar"])
    ],
    swiftLanguageModes: [.v6]
)

// The language as the Swift server packages set it: an existential is written `any P`, and a
// file sees only the members of modules it imports itself.
for target in package.targets
where ![.system, .binary, .plugin, .macro].contains(target.type) && target.name != "CTodoLinux" {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility")
        ]
}
