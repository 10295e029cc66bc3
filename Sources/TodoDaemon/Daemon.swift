import Dispatch
import Foundation
import TodoCore
import TodoPosix
import TodoProtocol
import TodoStore
import TodoSystemd
import TodoTime

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's object graph and lifecycle: open the store, listen, serve, stop cleanly.
///
/// Start-up order: ignore SIGPIPE, register signal sources, open and migrate the store, listen,
/// then announce. On SIGTERM or SIGINT: stop accepting and reading, let every request already
/// received finish and its answer leave, close the store, exit 0. SIGHUP is ignored (logged):
/// there is nothing to reload. When its program file is replaced (an upgrade): the same, but the
/// listening socket stays open and the new program runs in this process (`reexec`).
package final class Daemon: @unchecked Sendable {
    // @unchecked: `running`, `stopping` and `earlySignal` are touched only on the I/O queue
    // (`start` sets `running` there, `stop` runs there); `databaseWatch` only on the store queue once its
    // source runs (`start` sets it before); `signalSources` is filled in `start` only to keep
    // the sources alive; the rest is immutable.
    private let options: DaemonOptions
    private let log: Log
    private let ioQueue = DispatchQueue(label: "todod.io")
    /// The parts `stop` needs, once `start` made them.
    private var running: Running?
    private var stopping = false
    /// A SIGTERM or SIGINT that came while the daemon was stopping to run its new program: it
    /// exits instead.
    private var stopAsked = false
    /// Watches the program's file for a replacement; set once at start.
    private var programWatch: ProgramWatch?
    /// A SIGTERM or SIGINT that came before `running` was set: acted on as soon as it is.
    private var earlySignal: Int32?
    private var signalSources: [any DispatchSourceSignal] = []
    private let notifier = ManagerNotifier()
    private let watchdog: Watchdog
    private var databaseWatch: (any DispatchSourceRead)?
    /// Watches the local zone for changes; set once at start.
    private var zoneWatch: ZoneWatch?
    /// logind's sleep and resume signals; set once at start.
    private var sleepWatch: SleepWatch?
    private let environment: [String: String]
    private let afterStart: (@Sendable (_ storeQueue: DispatchQueue) -> Void)?
    /// False opens the store without its change log (a test build's switch, for the benchmark).
    private let changeLog: Bool

    /// What a started daemon holds (docs/ARCHITECTURE.md draws how they are wired).
    private struct Running {
        let store: TodoStore
        let server: Server
        let connections: ConnectionRegistry
        let executor: RequestExecutor
        let scheduler: ReminderScheduler
        /// The socket file todod made (not one systemd passed), unlinked at stop.
        let createdSocket: String?
    }

    package convenience init(options: DaemonOptions, environment: [String: String]) {
        self.init(options: options, environment: environment, afterStart: nil)
    }

    /// For test builds of the daemon only (the `todod-faults` executable, never installed):
    /// `afterStart` runs once the daemon serves, given the store queue, so a test can make it hang;
    /// `changeLog: false` opens the store without the change log (todobench's measure of its cost;
    /// nothing can then be undone). The shipped `todod` cannot reach either.
    @_spi(Testing) public init(
        options: DaemonOptions, environment: [String: String],
        afterStart: (@Sendable (_ storeQueue: DispatchQueue) -> Void)?, changeLog: Bool = true
    ) {
        self.options = options
        self.log = Log(prefixPriority: environment["JOURNAL_STREAM"] != nil)
        self.environment = environment
        self.afterStart = afterStart
        self.changeLog = changeLog
        self.watchdog = Watchdog(notifier: notifier)
    }

    /// Runs the daemon until it is stopped; never returns.
    package func run() -> Never {
        do {
            try start()
        } catch {
            log.error("\(error)")
            exit(1)
        }
        dispatchMain()
    }

    /// A reason the daemon cannot start, in one line.
    struct StartError: Error, CustomStringConvertible {
        let description: String
    }

    /// Opens the store, then wires the parts, each given its collaborators when it is made:
    /// connections and status first, then the scheduler (which reports to both), the executor
    /// (which delivers to the connections and re-arms the scheduler), and the server (which hands
    /// requests to the executor). See docs/ARCHITECTURE.md.
    private func start() throws {
        Posix.ignoreSIGPIPE()
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: ioQueue)
            source.setEventHandler { [unowned self] in self.stop(signal: signalNumber) }
            source.resume()
            signalSources.append(source)
        }
        // SIGHUP: nothing to reload (the options are the command line and environment, read
        // once), and a hangup of the terminal todod was started from must not stop it. Said once
        // in the log, so whoever sent it knows it did nothing (todod(8)).
        signal(SIGHUP, SIG_IGN)
        let hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: ioQueue)
        hangup.setEventHandler { [log] in
            log.info("SIGHUP ignored: todod has nothing to reload; restart it to change its options")
        }
        hangup.resume()
        signalSources.append(hangup)
        umask(0o077)
        raiseFileLimit()
        keepLargeBuffersOutOfTheHeap()

        let database = options.database
        let openPath = try trustedDatabasePath(database)
        let store: TodoStore
        do {
            store = try TodoStore(path: openPath, tzdir: environment["TZDIR"], changeLog: changeLog)
        } catch {
            throw StartError(description: error.message)
        }
        let storeID: String
        do { storeID = try store.read { try $0.storeID() } } catch {
            throw StartError(description: "cannot read the store's id: \(error)")
        }

        // Set by the program this one replaced (`reexec`): the socket file it made, "" for one
        // systemd passed. Not for anything this process starts.
        let replacing = environment["TODOD_REEXEC"]
        unsetenv("TODOD_REEXEC")
        let passed = try adoptPassedSocket(quietly: replacing != nil)
        let listener = try passed ?? listen(on: options.socket)
        let readLoop: ReadLoop
        do { readLoop = try ReadLoop(queue: ioQueue) } catch {
            throw StartError(description: "cannot wait for clients: \(error)")
        }

        // Local times in reminder messages and STATUS= use the zone `TZ` names, read as todoctl reads it.
        // Read again whenever it changes on disk (`ZoneWatch`, below).
        let localZone = LocalZone(LocalZoneSetting.read(tz: environment["TZ"], tzdir: environment["TZDIR"]))
        let timeZone: @Sendable () -> ZoneInfo = { localZone.zone }
        // One wall-clock timer for the earliest pending reminder; re-armed after every commit.
        // Its descriptor is made now, so arming it never needs one later (at the descriptor limit).
        let timer: DispatchWallTimer
        do { timer = try DispatchWallTimer(queue: store.queue) } catch {
            throw StartError(description: "cannot make the reminder timer: \(error)")
        }

        let connections: ConnectionRegistry
        do { connections = ConnectionRegistry(seq: try store.read { try $0.currentSeq() }, queue: ioQueue) } catch {
            throw StartError(description: "cannot read the store's change log: \(error)")
        }
        let status = ManagerStatus(
            store: store, notifier: notifier, enabled: environment["NOTIFY_SOCKET"] != nil, timeZone: timeZone)
        // Reminders are sent to the journal from a queue of their own: a journald that blocks
        // holds up only that queue, never requests.
        let deliveryQueue = DispatchQueue(label: "todod.journal-write")
        let scheduler = ReminderScheduler(
            store: store, clock: { Instant.now() }, localZone: timeZone, tzdir: environment["TZDIR"],
            suspendedUsec: { MonotonicClock.suspendedUsec() }, timer: timer,
            sink: PublishingReminderSink(
                JournalReminderSink(log: log, timeZone: timeZone, storeID: storeID, queue: deliveryQueue),
                ioQueue: ioQueue, connections: connections),
            deliveryQueue: deliveryQueue,
            onFired: { _ in status.update() })
        let started = Posix.monotonicSeconds()
        let spoolBudget = SpoolBudget(directory: Files.directory(of: openPath))
        let router = Router(
            status: StatusSource(
                storeID: storeID, pid: getpid(), database: database, started: started,
                monotonic: { Posix.monotonicSeconds() }, databaseProblem: { store.fileProblemOnQueue() }),
            reminders: ReminderHistory(uid: getuid(), storeID: storeID, command: Daemon.commandName()),
            progress: { [watchdog] in watchdog.progress() }, spoolBudget: spoolBudget)
        let executor = RequestExecutor(
            store: store, router: router, ioQueue: ioQueue, replies: connections,
            afterCommit: {
                scheduler.rearm()
                status.update()
            })
        let server = Server(
            listener: listener, queue: ioQueue, readLoop: readLoop, allowedUIDs: [getuid(), 0], log: log,
            requests: executor, connections: connections,
            spoolBudget: spoolBudget)
        // The zone changing under the daemon (a flight, `timedatectl set-timezone`, a tz database
        // update): every reminder looked at again (docs/REMINDERS.md, "Time that changes").
        // Watched before clients are served: a change from then on is seen.
        let zoneWatch = ZoneWatch(
            zone: localZone, tz: environment["TZ"], tzdir: environment["TZDIR"], queue: store.queue,
            journalQueue: deliveryQueue, log: log, storeID: storeID
        ) {
            scheduler.reevaluate()
            status.update()
        }
        zoneWatch.start()
        self.zoneWatch = zoneWatch
        let running = Running(
            store: store, server: server, connections: connections, executor: executor, scheduler: scheduler,
            createdSocket: passed == nil ? options.socket : replacing.flatMap { $0.isEmpty ? nil : $0 })
        do {
            try ioQueue.sync {
                self.running = running
                try server.start()
                // a client may connect as soon as we listen, and stop us
                if let earlySignal { stop(signal: earlySignal) }
            }
        } catch {
            throw StartError(description: "cannot accept clients: \(error)")
        }

        store.queue.sync {
            scheduler.rearm() // also fires what fell due while the daemon was down
            status.update()
        }
        watchDatabaseFile(store) { status.update() }
        // logind's PrepareForSleep: a resume looks at everything again (summarized when many
        // fell due meanwhile). Connected off the start path; without a system bus, nothing.
        sleepWatch = SleepWatch(log: log) { [store, log] asleep in
            log.info(
                asleep
                    ? "logind: the machine is about to sleep; reminders wait for the resume"
                    : "logind: the machine resumed")
            store.queue.async { asleep ? scheduler.preparingForSleep() : scheduler.resumed() }
        }
        watchdog.start(on: store.queue)
        // The program file replaced (an upgrade): the new program runs in this process.
        programWatch = ProgramWatch(queue: ioQueue, log: log) { [unowned self] path in self.reexec(path) }
        notifier.send("READY=1")
        afterStart?(store.queue)
        log.info(
            "todod \(TododVersion.string) serving \(options.socket), database \(database) (pid \(getpid())"
                + (replacing != nil ? ", the program replaced in place" : "") + ")")
    }

    /// The path to open the database by: its directory's real path (checked by
    /// `Files.trustedDirectory`) and its file name, which must not be a symbolic link, nor may
    /// the files SQLite makes beside it. SQLite then opens it with no-follow semantics.
    private func trustedDatabasePath(_ database: String) throws(StartError) -> String {
        let directory = try trustedDirectory(of: database, for: "database")
        let name = database.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? database
        let real = (directory == "/" ? "" : directory) + "/" + name
        for path in [real, real + "-wal", real + "-journal", real + "-shm"] where Files.isSymbolicLink(path) {
            throw StartError(
                description: "refusing \(path): it is a symbolic link (todod opens its database files only as they are)"
            )
        }
        return real
    }

    /// Creates the directory of `path` (0700, with its missing parents) and checks that only
    /// this user or root can change it: the part that exists is checked before anything is
    /// created in it, the whole chain after. Returns its real path.
    private func trustedDirectory(of path: String, for purpose: String) throws(StartError) -> String {
        let directory = Files.directory(of: path)
        do {
            var existing = directory
            while Files.realPath(existing) == nil, existing != "/", existing != "." {
                existing = Files.directory(of: existing)
            }
            _ = try Files.trustedDirectory(existing, uid: getuid(), forCreating: existing != directory)
            do {
                try Files.makeDirectories(directory, mode: 0o700)
            } catch {
                throw StartError(description: "cannot create the directory of \(path): \(error.reason)")
            }
            return try Files.trustedDirectory(directory, uid: getuid())
        } catch let error as Files.Untrusted {
            throw StartError(description: "\(error) (the directory of the \(purpose) \(path))")
        } catch let error as StartError {
            throw error
        } catch {
            throw StartError(description: "\(error)")
        }
    }

    /// The listening socket systemd passed (socket activation), if any. It is never unlinked.
    private func adoptPassedSocket(quietly: Bool) throws -> Int32? {
        let passed = ServiceManager.listenFDs()
        guard !passed.isEmpty else { return nil }
        guard let fd = passed.first(where: UnixSocket.isListeningStream) else {
            throw StartError(
                description: "systemd passed \(passed.count) descriptor(s), but none is a listening stream socket")
        }
        for other in passed where other != fd { Posix.close(other) }
        try Posix.setNonBlocking(fd)
        if !quietly { log.info("using the socket passed by systemd") }
        enforcePrivateMode(ofSocketAt: UnixSocket.localPath(fd))
        return fd
    }

    /// Makes a passed socket file 0600 when it is ours, as when todod binds the socket itself (its
    /// directory is the unit's `DirectoryMode=`; todod never changes a directory it did not create).
    /// The uid check on every connection holds either way. The mode is set by path, so only in a
    /// directory nobody else can change (`Files.trustedDirectory`).
    private func enforcePrivateMode(ofSocketAt path: String?) {
        guard let path, let current = try? Files.mode(path), current.uid == getuid(), current.mode != 0o600 else {
            return
        }
        guard (try? Files.trustedDirectory(Files.directory(of: path), uid: getuid())) != nil else {
            log.warning(
                "\(path) has mode \(String(current.mode, radix: 8)) in a directory others can change; left as it is")
            return
        }
        log.warning("\(path) had mode \(String(current.mode, radix: 8)); setting 600")
        try? Files.chmod(path, 0o600)
    }

    /// Notices at once when the database file is deleted or replaced (inotify on its name, no
    /// polling): the store then empties its write-ahead log into the old file, so a crash cannot
    /// leave that log to be replayed over a replacement, and refuses writes. Writes and
    /// `daemon.status` look at the path themselves too, so this only makes it sooner.
    private func watchDatabaseFile(_ store: TodoStore, changed: @escaping @Sendable () -> Void) {
        let watch: FileWatch
        do { watch = try FileWatch(path: store.path) } catch {
            log.warning("cannot watch \(store.path) for deletion (\(error)); it is checked before each write")
            return
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: watch.fd, queue: store.queue)
        source.setEventHandler { [unowned self] in
            watch.drain()
            guard let problem = store.fileProblemOnQueue() else { return }
            log.error(problem)
            changed()
            databaseWatch?.cancel() // it stays so until a restart
        }
        source.setCancelHandler { withExtendedLifetime(watch) {} }
        databaseWatch = source
        source.resume()
    }

    /// Binds the socket: parent directories 0700 and trusted (`Files.trustedDirectory`), the socket
    /// created 0600, a stale socket replaced, a live one refused.
    private func listen(on path: String) throws -> Int32 {
        _ = try trustedDirectory(of: path, for: "socket")
        switch try? Files.kind(path) {
        case .socket?:
            if let fd = try? UnixSocket.connect(path: path) {
                Posix.close(fd)
                throw StartError(description: "another todod is already running on \(path)")
            }
            try? Files.unlink(path) // stale: left by a daemon that died
        case .directory?, .other?:
            throw StartError(description: "\(path) exists and is not a socket; remove it or choose another --socket")
        case .missing?, nil:
            break
        }
        let fd: Int32
        do {
            fd = try UnixSocket.listen(path: path, mode: 0o600)
        } catch  where error.errno == EADDRINUSE {
            throw StartError(description: "another todod is already running on \(path)")
        } catch {
            throw StartError(
                description:
                    "cannot listen on \(path): \(error.errno == ENAMETOOLONG ? "path longer than \(UnixSocket.maxPathLength) bytes" : error.reason)"
            )
        }
        try Posix.setNonBlocking(fd)
        return fd
    }

    /// On the I/O queue (the signal sources run there).
    private func stop(signal: Int32) {
        dispatchPrecondition(condition: .onQueue(ioQueue))
        guard let running else {
            earlySignal = signal
            return
        }
        guard !stopping else {
            stopAsked = true // stopping to run the new program: exit instead (`reexec`)
            return
        }
        stopping = true
        notifier.send("STOPPING=1")
        log.info("stopping on \(signal == SIGTERM ? "SIGTERM" : "SIGINT")")
        running.server.stopAccepting()
        if let createdSocket = running.createdSocket { try? Files.unlink(createdSocket) }
        finishWork(running) { [notifier] in
            notifier.flush(seconds: 1)
            Glibc.exit(0)
        }
    }

    /// On the I/O queue, once the server stopped accepting and reading: every request received so
    /// far runs and its answer is queued; the reminder batch in flight is recorded (never sent
    /// again) and nothing more fires; the store is closed. Then `done`, on the I/O queue, once:
    /// when the last answer is written (or its peer left), or after 5 s for a peer that does not
    /// read.
    private func finishWork(_ running: Running, then done: @escaping @Sendable () -> Void) {
        let (store, connections, scheduler) = (running.store, running.connections, running.scheduler)
        let once = Once(done)
        running.executor.barrier { [ioQueue] in
            scheduler.halt(waitingAtMost: 5) {
                ioQueue.async {
                    store.close()
                    connections.whenFlushed(once.run)
                    ioQueue.asyncAfter(deadline: .now() + 5, execute: once.run)
                }
            }
        }
    }

    /// On the I/O queue: the program's file was replaced by `path` (an upgrade). Finishes the
    /// work as at a stop, keeping the listening socket open (clients meanwhile wait in its
    /// backlog), then runs the new program in this process, as socket activation would start it:
    /// the same pid, so the service manager sees the same main process (`RELOADING=1`, then the
    /// new program's `READY=1`) and nothing fails or restarts. The new program fires what fell
    /// due meanwhile as it starts. A SIGTERM meanwhile makes it exit 0 instead.
    private func reexec(_ path: String) {
        dispatchPrecondition(condition: .onQueue(ioQueue))
        guard let running, !stopping else { return }
        stopping = true
        log.notice(
            "\(path) was replaced (an upgrade?): running the new program in place of this one, pid \(getpid()) and the listening socket kept"
        )
        notifier.send("RELOADING=1\nMONOTONIC_USEC=\(UInt64(Posix.monotonicSeconds() * 1_000_000))")
        let listener = running.server.stopAccepting(keepingListener: true)
        finishWork(running) { [self] in
            if stopAsked {
                if let createdSocket = running.createdSocket { try? Files.unlink(createdSocket) }
                notifier.send("STOPPING=1")
                notifier.flush(seconds: 1)
                Glibc.exit(0)
            }
            notifier.flush(seconds: 1)
            let error = Executable.replace(
                with: path, arguments: Array(CommandLine.arguments.dropFirst()), passing: listener,
                setting: ["TODOD_REEXEC": running.createdSocket ?? ""])
            log.error("cannot run the new \(path) (\(error)); exiting so that the service manager starts it")
            Glibc.exit(1)
        }
    }

    /// Allocations of 256 KiB or more (the answer to a long listing, say) get mappings of their
    /// own, given back when freed. glibc would otherwise raise that threshold after the first such
    /// free, and later answers would stay in the heap: each long listing would leave tens of MiB
    /// of resident memory behind.
    private func keepLargeBuffersOutOfTheHeap() {
        Posix.mapAllocations(from: 256 * 1024)
    }

    /// Lets the daemon hold as many connections as the hard limit allows.
    private func raiseFileLimit() {
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
    }

    /// The command name journald records for this process (`_COMM`): the first 15 bytes of the
    /// executable's name, as `/proc/self/comm` holds it.
    static func commandName() -> String {
        let text =
            (try? Files.contents(of: "/proc/self/comm", maxBytes: 64)).map { String(decoding: $0, as: UTF8.self) }
            ?? "todod"
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }
}

/// A closure run at most once, whichever of its callers comes first (all on one queue).
private final class Once: @unchecked Sendable {
    // @unchecked: `body` is touched only on the queue the callers run on.
    private var body: (@Sendable () -> Void)?
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    var run: @Sendable () -> Void {
        { [self] in
            let body = self.body
            self.body = nil
            body?()
        }
    }
}
