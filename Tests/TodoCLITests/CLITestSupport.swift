import Foundation
import TodoCore
import TodoProtocol
import TodoRPC
import TodoTime

@testable import TodoCLI

/// An RPCTransport that records calls and answers from a handler (canned JSON by default).
final class FakeTransport: RPCTransport {
    typealias Handler = (String, JSONObject) throws(ClientError) -> JSON

    private(set) var calls: [(method: String, params: JSONObject)] = []
    var handler: Handler
    /// Events handed to `watch`, in order.
    var events: [JSON] = []
    private(set) var watchParams: JSONObject?

    init(handler: @escaping Handler = FakeTransport.canned) { self.handler = handler }

    func call(_ method: TodoProtocol.Method, _ params: JSONObject) throws(ClientError) -> JSON {
        calls.append((method.name, params))
        return try handler(method.name, params)
    }

    func watch(_ params: WatchParams, onEvent: (JSON) -> Bool) throws(ClientError) {
        watchParams = params.encoded
        for event in events where !onEvent(event) { return }
    }

    var methods: [String] { calls.map(\.method) }

    /// Plausible answers for every method.
    static func canned(_ method: String, _ params: JSONObject) throws(ClientError) -> JSON {
        let id = params["id"]?.intValue ?? 7
        switch method {
        case "todo.add", "todo.get", "todo.update", "todo.move", "todo.snooze":
            return Fixtures.todo(
                id: id, title: params["title"]?.stringValue ?? "Buy milk",
                due: Fixtures.now.adding(usec: 2 * 3_600_000_000))
        case "todo.complete", "todo.reopen", "todo.delete":
            return .array(
                (params["ids"]?.arrayValue ?? []).map {
                    Fixtures.todo(id: $0.intValue ?? 1, title: "T\($0.intValue ?? 1)", done: method == "todo.complete")
                })
        case "todo.list":
            return ["todos": .array([Fixtures.todo(id: 1, title: "Buy milk")]), "total": 5]
        case "category.list":
            return .array([Fixtures.category(id: 1, name: "Work", position: 1)])
        case "category.add", "category.rename", "category.delete", "category.move":
            return Fixtures.category(
                id: 1, name: params["newName"]?.stringValue ?? params["name"]?.stringValue ?? "Work",
                position: Int(params["position"]?.intValue ?? 1))
        case "reminder.list":
            return .array([Fixtures.reminder])
        case "daemon.status":
            return Fixtures.status
        case "store.export":
            return Fixtures.export
        case "store.import":
            return ["todos": 2, "categories": 1]
        default:
            throw .refused(RPCError.methodNotFound(method))
        }
    }
}

/// Sample data and a runner that captures todoctl's output.
enum Fixtures {
    /// 2026-06-01T12:00:00Z.
    static let now = Instant(rfc3339: "2026-06-01T12:00:00Z") ?? Instant(usec: 0)
    static let utc = ZoneInfo.utc

    /// A todo object as the daemon sends it (its one encoder's text, read back).
    static func json(_ todo: Todo) -> JSON { (try? JSON.parse(todo.encodedJSON)) ?? .null }

    static func todo(
        id: Int64, title: String, category: String? = nil, due: Instant? = nil, done: Bool = false,
        position: Int? = nil, notes: String? = nil
    ) -> JSON {
        json(
            Todo(
                id: id, title: title, notes: notes, category: category, due: due, remind: due,
                done: done, completed: done ? now : nil, position: position ?? Int(id),
                created: Instant(rfc3339: "2026-05-01T08:00:00.25Z") ?? now, updated: now))
    }

    static func category(id: Int64, name: String, position: Int, open: Int = 1, done: Int = 0) -> JSON {
        JSON(Category(id: id, name: name, position: position, open: open, done: done))
    }

    static let reminder: JSON = [
        "id": 3, "title": "Call mom", "category": nil, "due": "2026-06-01T09:00:00Z",
        "remind": "2026-06-01T08:45:00Z", "fired": "2026-06-01T08:45:02Z", "lateUsec": 2_000_000
    ]

    static let status: JSON = [
        "version": "0.1.0", "pid": 4242, "uptime": 7500, "database": "/home/u/.local/state/todod/todos.db",
        "open": 4, "done": 2, "nextReminder": "2026-06-01T14:00:00Z"
    ]

    static let export: JSON = [
        "format": "todod-export", "version": 1, "exported": "2026-06-01T12:00:00Z",
        "categories": ["Work"], "todos": []
    ]

    /// What one todoctl run did.
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var connectedTo: [String]

        var stdoutLines: [String] {
            stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        }
        var stderrLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
    }

    /// Runs todoctl with `arguments` against `transport`.
    static func run(
        _ arguments: [String], transport: FakeTransport = FakeTransport(),
        isTerminal: Bool = false, terminalWidth: Int? = nil,
        environment: [String: String] = ["XDG_RUNTIME_DIR": "/run/user/1000"], timeZone: ZoneInfo = utc,
        zoneName: String? = nil,
        connectError: ClientError? = nil, stdin: [UInt8] = [],
        clock: @escaping () -> Instant = { Fixtures.now }
    ) -> Result {
        var out = ""
        var err = ""
        var connected: [String] = []
        let status = CLI.main(
            arguments: arguments, environment: environment, uid: 1000, isTerminal: isTerminal,
            terminalWidth: terminalWidth, now: now, timeZone: timeZone, zoneName: zoneName,
            stdout: { out += $0 }, stderr: { err += $0 },
            connect: { (path: String) throws(ClientError) -> any RPCTransport in
                connected.append(path)
                if let connectError { throw connectError }
                return transport
            },
            readStdin: { stdin }, clock: clock)
        return Result(status: status, stdout: out, stderr: err, connectedTo: connected)
    }
}

extension JSON {
    /// The value with every object's keys sorted, for order-insensitive comparison.
    var sortedKeys: JSON {
        switch self {
        case .array(let items): return .array(items.map(\.sortedKeys))
        case .object(let o):
            var sorted = JSONObject()
            for pair in o.pairs.sorted(by: { $0.key < $1.key }) { sorted[pair.key] = pair.value.sortedKeys }
            return .object(sorted)
        default: return self
        }
    }
}
