import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The zone changing under a running todod, with the real kernel (inotify, a private mount
/// namespace) and the real journal: docs/REMINDERS.md, "Time that changes". This machine's own
/// zone and clock are never touched: the daemon runs in a mount namespace of its own whose /etc
/// is an overlay, and `/etc/localtime` is replaced there, by rename, as timedatectl does.
@Suite(
    .serialized,
    .enabled(
        if: UnixDatagram.hasReceiver(path: "/run/systemd/journal/socket") && getuid() == 0
            && FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/Asia/Tokyo"),
        "needs root (unshare -m), the tz database and a running systemd-journald (scripts/test starts one)"))
struct TimeChangeEndToEndTests {
    static let zoneChangedMessageID = "38d3b2027e1d49dcbe2c71cbced8fbee"

    /// todod in a mount namespace whose /etc is an overlay (the real /etc below, a tmpfs above)
    /// and whose /etc/localtime points to `zone`; TZ and TZDIR unset, so /etc/localtime is the zone.
    static func launch(zone: String, in dir: TemporaryDirectory) throws -> LaunchedDaemon {
        let socket = dir.file("todod.sock")
        let layer = dir.file("etc-layer")
        try FileManager.default.createDirectory(atPath: layer, withIntermediateDirectories: true)
        return try LaunchedDaemon(
            "/usr/bin/unshare",
            [
                "-m", "--propagation", "private", "sh", "-c",
                """
                mount -t tmpfs tmpfs "$3" && mkdir "$3/upper" "$3/work" \
                && mount -t overlay overlay -o lowerdir=/etc,upperdir="$3/upper",workdir="$3/work" /etc \
                && ln -sfn "/usr/share/zoneinfo/$4" /etc/localtime && exec env -u TZ -u TZDIR "$0" --socket "$1" --db "$2"
                """,
                BuiltProducts.path("todod"), socket, dir.file("todos.db"), layer, zone
            ], socket: socket)
    }

    /// Points /etc/localtime of the daemon's namespace at `zone` the way timedatectl does: a new
    /// link beside it, renamed over it. Returns the instant of the rename.
    static func setZone(_ zone: String, of daemon: LaunchedDaemon) throws -> Date {
        let result = try ChildProcess.run(
            "/usr/bin/nsenter",
            [
                "-t", String(daemon.pid), "-m", "sh", "-c",
                "ln -sfn \"/usr/share/zoneinfo/$0\" /etc/.localtime.new && date +%s.%N && mv -T /etc/.localtime.new /etc/localtime",
                zone
            ])
        #expect(result.status == 0, "\(result.stderr)")
        return Date(timeIntervalSince1970: Double(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0)
    }

    static func utcText(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    /// Berlin (UTC+1 in winter, +2 in summer) to Tokyo (+9): an all-day todo's reminder, whose
    /// Berlin wall-clock time is hours away, fires at that wall-clock time in Tokyo, seconds
    /// from now; a zoned one fires at its instant; the journal says the zone changed, once.
    @Test func anAllDayReminderFollowsTheNewZoneAndAZonedOneKeepsItsInstant() throws {
        let dir = TemporaryDirectory("tzchange")
        // Entries since now: a pid is reused, the journal keeps older ones.
        let start = Date()
        let daemon = try Self.launch(zone: "Europe/Berlin", in: dir)
        let client = try daemon.client()
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        let tokyo = TimeZone(identifier: "Asia/Tokyo")!
        // The all-day reminder in Tokyo, 6 s from now; stored as the same wall-clock time in Berlin.
        let now = Date()
        let firesAt = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + 6).rounded(.down))
        let shift = Double(tokyo.secondsFromGMT(for: firesAt) - berlin.secondsFromGMT(for: firesAt))
        let storedRemind = firesAt.addingTimeInterval(shift)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = berlin
        let dayStart = calendar.startOfDay(for: storedRemind)
        let allDayTitle = unique("all-day 終日")
        let allDay = try client.result(
            "todo.add",
            [
                "title": .string(allDayTitle), "due": .string(Self.utcText(dayStart)), "allDay": true,
                "zone": "Europe/Berlin",
                "remind": .string(Self.utcText(storedRemind))
            ])
        #expect(allDay["allDay"] == true)
        let zonedTitle = unique("zoned")
        let zonedAt = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + 8).rounded(.down))
        _ = try client.result(
            "todo.add", ["title": .string(zonedTitle), "due": .string(Self.utcText(zonedAt)), "zone": "Europe/Berlin"])

        let renamed = try Self.setZone("Asia/Tokyo", of: daemon)
        var changed: [JSON] = []
        #expect(
            eventually(timeout: 5) {
                changed =
                    (try? Journalctl.entries(
                        ["MESSAGE_ID=\(Self.zoneChangedMessageID)", "_PID=\(daemon.pid)"], since: start)) ?? []
                return !changed.isEmpty
            })
        let entry = try #require(changed.first)
        #expect(entry["TODO_ZONE_FROM"] == "Europe/Berlin")
        #expect(entry["TODO_ZONE_TO"] == "Asia/Tokyo")
        #expect(entry["MESSAGE"]?.stringValue?.contains("from Europe/Berlin to Asia/Tokyo") == true)
        let loggedUsec = Double(entry["__REALTIME_TIMESTAMP"]?.stringValue ?? "") ?? 0
        let noticed = loggedUsec / 1e6 - renamed.timeIntervalSince1970
        let rearmUsec = Int64(entry["TODO_REARM_USEC"]?.stringValue ?? "") ?? -1
        #expect(noticed >= 0 && noticed < 1, "noticed \(noticed) s after the rename")
        #expect(rearmUsec >= 0 && rearmUsec < 1_000_000)
        print(
            "TimeChange: zone change noticed and entry logged \(Int(noticed * 1000)) ms after the rename; re-armed \(rearmUsec) µs after the event"
        )

        // Both fire, each once: the all-day one at 6 s (its wall-clock time in Tokyo), the zoned one at 8 s.
        let allDayEntry = try #require(try Journalctl.reminders(title: allDayTitle, atLeast: 1).first)
        let zonedEntry = try #require(try Journalctl.reminders(title: zonedTitle, atLeast: 1).first)
        #expect(allDayEntry["TODO_REMIND_USEC"] == .string(String(Int64(firesAt.timeIntervalSince1970) * 1_000_000)))
        #expect(zonedEntry["TODO_REMIND_USEC"] == .string(String(Int64(zonedAt.timeIntervalSince1970) * 1_000_000)))
        for e in [allDayEntry, zonedEntry] {
            let late = Int64(e["TODO_LATE_USEC"]?.stringValue ?? "") ?? -1
            #expect(late >= 0 && late < 1_000_000, "late \(late) µs")
        }
        let firedUsec = Double(allDayEntry["__REALTIME_TIMESTAMP"]?.stringValue ?? "") ?? 0
        #expect(abs(firedUsec / 1e6 - firesAt.timeIntervalSince1970) < 1)
        #expect(
            try Journalctl.entries(["MESSAGE_ID=\(Self.zoneChangedMessageID)", "_PID=\(daemon.pid)"], since: start)
                .count == 1)
        #expect(try Journalctl.reminders(title: allDayTitle, atLeast: 2, timeout: 0.5).count == 1)
        _ = daemon.stop()
    }

    /// The same link written again (no change) is no change: no entry.
    @Test func rewritingTheSameZoneIsNoChange() throws {
        let dir = TemporaryDirectory("tzsame")
        // Entries since now: a pid is reused, the journal keeps older ones.
        let start = Date()
        let daemon = try Self.launch(zone: "Asia/Tokyo", in: dir)
        // It listens before it reads its zone, and serves once the zone is read and watched.
        _ = try daemon.client().result("daemon.status")
        _ = try Self.setZone("Asia/Tokyo", of: daemon)
        // A change it does see after, so the first was looked at and let go.
        _ = try Self.setZone("America/New_York", of: daemon)
        var changed: [JSON] = []
        #expect(
            eventually(timeout: 5) {
                changed =
                    (try? Journalctl.entries(
                        ["MESSAGE_ID=\(Self.zoneChangedMessageID)", "_PID=\(daemon.pid)"], since: start)) ?? []
                return !changed.isEmpty
            })
        #expect(changed.count == 1)
        #expect(changed.first?["TODO_ZONE_FROM"] == "Asia/Tokyo")
        #expect(changed.first?["TODO_ZONE_TO"] == "America/New_York")
        _ = daemon.stop()
    }

    /// The tz database's file for the zone updated in place (TZ names a zone of TZDIR, and a
    /// package update renames a new file over it): the new rules are read; the entry says so.
    @Test func aTzDatabaseUpdateIsNoticed() throws {
        let dir = TemporaryDirectory("tzdb")
        let tzdir = dir.file("zoneinfo")
        try FileManager.default.createDirectory(atPath: tzdir + "/Test", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/Asia/Tokyo", toPath: tzdir + "/Test/Home")
        // Entries since now: a pid is reused, the journal keeps older ones.
        let start = Date()
        let daemon = try DaemonProcess(directory: dir, environment: ["TZ": "Test/Home", "TZDIR": tzdir])
        // It listens before it reads its zone, and serves once the zone is read and watched.
        _ = try daemon.client().result("daemon.status")
        try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/Asia/Kolkata", toPath: tzdir + "/Test/Home.new")
        #expect(rename(tzdir + "/Test/Home.new", tzdir + "/Test/Home") == 0)
        var changed: [JSON] = []
        #expect(
            eventually(timeout: 5) {
                changed =
                    (try? Journalctl.entries(
                        ["MESSAGE_ID=\(Self.zoneChangedMessageID)", "_PID=\(daemon.pid)"], since: start)) ?? []
                return !changed.isEmpty
            })
        #expect(changed.first?["TODO_ZONE_TO"] == "Test/Home")
        #expect(changed.first?["MESSAGE"]?.stringValue?.contains("rules for Test/Home changed") == true)
        // The message of a reminder now shows the new offset.
        let title = unique("kolkata")
        _ = try daemon.client().result("todo.add", ["title": .string(title), "due": .string(rfc3339(in: 1))])
        let message = try Journalctl.reminders(title: title, atLeast: 1).first?["MESSAGE"]?.stringValue ?? ""
        // Once under load this showed +09:00: the copy to Home.new woke the watch, the zone was
        // read from the old file and the bytes compared from the new one (LocalZoneSettingTests).
        #expect(message.hasSuffix(" +05:30."), "\(message)")
        #expect(
            try Journalctl.entries(["MESSAGE_ID=\(Self.zoneChangedMessageID)", "_PID=\(daemon.pid)"], since: start)
                .count == 1,
            "one change, one entry")
    }
}
