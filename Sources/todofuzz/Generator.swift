import TodoProtocol

/// One thing a connection sends: a line, several lines, or a raw chunk, and what happens after.
struct Item {
    enum Kind: String, CaseIterable {
        case randomLine = "random bytes line"
        case randomChunk = "random bytes chunk"
        case valid = "valid request"
        case mutated = "mutated request"
        case numbers = "special number"
        case strings = "bad string"
        case longStrings = "long string"
        case deepNesting = "deep nesting"
        case lexical = "lexical oddity"
        case blank = "blank line"
        case burst = "pipelined burst"
        case partialDisconnect = "partial line + disconnect"
        case abruptDisconnect = "burst + abrupt disconnect"
        case watch = "watch"
        case bigExact = "1 MiB line"
        case bigOver = "line past 1 MiB"
        case bigImport = "large import"
        case canary = "canary (valid, must succeed)"
    }

    enum After {
        /// Keep the connection.
        case keep
        /// Close it without reading what is pending (and reconnect).
        case disconnect
        /// The daemon must answer -32600 and close it (a line past 1 MiB).
        case expectClose
    }

    var kind: Kind
    var bytes: [UInt8]
    /// How many inputs (lines or raw chunks) this item counts as.
    var inputs: Int = 1
    var after: After = .keep
    /// The id of the canary request inside, when this is a canary.
    var canary: String?
}

/// The seeded input generator of one connection. Depends on nothing but its seed, so
/// `--seed S` replays exactly the same items on every connection.
struct Generator {
    private var rng: Rng
    let worker: Int
    private(set) var index = 0
    private var canaries = 0

    static let maxLine = 1 << 20

    /// The most distinct keys in one generated object. The daemon's parser checks duplicate keys
    /// in quadratic time on its I/O queue (docs/FUZZING.md, finding 1): 20,000 keys stall every
    /// client for 20 s in a debug build, so the default stays below what a 5 s check tolerates.
    let wideKeys: Int

    init(seed: UInt64, worker: Int, wideKeys: Int = 50_000) {
        rng = Rng(seed: seed, worker: worker)
        self.worker = worker
        self.wideKeys = wideKeys
    }

    // MARK: - Vocabulary

    /// Every method todod serves: a new one is fuzzed as soon as it is declared (and `validParams`
    /// does not compile until it says what a correct client sends it).
    static let methods = Method.allCases.map(\.name)
    static let eventTypes = EventType.allCases.map(\.name)
    static let sortKeys = ["id", "title", "created", "updated", "due", "position", "category"]
    static let allParamNames = [
        "title", "notes", "category", "due", "remind", "top", "id", "ids", "status", "uncategorized", "overdue",
        "dueBefore", "dueAfter", "search", "sort", "limit", "offset", "position", "before", "after", "until",
        "name", "newName", "force", "since", "events", "format", "version", "exported", "categories", "todos"
    ]
    static let titles = [
        "Buy milk", "牛乳を買う", "File taxes", "x", "  padded  ", "\u{3000}ideographic space\u{3000}", "e\u{301}e\u{301}",
        "🇯🇵🇫🇷", "👩‍👩‍👧‍👦 family", "RTL \u{202E}txet", "zero\u{200B}width", "İstanbul", "ß", "Ǆ", "ﬃ", "Ω",
        "a%b_c", "quote \" backslash \\", "tab\tinside", "line\nbreak", "\u{7F}del", "\u{FEFF}bom", "\u{0}nul"
    ]
    static let categoryNames = [
        "Home", "home", "HOME", "Work", "Garden", "İ", "i", "ß", "SS", "ﬃ", "ＡＰＰＬＥ", "apple", " Home ", "", " "
    ]
    static let instants = [
        "2026-12-01T09:00:00Z", "2027-04-30T17:00:00+02:00", "9999-12-31T23:59:59Z", "2099-01-01t00:00:00.123456789Z",
        "2026-12-01 09:00:00Z", "0001-01-01T00:00:00Z", "1970-01-01T00:00:00Z", "2026-02-30T00:00:00Z",
        "2026-13-01T00:00:00Z", "2026-12-01T24:00:00Z", "2026-12-31T23:59:60Z", "10000-01-01T00:00:00Z",
        "0000-01-01T00:00:00Z", "2026-12-01T09:00:00", "2026-12-01", "tomorrow", "+2h", "", "2026-12-01T09:00:00+99:99",
        "2026-12-01T09:00:00-23:59", "2026-12-01T09:00:00.Z", "２０２６-12-01T09:00:00Z", "2026-12-01T09:00:00Z\u{0}"
    ]
    static let specialNumbers = [
        "0", "-0", "-1", "1", "1.5", "-1.5", "1.0", "1e0", "1E2", "1e-7", "-0.0", "0e0", "1e308", "-1e308", "1e309",
        "5e-324", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
        "18446744073709551615", "18446744073709551616", "123456789012345678901234567890", "2147483647", "2147483648",
        "4294967296", "9007199254740993", "9e15", "8.999999999999999e15", "100000", "100001", "10000", "10001",
        "1e5", "100000.0", "3.0000000000000001", "1.7976931348623157e308", "01", "+1", ".5", "1.", "1e", "--1",
        "0x10", "NaN", "Infinity", "-Infinity", "1_000", "１"
    ]
    /// Byte sequences that are not valid UTF-8, or escapes that are not valid JSON, or both.
    static let nastyFragments: [[UInt8]] = [
        [0x80], [0xBF], [0xC0, 0xAF], [0xC1, 0xBF], [0xE0, 0x80, 0xAF], [0xF0, 0x80, 0x80, 0xAF], [0xED, 0xA0, 0x80],
        [0xED, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80],
        [0xFC, 0x84, 0x80, 0x80, 0x80, 0x80],
        [0xFE], [0xFF], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0x00], [0x01], [0x1F], [0x7F], [0x0B], [0x0C],
        Array("\\u0000".utf8), Array("\\uD800".utf8), Array("\\uDC00".utf8), Array("\\uD800\\u0041".utf8),
        Array("\\uD800\\uD800".utf8), Array("\\uDBFF\\uDFFF".utf8), Array("\\uDFFF\\uDBFF".utf8), Array("\\uD83D".utf8),
        Array("\\u00".utf8), Array("\\u12G4".utf8), Array("\\x41".utf8), Array("\\U00000041".utf8), Array("\\".utf8),
        Array("\\'".utf8), Array("\\u001f".utf8), Array("\\u007f".utf8), Array("\\u202e".utf8), Array("\\u200b".utf8),
        Array("\\ufeff".utf8), Array("\\ufffe".utf8), Array("\\uffff".utf8), Array("\\u3000".utf8),
        Array("\\u0085".utf8),
        Array("\\u2028".utf8), [0xEF, 0xBB, 0xBF], [0xC2, 0x85], [0xE2, 0x80, 0xA8], [0x09], [0x0A], [0x0D],
        Array("\\t".utf8), Array("\\r\\n".utf8), Array("\\/".utf8), Array("\\b\\f".utf8)
    ]

    // MARK: - Items

    /// The next item of this connection's stream.
    mutating func next() -> Item {
        index += 1
        if index % 40 == 0 { return canary() }
        let roll = rng.below(10_000)
        switch roll {
        case ..<1300: return Item(kind: .randomLine, bytes: randomBytes() + [0x0A])
        case ..<1800: return Item(kind: .randomChunk, bytes: randomBytes(max: 64))
        case ..<4600: return Item(kind: .mutated, bytes: mutatedLine())
        case ..<5700: return Item(kind: .valid, bytes: validRequest(notification: rng.chance(0.15)).line)
        case ..<6200: return Item(kind: .numbers, bytes: numbersLine())
        case ..<6800: return Item(kind: .strings, bytes: badStringLine())
        case ..<6950:
            // Some long strings make a line past 1 MiB (200,000 flags of 8 bytes): those close the connection.
            let line = longStringLine()
            return Item(kind: .longStrings, bytes: line, after: line.count - 1 > Self.maxLine ? .expectClose : .keep)
        case ..<7350: return Item(kind: .deepNesting, bytes: deepNestingLine())
        case ..<7850: return Item(kind: .lexical, bytes: lexicalLine())
        case ..<8100:
            return Item(
                kind: .blank,
                bytes: Array(
                    rng.pick([
                        "\n", "   \n", "\t\n", "\r\n", " \t \r\n", "\r\r\n", "\u{0B}\n", "\u{0C}\n", "\u{A0}\n", "\n\n"
                    ]).utf8))
        case ..<9250: return burst()
        case ..<9450: return partialThenDisconnect()
        case ..<9600: return abruptDisconnect()
        case ..<9680: return Item(kind: .watch, bytes: watchLine())
        case ..<9684: return bigExact()
        case ..<9688: return bigOver()
        case ..<9689: return bigImport()
        default: return Item(kind: .mutated, bytes: mutatedLine())
        }
    }

    private mutating func canary() -> Item {
        canaries += 1
        let id = "~canary~\(worker)~\(canaries)"
        var request = Request(id: .str(id))
        switch canaries % 5 {
        case 0: request.method = .str(Method.daemonStatus.name)
        case 1:
            request.method = .str(Method.todoList.name)
            request.params = .obj([("limit", .int(3)), ("status", .str("all"))])
        case 2: request.method = .str(Method.categoryList.name)
        case 3:
            request.method = .str(Method.todoAdd.name)
            request.params = .obj([("title", .str("todofuzz canary \(canaries)"))])
        default:
            request.method = .str(Method.todoList.name)
            request.params = .obj([("search", .str("canary")), ("limit", .int(1))])
        }
        // The leading newline ends whatever partial line came before, so the canary is a line of its own.
        return Item(kind: .canary, bytes: [0x0A] + request.line, canary: id)
    }

    private mutating func randomBytes(max: Int = 0) -> [UInt8] {
        let length = max > 0 ? rng.int(1...max) : (rng.chance(0.9) ? rng.int(0...200) : rng.int(200...8000))
        var bytes = rng.bytes(length)
        if rng.chance(0.3) { // mostly printable, closer to what a parser sees
            for i in bytes.indices { bytes[i] = 0x20 + bytes[i] % 0x5F }
        }
        if max == 0 { bytes = bytes.map { $0 == 0x0A ? 0x20 : $0 } } // one line per item
        return bytes
    }

    // MARK: Valid requests

    private mutating func id() -> V {
        switch rng.below(10) {
        case 0..<5: return .int(Int64(rng.int(1...30)))
        case 5..<8: return .int(Int64(rng.int(1...3000)))
        default: return .int(Int64(rng.int(1...1_000_000)))
        }
    }

    private mutating func requestID() -> V {
        rng.chance(0.7) ? .int(Int64(rng.int(0...1_000_000))) : .str("f\(rng.int(0...99999))")
    }

    private mutating func title() -> String { rng.chance(0.5) ? rng.pick(Self.titles) : rng.word(rng.int(1...40)) }
    private mutating func category() -> String {
        rng.chance(0.7) ? rng.pick(Self.categoryNames) : "c" + rng.word(rng.int(1...8))
    }
    private mutating func instant() -> V { rng.chance(0.85) ? .str(rng.pick(Self.instants)) : .str(futureInstant()) }
    private mutating func futureInstant() -> String {
        let year = rng.int(2027...9999)
        let month = rng.int(1...12)
        let day = rng.int(1...28)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(rng.int(0...23))):\(two(rng.int(0...59))):00Z"
    }
    private mutating func orNull(_ v: V) -> V { rng.chance(0.15) ? .null : v }

    private mutating func ids() -> V {
        .arr((0..<rng.int(1...5)).map { _ in id() })
    }

    private mutating func exportDocument(todos: Int) -> V {
        var entries: [V] = []
        for _ in 0..<todos {
            var e: [(String, V)] = [("title", .str(title())), ("created", .str("2026-01-02T03:04:05Z"))]
            if rng.chance(0.3) { e.append(("category", .str(category()))) }
            if rng.chance(0.3) { e.append(("due", instant())) }
            if rng.chance(0.2) { e.append(("done", .bool(rng.chance(0.5)))) }
            if rng.chance(0.1) { e.append(("id", .int(Int64(rng.int(1...100))))) }
            entries.append(.obj(e))
        }
        var doc: [(String, V)] = [
            ("format", .str("todod-export")), ("version", .int(1)),
            ("categories", .arr((0..<rng.int(0...2)).map { _ in .str(category()) })), ("todos", .arr(entries))
        ]
        if rng.chance(0.3) { doc.append(("exported", .str("2026-11-30T04:19:59.127023Z"))) }
        if rng.chance(0.3) { doc.append(("more", .bool(rng.chance(0.7)))) } // a part of an import in parts
        return .obj(doc)
    }

    /// Params that a correct client could send for `method` (they may still be refused, for
    /// example an unknown id or an impossible date).
    private mutating func validParams(_ name: String) -> V? {
        guard let method = Method(name: name) else { return nil }
        var p: [(String, V)] = []
        switch method {
        case .todoAdd:
            p.append(("title", .str(title())))
            if rng.chance(0.3) { p.append(("notes", orNull(.str(rng.word(rng.int(0...100)))))) }
            if rng.chance(0.3) { p.append(("category", orNull(.str(category())))) }
            if rng.chance(0.3) { p.append(("due", orNull(instant()))) }
            if rng.chance(0.2) { p.append(("remind", orNull(instant()))) }
            if rng.chance(0.2) { p.append(("top", orNull(.bool(rng.chance(0.5))))) }
        case .todoGet:
            p.append(("id", id()))
        case .todoList:
            if rng.chance(0.3) { p.append(("status", .str(rng.pick(["open", "done", "all", "ALL", "closed"])))) }
            if rng.chance(0.15) { p.append(("category", .str(category()))) }
            if rng.chance(0.1) { p.append(("uncategorized", .bool(rng.chance(0.5)))) }
            if rng.chance(0.1) { p.append(("overdue", .bool(rng.chance(0.5)))) }
            if rng.chance(0.1) { p.append(("dueBefore", instant())) }
            if rng.chance(0.1) { p.append(("dueAfter", instant())) }
            if rng.chance(0.2) {
                p.append(("search", .str(rng.chance(0.5) ? rng.word(rng.int(0...6)) : rng.pick(Self.titles))))
            }
            if rng.chance(0.3) {
                p.append(
                    (
                        "sort",
                        .arr(
                            (0..<rng.int(0...3)).map { _ in
                                var s: [(String, V)] = [("key", .str(rng.pick(Self.sortKeys + ["priority", "ID"])))]
                                if rng.chance(0.5) { s.append(("descending", .bool(rng.chance(0.5)))) }
                                return .obj(s)
                            })
                    ))
            }
            if rng.chance(0.95) { p.append(("limit", .int(Int64(rng.int(0...20))))) }
            if rng.chance(0.2) { p.append(("offset", .int(Int64(rng.int(0...50))))) }
        case .todoUpdate:
            p.append(("id", id()))
            if rng.chance(0.4) { p.append(("title", .str(title()))) }
            if rng.chance(0.3) { p.append(("notes", orNull(.str(rng.word(rng.int(0...100)))))) }
            if rng.chance(0.3) { p.append(("category", orNull(.str(category())))) }
            if rng.chance(0.3) { p.append(("due", orNull(instant()))) }
            if rng.chance(0.3) { p.append(("remind", orNull(instant()))) }
        case .todoComplete, .todoReopen, .todoDelete:
            p.append(("ids", ids()))
        case .todoMove:
            p.append(("id", id()))
            switch rng.below(3) {
            case 0: p.append(("position", .int(Int64(rng.int(1...40)))))
            case 1: p.append(("before", id()))
            default: p.append(("after", id()))
            }
        case .todoSnooze:
            p.append(("id", id()))
            p.append(("until", instant()))
        case .todoAlarmAck:
            p.append(("id", id()))
            // Without an alarm: every alarm of it that fired.
            if rng.below(2) == 0 { p.append(("alarm", .str("00000000-0000-4000-8000-000000000000"))) }
        case .todoBatch:
            let ops: [V] = (0..<rng.int(1...4)).compactMap { _ in
                let name = rng.pick([Method.todoUpdate, .todoComplete, .todoReopen, .todoDelete, .todoMove, .todoSnooze]
                ).name
                guard let params = validParams(name) else { return nil }
                return .obj([("method", .str(name)), ("params", params)])
            }
            p.append(("ops", .arr(ops)))
        case .categoryAdd:
            p.append(("name", .str(category())))
        case .categoryRename:
            p.append(("name", .str(category())))
            p.append(("newName", .str(category())))
        case .categoryDelete:
            p.append(("name", .str(category())))
            if rng.chance(0.5) { p.append(("force", .bool(rng.chance(0.5)))) }
        case .categoryMove:
            p.append(("name", .str(category())))
            p.append(("position", .int(Int64(rng.int(1...10)))))
        case .reminderList:
            if rng.chance(0.5) { p.append(("since", instant())) }
            if rng.chance(0.5) { p.append(("limit", .int(Int64(rng.int(1...20))))) }
        case .storeImport:
            return exportDocument(todos: rng.int(0...3))
        case .watch:
            if rng.chance(0.6) {
                p.append(("events", .arr((0..<rng.int(0...3)).map { _ in .str(rng.pick(Self.eventTypes)) })))
            }
        case .storeUndo, .storeRedo:
            if rng.chance(0.5) { p.append(("steps", .int(Int64(rng.int(1...3))))) }
        case .storeHistory:
            if rng.chance(0.5) { p.append(("limit", .int(Int64(rng.int(1...20))))) }
        case .storeChanges:
            p.append(("since", .int(Int64(rng.int(0...200)))))
            if rng.chance(0.5) { p.append(("limit", .int(Int64(rng.int(1...50))))) }
        case .categoryList, .storeExport, .daemonStatus: // no params
            if rng.chance(0.5) { return nil }
        }
        return .obj(p)
    }

    private mutating func randomMethod() -> String {
        // `watch` and `store.export` are rarer: one subscribes the connection to every event, the
        // other returns the whole store.
        while true {
            let m = rng.pick(Self.methods)
            if m == Method.watch.name && !rng.chance(0.1) { continue }
            if m == Method.storeExport.name && !rng.chance(0.3) { continue }
            // Undo and redo may revert many changes at once: rarer still.
            if (m == Method.storeUndo.name || m == Method.storeRedo.name) && !rng.chance(0.2) { continue }
            return m
        }
    }

    private mutating func validRequest(method: String? = nil, notification: Bool = false) -> Request {
        let m = method ?? randomMethod()
        return Request(id: notification ? nil : requestID(), method: .str(m), params: validParams(m))
    }

    // MARK: Hostile values

    /// A value of a surprising type or size: type confusion.
    private mutating func confusing() -> V {
        switch rng.below(22) {
        case 0: return .null
        case 1: return .bool(true)
        case 2: return .bool(false)
        case 3: return .int(0)
        case 4: return .int(-1)
        case 5: return .str("")
        case 6: return .str(title())
        case 7: return .arr([])
        case 8: return .obj([])
        case 9: return .arr([.int(1), .str("x"), .null])
        case 10: return .obj([("a", .int(1)), ("key", .str("id"))])
        case 11, 12: return .raw(rng.pick(Self.specialNumbers))
        case 13: return .rawBytes(nested(depth: rng.int(2...80)))
        case 14: return .strBytes(nastyString())
        case 15: return .str("1")
        case 16: return .raw("1.0")
        case 17: return .arr((0..<rng.int(1...50)).map { _ in .raw(rng.pick(Self.specialNumbers)) })
        case 18:
            return .str(
                String(repeating: rng.pick(["x", "é", "🙂", " "]), count: rng.pick([200, 201, 1000, 1001, 5000])))
        case 19:
            return .raw(
                rng.chance(0.5)
                    ? "[" + Array(repeating: "1", count: rng.pick([10000, 10001])).joined(separator: ",") + "]" : "[]")
        case 20: return .arr([.obj([("key", .str(rng.pick(Self.sortKeys))), ("descending", confusingScalar())])])
        default:
            return .obj([
                ("format", .str("todod-export")), ("version", confusingScalar()), ("categories", .arr([])),
                ("todos", .arr([]))
            ])
        }
    }

    private mutating func confusingScalar() -> V {
        rng.pick([.null, .bool(true), .str("true"), .int(1), .raw("1.5"), .arr([]), .obj([])])
    }

    private mutating func nastyString() -> [UInt8] {
        var out: [UInt8] = []
        for _ in 0..<rng.int(1...4) {
            if rng.chance(0.4) { out += Array(rng.word(rng.int(0...8)).utf8) }
            out += rng.pick(Self.nastyFragments)
        }
        if rng.chance(0.4) { out += Array(rng.word(rng.int(0...8)).utf8) }
        return out
    }

    /// `depth` levels of arrays, objects or both around a scalar.
    private mutating func nested(depth: Int, closed: Bool = true) -> [UInt8] {
        let style = rng.below(3)
        var out: [UInt8] = []
        out.reserveCapacity(depth * 6 + 2)
        var closers: [UInt8] = []
        closers.reserveCapacity(depth * 2)
        for level in 0..<depth {
            if style == 0 || (style == 2 && level % 2 == 0) {
                out.append(UInt8(ascii: "["))
                closers.append(UInt8(ascii: "]"))
            } else {
                out += Array("{\"a\":".utf8)
                closers.append(UInt8(ascii: "}"))
            }
        }
        out.append(UInt8(ascii: "1"))
        if closed { out += closers.reversed() }
        return out
    }

    // MARK: Lines

    private mutating func mutatedLine() -> [UInt8] {
        var request = validRequest(notification: rng.chance(0.05))
        var bytes: [UInt8]
        for _ in 0..<rng.int(1...3) where rng.chance(0.8) { mutateStructure(&request) }
        if rng.chance(0.15) {
            // Batches and other non-object tops.
            bytes = (rng.chance(0.5) ? V.arr([request.value]) : V.arr([request.value, validRequest().value])).bytes
        } else {
            bytes = request.value.bytes
        }
        if rng.chance(0.4) { mutateBytes(&bytes) }
        bytes.append(0x0A)
        return bytes
    }

    private mutating func mutateStructure(_ r: inout Request) {
        switch rng.below(14) {
        case 0..<6: // a field of params
            guard case .obj(var pairs)? = r.params, !pairs.isEmpty else {
                r.params = .obj([(rng.pick(Self.allParamNames), confusing())])
                return
            }
            let i = rng.below(pairs.count)
            switch rng.below(7) {
            case 0, 1, 2: pairs[i].1 = confusing() // type confusion
            case 3: pairs.remove(at: i) // a missing field
            case 4: // an unknown or foreign field
                pairs.insert(
                    (
                        rng.pick(
                            Self.allParamNames + ["colour", "Title", "title ", "", "\u{0}", "__proto__", "ids\u{0}"]),
                        confusing()
                    ), at: rng.below(pairs.count + 1))
            case 5: // field swap
                let j = rng.below(pairs.count)
                let v = pairs[i].1
                pairs[i].1 = pairs[j].1
                pairs[j].1 = v
            default: // a duplicate key
                pairs.append((pairs[i].0, rng.chance(0.5) ? pairs[i].1 : confusing()))
            }
            r.params = .obj(pairs)
        case 6: r.params = rng.chance(0.5) ? confusing() : .arr([r.params ?? .null]) // params not an object
        case 7:
            r.id =
                rng.chance(0.2)
                ? nil
                : rng.pick([
                    .raw("1.5"), .raw("1e2"), .raw("-0"), .obj([]), .arr([.int(1)]), .bool(true), .str(""),
                    .int(Int64.max), .int(Int64.min), .null, .strBytes(nastyString())
                ])
        case 8: r.id = .raw(rng.pick(Self.specialNumbers))
        case 9:
            r.method = rng.pick([
                nil, .null, .int(1), .arr([.str(Method.todoAdd.name)]), .str(""), .str("TODO.ADD"), .str("todo.add "),
                .str("todo."), .str("todo.add\u{0}"), .str(rng.pick(Self.methods) + "x"), .strBytes(nastyString()),
                .str("rpc.discover"), .str("__proto__"), .str(String(repeating: "a", count: 10_000))
            ])
        case 10: r.method = .str(rng.pick(Self.methods)) // the params of one method sent to another
        case 11:
            r.jsonrpc = rng.pick([
                nil, .str("1.0"), .raw("2.0"), .raw("2"), .str("2.0 "), .str("2.0\u{0}"), .null, .str("2.00")
            ])
        case 12: r.extra.append((rng.pick(["extra", "result", "error", "Id", "params ", "jsonrpc2", ""]), confusing()))
        default: r.reversed.toggle()
        }
    }

    /// Bit flips, byte insertions and deletions, truncation, duplication.
    private mutating func mutateBytes(_ b: inout [UInt8]) {
        for _ in 0..<rng.int(1...4) {
            guard !b.isEmpty else {
                b = rng.bytes(4)
                continue
            }
            let i = rng.below(b.count)
            switch rng.below(7) {
            case 0: b[i] ^= UInt8(1) << UInt8(rng.below(8))
            case 1: b.insert(UInt8(truncatingIfNeeded: rng.next()), at: i)
            case 2: b.insert(contentsOf: rng.pick(Self.nastyFragments), at: i)
            case 3: b.removeSubrange(i..<min(b.count, i + rng.int(1...8)))
            case 4: b.removeSubrange(i...) // truncation
            case 5:
                let j = min(b.count, i + rng.int(1...16))
                b.insert(contentsOf: Array(b[i..<j]), at: j)
            default: b[i] = rng.pick(Array("{}[]\":,\\0-e.tfn ".utf8))
            }
        }
    }

    /// A request whose integer field (or id) holds 1e308, -1, Int64.min/max, 2^63, -0, 1.5 ...
    private mutating func numbersLine() -> [UInt8] {
        let n = V.raw(rng.pick(Self.specialNumbers))
        let targets: [(String, [(String, V)])] = [
            (Method.todoGet.name, [("id", n)]), (Method.todoUpdate.name, [("id", n), ("title", .str("t"))]),
            (Method.todoMove.name, [("id", n), ("position", .int(1))]),
            (Method.todoMove.name, [("id", .int(1)), ("position", n)]),
            (Method.todoMove.name, [("id", .int(1)), ("before", n)]),
            (Method.todoMove.name, [("id", .int(1)), ("after", n)]),
            (Method.categoryMove.name, [("name", .str("Home")), ("position", n)]),
            (Method.todoList.name, [("limit", n)]), (Method.todoList.name, [("offset", n), ("limit", .int(2))]),
            (Method.reminderList.name, [("limit", n)]),
            (Method.todoComplete.name, [("ids", .arr([n]))]),
            (Method.todoDelete.name, [("ids", .arr([.int(999_999), n]))]),
            (Method.todoReopen.name, [("ids", .arr([n, n]))]),
            (Method.todoSnooze.name, [("id", n), ("until", .str("2030-01-01T00:00:00Z"))]),
            (
                Method.storeImport.name,
                [("format", .str("todod-export")), ("version", n), ("categories", .arr([])), ("todos", .arr([]))]
            ),
            (Method.todoAdd.name, [("title", .str("n")), ("top", n)]),
            (Method.categoryDelete.name, [("name", .str("x")), ("force", n)])
        ]
        let (method, params) = rng.pick(targets)
        var r = Request(id: rng.chance(0.8) ? requestID() : n, method: .str(method), params: .obj(params))
        if rng.chance(0.1) { r.jsonrpc = n }
        return r.line
    }

    /// Invalid UTF-8, overlong encodings, lone surrogates, NUL raw and escaped, control characters.
    private mutating func badStringLine() -> [UInt8] {
        let s = V.strBytes(nastyString())
        let targets: [(String, String)] = [
            (Method.todoAdd.name, "title"), (Method.todoAdd.name, "notes"), (Method.todoAdd.name, "category"),
            (Method.todoAdd.name, "due"), (Method.todoUpdate.name, "title"),
            (Method.todoUpdate.name, "notes"), (Method.todoList.name, "search"), (Method.todoList.name, "category"),
            (Method.todoList.name, "status"),
            (Method.categoryAdd.name, "name"), (Method.categoryRename.name, "newName"),
            (Method.categoryDelete.name, "name"), (Method.todoSnooze.name, "until"),
            (Method.watch.name, "events"), (Method.reminderList.name, "since")
        ]
        let (method, field) = rng.pick(targets)
        var request = validRequest(method: method)
        guard case .obj(var pairs)? = request.params else { return request.line }
        let value: V = field == "events" ? .arr([s]) : s
        if let i = pairs.firstIndex(where: { $0.0 == field }) {
            pairs[i].1 = value
        } else {
            pairs.append((field, value))
        }
        request.params = .obj(pairs)
        switch rng.below(10) {
        case 0: request.method = s
        case 1: request.id = s
        case 2: request.extra.append(("k\u{0}", s))
        default: break
        }
        var bytes = request.value.bytes
        // outside strings too
        if rng.chance(0.15) { bytes.insert(rng.pick([0x00, 0xFF, 0xC0, 0x80]), at: rng.below(bytes.count + 1)) }
        if rng.chance(0.05) { bytes = [0xEF, 0xBB, 0xBF] + bytes } // a byte order mark
        return bytes + [0x0A]
    }

    /// Titles of 1000, 1001 and 100k characters; notes at and past 64 KiB; names at and past 200.
    private mutating func longStringLine() -> [UInt8] {
        func repeated(_ unit: String, _ n: Int) -> String { String(repeating: unit, count: n) }
        let unit = rng.pick(["x", "é", "e\u{301}", "🇯🇵", "牛"])
        var r: Request
        switch rng.below(9) {
        case 0:
            r = Request(
                id: requestID(), method: .str(Method.todoAdd.name),
                params: .obj([("title", .str(repeated(unit, rng.pick([999, 1000, 1001]))))]))
        case 1:
            r = Request(
                id: requestID(), method: .str(Method.todoAdd.name),
                params: .obj([("title", .str(" " + repeated(unit, 1000) + "\u{3000}"))]))
        case 2:
            r = Request(
                id: requestID(), method: .str(rng.pick([Method.todoAdd.name, Method.todoUpdate.name])),
                params: .obj([("id", .int(1)), ("title", .str(repeated(unit, 100_000)))]))
        case 3: // notes at 64 KiB, one byte past it, a multibyte character across the bound, white space only
            let notes: String
            switch rng.below(5) {
            case 0: notes = repeated("n", 65_536)
            case 1: notes = repeated("n", 65_537)
            case 2: notes = repeated("n", 65_535) + "é"
            case 3: notes = repeated("n", 65_534) + "é"
            default: notes = repeated(" ", 65_536)
            }
            r = Request(
                id: requestID(), method: .str(Method.todoAdd.name),
                params: .obj([("title", .str("long notes")), ("notes", .str(notes))]))
        case 4:
            r = Request(
                id: requestID(), method: .str(Method.todoUpdate.name),
                params: .obj([("id", id()), ("notes", .str(repeated(unit, rng.pick([16_384, 65_536, 200_000]))))]))
        case 5:
            r = Request(
                id: requestID(), method: .str(rng.pick([Method.categoryAdd.name, Method.categoryDelete.name])),
                params: .obj([("name", .str(repeated(unit, rng.pick([199, 200, 201, 10_000]))))]))
        case 6:
            r = Request(
                id: requestID(), method: .str(Method.todoList.name),
                params: .obj([("search", .str(repeated(unit, rng.pick([1000, 100_000])))), ("limit", .int(5))]))
        case 7: r = Request(id: .str(repeated("i", rng.pick([1000, 100_000]))), method: .str(Method.daemonStatus.name))
        default: // a wide object: many distinct keys (see `wideKeys`)
            r = Request(
                id: requestID(), method: .str(Method.todoAdd.name),
                params: .obj(
                    [("title", .str("many keys"))]
                        + (0..<rng.int(10...max(10, wideKeys))).map { ("k\($0)", V.int(Int64($0))) }))
        }
        return r.line
    }

    /// Arrays and objects nested 10 ... 100,000 deep: at the top, in params, as the id.
    private mutating func deepNestingLine() -> [UInt8] {
        let depth =
            rng.chance(0.8) ? rng.pick([10, 32, 62, 63, 64, 65, 66, 100, 200]) : rng.pick([1000, 10_000, 100_000])
        let closed = rng.chance(0.8)
        let nest = nested(depth: depth, closed: closed)
        switch rng.below(4) {
        case 0: return nest + [0x0A]
        case 1:
            return Request(
                id: requestID(), method: .str(Method.todoAdd.name), params: .obj([("title", .rawBytes(nest))])
            ).line
        case 2: return Request(id: .rawBytes(nest), method: .str(Method.daemonStatus.name)).line
        default: return Request(id: requestID(), method: .str(Method.todoList.name), params: .rawBytes(nest)).line
        }
    }

    /// Things a lenient parser would accept and a strict one must refuse, and other odd texts.
    private mutating func lexicalLine() -> [UInt8] {
        let id = rng.int(0...9999)
        let status = "\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"daemon.status\""
        let lines = [
            "{\(status),}", "{\(status)}/* comment */", "// comment", "{\(status)} // comment",
            "{'jsonrpc':'2.0','id':\(id),'method':'daemon.status'}",
            "{jsonrpc:\"2.0\",id:\(id),method:\"daemon.status\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":NaN,\"method\":\"daemon.status\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":Infinity,\"method\":\"daemon.status\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":\(id),\"id\":\(id + 1),\"method\":\"daemon.status\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"daemon.status\",\"method\":\"todo.list\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"todo.add\",\"params\":{\"title\":\"a\",\"title\":\"b\"}}",
            "{\(status)}{\(status)}", "{\(status)} x", "{\(status)",
            "{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"daemon.status", "[]", "{}", "null", "1",
            "\"string\"", "true", "[{\(status)}]", "[{\(status)},{\(status)}]", "\"", "\\", "}", "]", ",", ":", "-",
            "01", "1.", ".5", "1e", "1e+", "--1", "0x1F", "+1",
            "{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"daemon.status\",\"params\":{}}",
            "{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"daemon.status\",\"params\":null}",
            "{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"daemon.status\",\"params\":[]}",
            "{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"store.import\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"todo.add\",\"params\":{\"title\":\"tab\there\"}}",
            " \u{0B}{\(status)}", "\u{A0}{\(status)}", "\u{FEFF}{\(status)}", "{\(status)}\u{0}", "\u{0}",
            "{\"\":\"\"}", "{\"jsonrpc\":\"2.0\"}",
            "{\"jsonrpc\":\"2.0\",\"method\":\"daemon.status\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"daemon.status\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"daemon.status\",\"result\":1}",
            "{\"jsonrpc\":\"2.0\",\"result\":{},\"id\":\(id)}",
            "{\"jsonrpc\":\"2.0\",\"method\":\"event\",\"params\":{\"type\":\"todo.added\"}}",
            "{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"todo.get\",\"params\":{\"id\":1 }}",
            "\t{ \"jsonrpc\" : \"2.0\" , \"id\" : \(id) , \"method\" : \"daemon.status\" }\t"
        ]
        return Array(rng.pick(lines).utf8) + Array((rng.chance(0.2) ? "\r\n" : "\n").utf8)
    }

    private mutating func watchLine() -> [UInt8] {
        var r = Request(id: requestID(), method: .str(Method.watch.name))
        switch rng.below(5) {
        case 0: break
        case 1: r.params = .obj([("events", .null)])
        case 2: r.params = .obj([("events", .arr((0..<rng.int(0...4)).map { _ in .str(rng.pick(Self.eventTypes)) }))])
        case 3:
            r.params = .obj([
                ("events", .arr([.str(rng.pick(Self.eventTypes + ["todo.*", "", "TODO.ADDED"])), confusing()]))
            ])
        default: r.params = .obj([("events", confusing())])
        }
        return r.line
    }

    // MARK: Bursts and disconnects

    /// A small line for bursts: valid, mutated, lexical or random.
    private mutating func smallLine() -> [UInt8] {
        switch rng.below(10) {
        case 0..<4: return validRequest(notification: rng.chance(0.1)).line
        case 4..<7: return mutatedLine()
        case 7: return lexicalLine()
        case 8: return numbersLine()
        default: return randomBytes() + [0x0A]
        }
    }

    private mutating func burst() -> Item {
        let count = rng.chance(0.9) ? rng.int(2...32) : rng.int(33...400)
        var bytes: [UInt8] = []
        for _ in 0..<count { bytes += smallLine() }
        return Item(kind: .burst, bytes: bytes, inputs: count)
    }

    private mutating func partialThenDisconnect() -> Item {
        var bytes: [UInt8]
        switch rng.below(4) {
        case 0: bytes = randomBytes().filter { $0 != 0x0A }
        case 1: bytes = smallLine() + validRequest().value.bytes // a whole line, then half of the next one
        case 2: bytes = Array(repeating: UInt8(ascii: "["), count: rng.int(1...200_000))
        default: bytes = validRequest().value.bytes
        }
        if bytes.count > 1 { bytes.removeSubrange(rng.int(1...bytes.count - 1)...) }
        return Item(kind: .partialDisconnect, bytes: bytes, after: .disconnect)
    }

    /// Requests with large answers, then a hang-up without reading any of them.
    private mutating func abruptDisconnect() -> Item {
        let count = rng.int(1...40)
        var bytes: [UInt8] = []
        var heavy = 0
        for _ in 0..<count {
            var method = rng.pick([
                Method.storeExport.name, Method.todoList.name, Method.categoryList.name, Method.daemonStatus.name,
                Method.todoAdd.name, Method.reminderList.name, Method.todoGet.name
            ])
            // At most two whole-store answers per item: they are what costs the daemon most.
            if method == Method.storeExport.name || method == Method.todoList.name {
                heavy += 1
                if heavy > 2 { method = Method.daemonStatus.name }
            }
            var r = Request(id: requestID(), method: .str(method))
            if method == Method.todoList.name { r.params = .obj([("status", .str("all"))]) }
            if method == Method.todoAdd.name { r.params = .obj([("title", .str("abandoned \(rng.below(1000))"))]) }
            if method == Method.todoGet.name { r.params = .obj([("id", id())]) }
            bytes += r.line
        }
        return Item(kind: .abruptDisconnect, bytes: bytes, inputs: count, after: .disconnect)
    }

    // MARK: Lines at and past 1 MiB

    /// `prefix`, then `fill` bytes, then `suffix`, exactly `length` bytes in all.
    private func sized(_ length: Int, _ prefix: String, _ suffix: String, fill: UInt8) -> [UInt8] {
        let p = Array(prefix.utf8)
        let s = Array(suffix.utf8)
        return p + [UInt8](repeating: fill, count: length - p.count - s.count) + s
    }

    private mutating func bigBody(_ length: Int) -> [UInt8] {
        let id = rng.int(0...9999)
        switch rng.below(7) {
        case 0:
            return sized(
                length,
                "{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"todo.list\",\"params\":{\"limit\":1,\"search\":\"",
                "\"}}", fill: UInt8(ascii: "x"))
        case 1:
            return sized(
                length, "{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"todo.add\",\"params\":{\"title\":\"", "\"}}",
                fill: UInt8(ascii: "t"))
        case 2: return sized(length, "", "", fill: UInt8(ascii: "A"))
        case 3: return sized(length, "", "", fill: UInt8(ascii: " ")) // a blank line: ignored, no answer
        case 4: return sized(length, "", "", fill: UInt8(ascii: "["))
        case 5:
            return sized(
                length, "{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"daemon.status\"", "}", fill: UInt8(ascii: " "))
        default: // an import whose last entry is invalid: all of it is checked, nothing is kept
            let entry =
                "{\"title\":\"big import \(String(repeating: "i", count: rng.pick([10, 100, 900])))\",\"created\":\"2026-01-02T03:04:05Z\"},"
            let head =
                "{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"store.import\",\"params\":{\"format\":\"todod-export\",\"version\":1,\"categories\":[],\"todos\":["
            let tail = "{\"title\":\"\",\"created\":\"2026-01-02T03:04:05Z\"}]}}"
            var body = Array(head.utf8)
            let e = Array(entry.utf8)
            while body.count + e.count + tail.utf8.count <= length { body += e }
            let pad = length - body.count - tail.utf8.count
            body += [UInt8](repeating: UInt8(ascii: " "), count: pad) + Array(tail.utf8)
            return body
        }
    }

    /// A line of exactly 1 MiB (accepted), with LF or CRLF.
    private mutating func bigExact() -> Item {
        let crlf = rng.chance(0.3)
        return Item(kind: .bigExact, bytes: bigBody(Self.maxLine) + (crlf ? [0x0D, 0x0A] : [0x0A]))
    }

    /// A line just past 1 MiB, or far past it without a newline: -32600, then the daemon hangs up.
    private mutating func bigOver() -> Item {
        switch rng.below(4) {
        case 0: return Item(kind: .bigOver, bytes: bigBody(Self.maxLine + 1) + [0x0A], after: .expectClose)
        case 1: return Item(kind: .bigOver, bytes: bigBody(Self.maxLine + 1) + [0x0D, 0x0A], after: .expectClose)
        case 2: return Item(kind: .bigOver, bytes: bigBody(Self.maxLine + 2), after: .expectClose)
        default: return Item(kind: .bigOver, bytes: bigBody(Self.maxLine + rng.int(2...(1 << 20))), after: .expectClose)
        }
    }

    /// A valid import of a few hundred to a few thousand todos in one request.
    private mutating func bigImport() -> Item {
        Item(
            kind: .bigImport,
            bytes: Request(
                id: requestID(), method: .str(Method.storeImport.name),
                params: exportDocument(todos: rng.int(100...3000))
            ).line)
    }
}
