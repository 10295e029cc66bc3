import Dispatch
import TodoPosix

#if canImport(Glibc)
    import Glibc
#endif

/// Notices when the file the daemon runs from is replaced: a package upgrade (dpkg writes
/// `todod.dpkg-new` and renames it over `/usr/bin/todod`), `scripts/install`, a new build. Watches
/// the file's directory (inotify, `DirectoryWatch`): a rename over the name shows there as a move
/// in (`IN_MOVED_TO`), a file written afresh as `IN_CLOSE_WRITE`. A file merely created
/// (`IN_CREATE`, still being written) is waited for. Once the name has been quiet for
/// `quietSeconds` and names an executable file other than the one running, `replaced` is called,
/// once, on `queue`. See docs/PACKAGING.md, "Upgrading".
final class ProgramWatch: @unchecked Sendable {
    // @unchecked: `complete`, `generation` and `source` are touched only on `queue`.
    let path: String
    private let name: String
    private let running: Files.Identity
    private let queue: DispatchQueue
    private let replaced: (String) -> Void
    private var source: (any DispatchSourceRead)?
    /// A complete new file arrived since the last look.
    private var complete = false
    /// Bumped at every event for the name: only the look after the last one acts.
    private var generation = 0

    /// How long the name must stay quiet after the new file arrived before it is run (a file
    /// moved in and then given its mode, say).
    static let quietSeconds = 0.25

    /// Nil, with the reason logged, when the program's file cannot be known or watched (the
    /// daemon then runs its old program until it is restarted).
    init?(queue: DispatchQueue, log: Log, replaced: @escaping (String) -> Void) {
        guard let path = Executable.ownPath, path.hasPrefix("/"), !path.hasSuffix(" (deleted)"),
            let running = try? Files.identity(path)
        else {
            log.warning("cannot tell which file todod runs from; an upgrade takes effect when todod is restarted")
            return nil
        }
        self.path = path
        self.name = String(path.split(separator: "/").last ?? "")
        self.running = running
        self.queue = queue
        self.replaced = replaced
        let watch: DirectoryWatch
        do { watch = try DirectoryWatch(directories: [Files.directory(of: path)]) } catch {
            log.warning(
                "cannot watch \(Files.directory(of: path)) for a new \(name) (\(error)); an upgrade takes effect when todod is restarted"
            )
            return nil
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: watch.fd, queue: queue)
        source.setEventHandler { [unowned self] in
            let events = watch.drainEvents().filter { $0.name == name }
            guard !events.isEmpty else { return }
            if events.contains(where: \.isComplete) { complete = true }
            generation += 1
            let generation = self.generation
            queue.asyncAfter(deadline: .now() + Self.quietSeconds) { [weak self] in
                guard let self, generation == self.generation else { return }
                look()
            }
        }
        source.setCancelHandler { withExtendedLifetime(watch) {} }
        self.source = source
        source.resume()
    }

    /// After the quiet time: acts when a complete, executable file other than the running one
    /// has the name.
    private func look() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard complete, source != nil else { return }
        complete = false
        guard let now = try? Files.identity(path), !now.isSameFile(as: running), access(path, X_OK) == 0 else { return }
        source?.cancel()
        source = nil
        replaced(path)
    }
}
