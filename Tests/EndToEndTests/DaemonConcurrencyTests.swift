import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

@Suite(.serialized) struct DaemonConcurrencyTests {
    @Test func sixteenClientsAddingAtOnce() throws {
        let daemon = try DaemonProcess()
        let ids = LockedBox<[Int64]>([])
        let failures = LockedBox<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { client in
            do {
                let c = try daemon.client()
                for i in 0..<100 {
                    let todo = try c.result("todo.add", ["title": .string("c\(client)-\(i)")])
                    if let id = todo["id"]?.intValue { ids.mutate { $0.append(id) } }
                }
            } catch {
                failures.mutate { $0.append("\(error)") }
            }
        }
        #expect(failures.value.isEmpty)
        #expect(Set(ids.value).count == 1600)
        let list = try daemon.client().result("todo.list", ["status": "all"])
        let positions = list["todos"]?.arrayValue?.compactMap { $0["position"]?.intValue } ?? []
        #expect(positions == (1...Int64(1600)).map { $0 })
    }

    /// kill -9 while several clients write: after a restart every acknowledged todo is there.
    @Test func killNineLosesNoAcknowledgedWrite() throws {
        let dir = TemporaryDirectory("kill9")
        let daemon = try DaemonProcess(directory: dir)
        let acknowledged = LockedBox<[Int64]>([])
        let group = DispatchGroup()
        for client in 0..<4 {
            DispatchQueue.global().async(group: group) {
                guard let c = try? daemon.client() else { return }
                for i in 0..<100_000 {
                    guard let todo = try? c.result("todo.add", ["title": .string("k\(client)-\(i)")]),
                        let id = todo["id"]?.intValue
                    else { return }
                    acknowledged.mutate { $0.append(id) }
                }
            }
        }
        // Kill it mid-stream, once the clients are well under way.
        _ = eventually(timeout: 10, every: 0.01) { acknowledged.value.count >= 200 }
        daemon.stop(signal: SIGKILL)
        group.wait()
        #expect(acknowledged.value.count > 10)
        #expect(try ChildProcess.sqlite3(daemon.database, "PRAGMA integrity_check;") == "ok")
        let again = try DaemonProcess(directory: dir)
        let list = try again.client().result("todo.list", ["status": "all"])
        let stored = Set(list["todos"]?.arrayValue?.compactMap { $0["id"]?.intValue } ?? [])
        #expect(Set(acknowledged.value).isSubset(of: stored))
        let positions = list["todos"]?.arrayValue?.compactMap { $0["position"]?.intValue } ?? []
        #expect(positions == (0..<Int64(positions.count)).map { $0 + 1 })
    }
}
