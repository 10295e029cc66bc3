import Foundation
import Synchronization
import TodoProtocol

/// Everything the run counts, shared by all threads behind one lock.
final class Stats: @unchecked Sendable {
    // @unchecked: every stored property is guarded by `lock`.
    private let lock = Mutex(())

    private(set) var inputs = 0
    private(set) var bytes = 0
    private(set) var itemsByKind: [Item.Kind: Int] = [:]
    private(set) var results = 0
    private(set) var events = 0
    private(set) var errorsByCode: [Int: Int] = [:]
    private(set) var invalid = 0
    private(set) var invalidSamples: [String] = []
    private(set) var canariesSent = 0
    private(set) var canariesAnswered = 0
    /// Canaries on a connection we dropped before their answer came.
    private(set) var canariesLost = 0
    private(set) var connects = 0
    private(set) var deliberateDisconnects = 0
    private(set) var expectedCloses = 0
    private(set) var unexpectedCloses = 0
    private(set) var unexpectedCloseSamples: [String] = []
    private(set) var hangs: [String] = []
    private(set) var crashes: [String] = []
    private(set) var hangChecks = 0
    private(set) var maxCheckLatency = 0.0
    private(set) var housekeepingDeleted = 0
    private(set) var stopping = false

    func withLock<T>(_ body: () -> T) -> T { lock.withLock { _ in body() } }

    func sent(_ item: Item) {
        lock.withLock { _ in
            inputs += item.inputs
            bytes += item.bytes.count
            itemsByKind[item.kind, default: 0] += item.inputs
            if item.canary != nil { canariesSent += 1 }
        }
    }

    func sentBytes(_ n: Int) { lock.withLock { _ in bytes += n } }

    func answer(_ outcome: Outcome) {
        lock.withLock { _ in
            switch outcome {
            case .result: results += 1
            case .error(let code): errorsByCode[code, default: 0] += 1
            case .event: events += 1
            }
        }
    }

    func invalidLine(_ reason: String, _ line: ArraySlice<UInt8>) {
        lock.withLock { _ in
            invalid += 1
            if invalidSamples.count < 10 {
                let text = String(decoding: line.prefix(300), as: UTF8.self)
                invalidSamples.append("\(reason): \(text)\(line.count > 300 ? "… (\(line.count) bytes)" : "")")
            }
        }
    }

    func canariesAbandoned(_ n: Int) { lock.withLock { _ in canariesLost += n } }
    func canarySent() { lock.withLock { _ in canariesSent += 1 } }
    func canaryAnswered() { lock.withLock { _ in canariesAnswered += 1 } }
    func connected() { lock.withLock { _ in connects += 1 } }
    func disconnected(deliberately: Bool) {
        lock.withLock { _ in if deliberately { deliberateDisconnects += 1 } else { expectedCloses += 1 } }
    }

    func unexpectedClose(_ what: String) {
        lock.withLock { _ in
            unexpectedCloses += 1
            if unexpectedCloseSamples.count < 10 { unexpectedCloseSamples.append(what) }
        }
    }

    func hang(_ what: String) {
        lock.withLock { _ in
            hangs.append(what)
            stopping = true
        }
    }
    func crash(_ what: String) {
        lock.withLock { _ in
            crashes.append(what)
            stopping = true
        }
    }
    func check(latency: Double) {
        lock.withLock { _ in
            hangChecks += 1
            maxCheckLatency = max(maxCheckLatency, latency)
        }
    }
    func deleted(_ n: Int) { lock.withLock { _ in housekeepingDeleted += n } }
    func stop() { lock.withLock { _ in stopping = true } }
    var isStopping: Bool { lock.withLock { _ in stopping } }
    var inputCount: Int { lock.withLock { _ in inputs } }
}

/// What one line from the daemon was.
enum Outcome {
    case result
    case error(Int)
    case event
}

/// The error codes docs/PROTOCOL.md documents.
let knownCodes: Set<Int> = [-32700, -32600, -32601, -32602, -32603, -32001, -32002, -32003, -32004, -32005]

/// Checks one line from the daemon: a JSON-RPC 2.0 response (`id` and exactly one of `result`
/// and `error`) or an `event` notification. Returns the outcome and the response id, or a reason.
func classify(_ line: ArraySlice<UInt8>) -> Result<(Outcome, JSON?), LineProblem> {
    let message: JSON
    do {
        message = try JSON.parse(line)
    } catch {
        return .failure(LineProblem("not JSON (\(error))"))
    }
    guard case .object(let o) = message else { return .failure(LineProblem("not an object")) }
    guard o["jsonrpc"] == .string("2.0") else { return .failure(LineProblem("jsonrpc is not \"2.0\"")) }
    if let method = o["method"] {
        guard method == .string("event"), o["id"] == nil, o["result"] == nil, o["error"] == nil,
            Set(o.keys) == ["jsonrpc", "method", "params"],
            case .object(let params)? = o["params"], params["type"]?.stringValue != nil
        else {
            return .failure(LineProblem("a notification that is not a well-formed event"))
        }
        return .success((.event, nil))
    }
    guard let id = o["id"] else { return .failure(LineProblem("a response without id")) }
    switch id {
    case .null, .string, .int: break
    default: return .failure(LineProblem("an id of type \(id.typeName)"))
    }
    guard Set(o.keys).isSubset(of: ["jsonrpc", "id", "result", "error"]) else {
        return .failure(LineProblem("unexpected members \(o.keys)"))
    }
    switch (o["result"], o["error"]) {
    case (_?, nil):
        return .success((.result, id))
    case (nil, let error?):
        guard case .object(let e) = error, let code = e["code"]?.intValue, e["message"]?.stringValue != nil,
            Set(e.keys).isSubset(of: ["code", "message", "data"])
        else {
            return .failure(LineProblem("a malformed error object"))
        }
        if let data = e["data"] {
            guard case .object(let d) = data, d["field"]?.stringValue != nil else {
                return .failure(LineProblem("a malformed error data"))
            }
        }
        guard knownCodes.contains(Int(code)) else { return .failure(LineProblem("an unknown error code \(code)")) }
        return .success((.error(Int(code)), id))
    default:
        return .failure(LineProblem("both or neither of result and error"))
    }
}

struct LineProblem: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
