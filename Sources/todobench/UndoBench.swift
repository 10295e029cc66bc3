import Foundation
import Synchronization
import TodoCore
import TodoProtocol
import TodoStore

#if canImport(Glibc)
    import Glibc
#endif

/// Undo and redo of a large import through the daemon: the time `store.undo` and `store.redo`
/// take for N imported todos, and the worst latency another client's `todo.get` sees meanwhile
/// (it asks in a loop, one request at a time). The import is logged by the store itself (one
/// `importDocument`, as the daemon applies one), then the daemon is started on that file.
enum UndoBench {
    static func run(sizes: [Int]) throws {
        print("== undo: store.undo and store.redo of a large import, another client's todo.get meanwhile")
        for count in sizes { try run(count: count) }
    }

    private static func run(count: Int) throws {
        let label = formatCount(count)
        let dir = try TempDir("undo")
        let database = dir.file("todos.db")
        let store = try TodoStore(path: database)
        let kept = try store.write { (tx) throws(TodoError) in try tx.add(NewTodo(title: "残すもの")) }
        let seeded = Measure.now()
        let base = Instant.now()
        let document = ExportDocument(
            categories: [],
            todos: (0..<count).map { i in
                ExportDocument.Entry(
                    title: Seed.title(i), category: Seed.category(i), due: Seed.due(i, base: base),
                    created: base, updated: base)
            }, exported: base)
        _ = try store.write { (tx) throws(TodoError) in try tx.importDocument(document) }
        store.close()
        print("  imported \(label) todos in \(formatSeconds(Measure.now() - seeded))")

        let daemon = try DaemonRun(dir: dir, database: database)
        defer { daemon.stop() }
        let actor = try LineConnection(path: daemon.socket, timeoutSeconds: 1_800)
        for (method, open) in [(Method.storeUndo.name, 1), (Method.storeRedo.name, count + 1)] {
            // used by that thread alone
            nonisolated(unsafe) let other = try LineConnection(path: daemon.socket, timeoutSeconds: 1_800)
            let get = requestLine(id: 7, Method.todoGet.name, ["id": .int(kept.id)])
            let worst = Locked(0.0)
            let answered = Locked(0)
            let stop = Locked(false)
            let failure = Locked<String?>(nil)
            let asker = Thread {
                while !stop.value {
                    let t = Measure.now()
                    do {
                        let line = try other.call(get)
                        guard (try? JSON.parse(line))?["result"]?["id"]?.intValue == kept.id else {
                            failure.set("todo.get answered \(String(decoding: line.prefix(200), as: UTF8.self))")
                            return
                        }
                    } catch {
                        failure.set("todo.get: \(error)")
                        return
                    }
                    let took = Measure.now() - t
                    worst.update { max($0, took) }
                    answered.update { $0 + 1 }
                    usleep(1_000)
                }
            }
            asker.start()
            usleep(50_000)
            let before = answered.value
            let started = Measure.now()
            // The answer lists every todo touched (tens of MB): timed to its last byte, not parsed.
            let answer = try actor.call(requestLine(id: 1, method, [:]))
            let took = Measure.now() - started
            let during = answered.value - before
            stop.set(true)
            while asker.isExecuting { usleep(1_000) }
            if let message = failure.value { throw BenchError(message) }
            if answer.count < 1 << 20, try parse(answer, what: method)["result"] == nil { // an error is short
                throw BenchError("\(method) failed: \(String(decoding: answer.prefix(300), as: UTF8.self))")
            }
            let status = try actor.rpc(Method.daemonStatus.name)
            guard status["result"]?["open"]?.intValue == Int64(open) else {
                throw BenchError(
                    "after \(method) daemon.status says \(status["result"]?["open"]?.intValue ?? -1) open, expected \(open)"
                )
            }
            let verb = method == Method.storeUndo.name ? "undo" : "redo"
            print(
                "  \(verb) of a \(label)-todo import: \(formatSeconds(took)); other client's todo.get: worst \(formatSeconds(worst.value)), "
                    + "\(during) answered meanwhile")
            Summary.add(
                "Undo: \(verb) of a \(label)-todo import", value: formatSeconds(took),
                peer: "todo.get worst " + formatSeconds(worst.value))
        }
    }
}

/// A value shared between the bench's threads.
private final class Locked<T>: @unchecked Sendable {
    // @unchecked: `stored` is touched only under `lock`.
    private let lock = Mutex(())
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T { lock.withLock { _ in stored } }
    func set(_ value: T) { lock.withLock { _ in stored = value } }
    func update(_ body: (T) -> T) { lock.withLock { _ in stored = body(stored) } }
}
