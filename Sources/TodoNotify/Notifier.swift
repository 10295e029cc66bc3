#if canImport(Glibc)
import Glibc
#endif
import TodoClient
import TodoCore
import TodoPosix
import TodoProtocol
import TodoSystemd
import TodoTime

/// todod-notify: follows the journal for the reminders of one todod and hands each to the
/// outputs the command line chose (SPEC §8, docs/NOTIFY.md).
///
/// One thread: it reads every new matching entry, gives it to `--print`, `--exec` and the desktop,
/// saves the journal cursor once the reminder is out, and sleeps in `sd_journal_wait` (with the
/// desktop: in `poll` on the journal's and the bus's descriptors, which is what sd_journal_wait
/// does inside) until the journal or the bus has something. Nothing wakes it on a timer except a
/// pending retry of the desktop.
public final class Notifier {
    private let follower: JournalFollower
    private let cursorFile: CursorFile
    private let print: Bool
    private let exec: ExecOutput?
    private var desktop: DesktopOutput?
    private let log: NotifyLog
    private var cursorFailureLogged = false
    /// At most this many entries are read before they are handed on (bounded memory).
    static let batchLimit = 1000

    private init(follower: JournalFollower, cursorFile: CursorFile, print: Bool, exec: ExecOutput?, log: NotifyLog) {
        self.follower = follower
        self.cursorFile = cursorFile
        self.print = print
        self.exec = exec
        self.log = log
    }

    /// The whole program: returns the exit status (0 only for --help and --version; otherwise it
    /// runs until killed, or returns 1 when the journal cannot be read or stdout is gone).
    public static func main(arguments: [String], environment: [String: String]) -> Int32 {
        let log = NotifyLog(prefixPriority: environment["JOURNAL_STREAM"] != nil)
        let options: NotifyOptions
        do {
            options = try NotifyOptions.parse(arguments)
        } catch {
            log.error("\(error)")
            try? Posix.writeAll(2, Array((NotifyOptions.usage + "\n").utf8))
            return 2
        }
        if options.help {
            try? Posix.writeAll(1, Array((NotifyOptions.usage + "\n").utf8))
            return 0
        }
        if options.version {
            try? Posix.writeAll(1, Array("todod-notify \(TododVersion.string)\n".utf8))
            return 0
        }
        Posix.ignoreSIGPIPE()
        // Whatever the parent left ignored, SIGTERM, SIGINT and SIGHUP end us, but only while we
        // wait for the journal: they stay blocked (in every thread, which inherits the mask) while
        // a reminder goes out and its cursor is saved, so a stop never repeats one on restart.
        for signal in [SIGTERM, SIGINT, SIGHUP] { Glibc.signal(signal, SIG_DFL) }
        Self.allowTermination(false)
        let socket = SocketPaths.socket(flag: options.socket, system: options.system, environment: environment, uid: getuid())
        let pairing: Pairing
        do {
            pairing = try Pairing.ask(socket: socket)
        } catch {
            log.error("cannot pair with todod: \(DesktopOutput.describe(error))")
            return 69
        }
        let follower: JournalFollower
        do {
            follower = try JournalFollower(matching: pairing.matches, fields: Reminder.fields)
        } catch {
            log.error("cannot read the journal: \(error)")
            return 1
        }
        _ = follower.descriptor  // watch for changes from now on, before the first read
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/"
        let cursorFile = CursorFile(path: CursorFile.path(environment: environment, home: home))
        let saved: String?
        do {
            saved = try cursorFile.read()
        } catch {
            log.error("cannot read \(cursorFile.path): \(error.reason)")
            return 1
        }
        let exec = options.exec.map { ExecOutput(command: $0, timeout: options.execTimeout, environment: environment, log: log) }
        let notifier = Notifier(follower: follower, cursorFile: cursorFile, print: options.print, exec: exec, log: log)
        if options.notify {
            let snooze = SnoozeSetting.load(environment: environment) { log.warning($0) }
            let zone = ZoneInfo.named(byTZ: environment["TZ"], tzdir: environment["TZDIR"])
            notifier.desktop = DesktopOutput(socket: socket, snoozeUsec: snooze, zone: zone, log: log) { [unowned notifier] in
                notifier.saveCursor($0)
            }
        }
        do {
            let start = try follower.seek(after: saved)
            if saved == nil { notifier.saveCursor(start) }
        } catch {
            log.error("cannot read the journal: \(error)")
            return 1
        }
        let outputs = [options.notify ? "desktop" : nil, options.print ? "print" : nil, options.exec.map { "exec \($0[0])" }].compactMap { $0 }
        log.info("following the reminders of store \(pairing.storeID) (todod at \(socket)) to \(outputs.joined(separator: ", "))\(saved == nil ? "" : " from the saved cursor")")
        ServiceManager.notify("READY=1")
        return notifier.run()
    }

    private func run() -> Int32 {
        var catchingUp = true
        while true {
            var batch: [Reminder] = []
            var lastCursor: String?
            do {
                while batch.count < Self.batchLimit, let entry = try follower.next() {
                    lastCursor = entry.cursor
                    if let reminder = Reminder(entry) { batch.append(reminder) }
                }
            } catch {
                log.error("cannot read the journal: \(error)")
                return 1
            }
            let more = batch.count >= Self.batchLimit
            if !batch.isEmpty {
                guard deliver(batch, backlog: catchingUp) else { return 1 }
            } else if let lastCursor, desktop?.hasPending != true {
                saveCursor(lastCursor)  // only entries that are no reminder: step over them
            }
            if more { continue }
            catchingUp = false
            desktop?.flush()
            desktop?.process()
            do {
                Self.allowTermination(true)
                defer { Self.allowTermination(false) }
                try wait()
            } catch {
                log.error("cannot wait for the journal: \(error)")
                return 1
            }
        }
    }

    /// Hands `batch` to every output; false when standard output is gone.
    private func deliver(_ batch: [Reminder], backlog: Bool) -> Bool {
        for reminder in batch {
            if print {
                do {
                    try Posix.writeAll(1, Array((reminder.printLine + "\n").utf8))
                } catch {
                    log.error("cannot write to standard output: \(error.reason)")
                    return false
                }
            }
            exec?.run(reminder)
            if desktop == nil { saveCursor(reminder.cursor) }
        }
        if let desktop {
            desktop.enqueue(batch, backlog: backlog)
            desktop.flush()
        }
        return true
    }

    /// Unblocks (true) or blocks (false) the signals that end the notifier, in this thread.
    private static func allowTermination(_ allow: Bool) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&set, signal) }
        pthread_sigmask(allow ? SIG_UNBLOCK : SIG_BLOCK, &set, nil)
    }

    private func saveCursor(_ cursor: String) {
        do {
            try cursorFile.write(cursor)
            cursorFailureLogged = false
        } catch {
            if !cursorFailureLogged { log.error("cannot save the journal cursor in \(cursorFile.path): \(error.reason); a restart may repeat reminders") }
            cursorFailureLogged = true
        }
    }

    /// Sleeps until the journal (or the bus) has something, or a desktop retry is due.
    private func wait() throws(Journal.ReadError) {
        guard let desktop else {
            try follower.wait(timeoutUsec: nil)
            return
        }
        var fds = [pollfd(fd: follower.descriptor, events: follower.events, revents: 0)]
        if let bus = desktop.bus { fds.append(pollfd(fd: bus.descriptor, events: bus.events, revents: 0)) }
        var timeouts = [follower.timeoutUsec, desktop.bus?.timeoutUsec].compactMap { $0 }
        if let retryAt = desktop.retryAt, desktop.hasPending {
            timeouts.append(UInt64(max(0, (retryAt - Posix.monotonicSeconds()) * 1e6)))
        }
        let timeoutMs: Int32 = timeouts.min().map { Int32(min(Int64($0 / 1000) + 1, Int64(Int32.max))) } ?? -1
        while poll(&fds, nfds_t(fds.count), timeoutMs) < 0 && errno == EINTR {}
        try follower.process()
    }
}
