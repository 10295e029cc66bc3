import Dispatch
import Synchronization
import TodoPosix
import TodoSystemd
import TodoTime

/// The daemon's local zone: the one its reminder messages, STATUS= line and wall-clock (all-day)
/// reminders use. Read from `TZ`, `TZDIR` and `/etc/localtime` at start and again whenever
/// `ZoneWatch` sees them change; read from any queue.
///
/// todod keeps no other copy of the zone: it converts local time with `ZoneInfo` (no Foundation
/// `TimeZone.current`, no libc `localtime`, whose caches would need resetting), so replacing
/// this value is reloading the process's zone.
final class LocalZone: Sendable {
    private let current: Mutex<LocalZoneSetting>

    init(_ setting: LocalZoneSetting) {
        current = Mutex(setting)
    }

    var setting: LocalZoneSetting { current.withLock { $0 } }
    var zone: ZoneInfo { current.withLock { $0.zone } }

    /// Puts `setting` in place; returns the one it replaced.
    func replace(with setting: LocalZoneSetting) -> LocalZoneSetting {
        current.withLock { old in
            let previous = old
            old = setting
            return previous
        }
    }
}

/// Notices the local zone changing while the daemon runs: `/etc/localtime` replaced (as
/// `timedatectl set-timezone` does, by renaming a new link over it), or the tz database's file for
/// the zone updated on disk. inotify watches the directories holding them (a rename over a file
/// is an event of its directory, not of the file), so the change is seen at once, with no polling.
///
/// On a change it puts the new zone in place, has the scheduler look at every reminder again
/// (`reevaluate`), and writes one journal entry saying from which zone to which. Runs on the store
/// queue.
final class ZoneWatch: @unchecked Sendable {
    // @unchecked: `watch` and `source` are touched only on the store queue.
    /// The MESSAGE_ID of the "zone changed" entry (generated once with `systemd-id128 new`).
    static let messageID = "38d3b2027e1d49dcbe2c71cbced8fbee"

    private let zone: LocalZone
    private let tz: String?
    private let tzdir: String?
    private let queue: DispatchQueue
    private let journalQueue: DispatchQueue
    private let log: Log
    private let storeID: String
    private let changed: () -> Void
    private var source: (any DispatchSourceRead)?
    private var watchedDirectories: [String] = []

    /// `changed` is called on `queue` after the new zone is in place (the daemon re-arms the
    /// scheduler there); the journal entry is sent from `journalQueue`.
    init(
        zone: LocalZone, tz: String?, tzdir: String?, queue: DispatchQueue, journalQueue: DispatchQueue, log: Log,
        storeID: String, changed: @escaping () -> Void
    ) {
        self.zone = zone
        self.tz = tz
        self.tzdir = tzdir
        self.queue = queue
        self.journalQueue = journalQueue
        self.log = log
        self.storeID = storeID
        self.changed = changed
    }

    /// Starts watching the directories of the current setting, then reads it once more (a change
    /// between the first read and the watch is not missed).
    func start() {
        queue.sync {
            watch(zone.setting)
            check(since: MonotonicClock.seconds())
        }
    }

    private func watch(_ setting: LocalZoneSetting) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard setting.directories != watchedDirectories || source == nil else { return }
        source?.cancel()
        source = nil
        watchedDirectories = setting.directories
        guard !setting.directories.isEmpty else { return } // a POSIX rule in TZ: nothing on disk to change
        let watch: DirectoryWatch
        do { watch = try DirectoryWatch(directories: setting.directories) } catch {
            log.warning(
                "cannot watch \(setting.directories.joined(separator: " and ")) for zone changes (\(error)); the zone is read at start only"
            )
            return
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: watch.fd, queue: queue)
        source.setEventHandler { [unowned self] in
            let started = MonotonicClock.seconds()
            _ = watch.drain()
            self.check(since: started)
        }
        source.setCancelHandler { withExtendedLifetime(watch) {} }
        self.source = source
        source.resume()
    }

    /// Reads the zone again; acts when it changed. `since` is when the change was noticed.
    private func check(since noticed: Double) {
        dispatchPrecondition(condition: .onQueue(queue))
        let new = LocalZoneSetting.read(tz: tz, tzdir: tzdir)
        let old = zone.setting
        watch(new) // a link pointed elsewhere: watch the new target's directory
        guard new != old else { return }
        _ = zone.replace(with: new)
        changed()
        let rearmUsec = Int64((MonotonicClock.seconds() - noticed) * 1_000_000)
        let what =
            old.name == new.name
            ? "The tz database's rules for \(new.name) changed"
            : "The local time zone changed from \(old.name) to \(new.name)"
        let message = what + "; reminders of all-day todos follow the new local time, the others keep their instant."
        let fields: [(name: String, value: String)] = [
            ("MESSAGE", message), ("MESSAGE_ID", Self.messageID), ("PRIORITY", "5"), ("SYSLOG_IDENTIFIER", "todod"),
            ("TODO_STORE", storeID), ("TODO_ZONE_FROM", old.name), ("TODO_ZONE_TO", new.name),
            ("TODO_REARM_USEC", String(rearmUsec))
        ]
        let log = self.log
        journalQueue.async {
            if Journal.send(fields) != nil { log.notice(message) }
        }
    }
}

/// Hears logind's `PrepareForSleep` on the system bus, on a queue of its own: connecting (sd-bus
/// waits for the bus's answer to the subscription) holds up neither start nor requests. Without a
/// system bus (a container, a test machine) it says so once at info level and does nothing; the
/// kernel's count of suspended time still tells the scheduler that the machine slept.
final class SleepWatch: @unchecked Sendable {
    // @unchecked: `signals` and `source` are touched only on `queue`.
    private let queue = DispatchQueue(label: "todod.login1")
    private var signals: SleepSignals?
    private var source: (any DispatchSourceRead)?

    /// `changed(true)` before the machine sleeps, `changed(false)` once it resumed; called on the
    /// watch's own queue.
    init(log: Log, changed: @escaping @Sendable (Bool) -> Void) {
        queue.async { [self] in
            let signals: SleepSignals
            do { signals = try SleepSignals() } catch {
                log.info(
                    "no system bus (\(error)); a resume is noticed by the timer and the kernel's suspended time only")
                return
            }
            self.signals = signals
            log.info("listening for logind's PrepareForSleep on the system bus")
            let source = DispatchSource.makeReadSource(fileDescriptor: signals.descriptor, queue: queue)
            source.setEventHandler { [unowned self] in
                do {
                    for asleep in try signals.process() { changed(asleep) }
                } catch {
                    log.warning("the system bus went away (\(error)); resumes are noticed by the timer only")
                    self.source?.cancel()
                }
            }
            source.setCancelHandler { withExtendedLifetime(signals) {} }
            self.source = source
            source.resume()
            // Anything that came with the subscription's answer is already read.
            if let pending = try? signals.process() { for asleep in pending { changed(asleep) } }
        }
    }
}
