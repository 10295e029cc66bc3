import Testing
import TodoProtocol

@Suite struct LineFramerTests {
    private func lines(_ input: [UInt8], chunk: Int, max: Int = 16) -> [LineFramer.Frame] {
        var framer = LineFramer(maxLineLength: max)
        var out: [LineFramer.Frame] = []
        var i = 0
        while i < input.count {
            framer.append(input[i..<min(i + chunk, input.count)])
            i += chunk
            while let frame = framer.next() {
                out.append(frame)
                if frame == .tooLong { return out }
            }
        }
        return out
    }

    /// The same bytes give the same lines whether fed one by one, in odd chunks, or at once.
    @Test(arguments: [1, 2, 3, 7, 1000])
    func dripFedOrBulkGivesTheSameLines(chunk: Int) {
        let input = Array("a\nbb\r\n\nccc\n日本語\npartial".utf8)
        let expected: [LineFramer.Frame] = [.line(Array("a".utf8)), .line(Array("bb".utf8)), .line([]),
                                            .line(Array("ccc".utf8)), .line(Array("日本語".utf8))]
        #expect(lines(input, chunk: chunk) == expected)
    }

    @Test(arguments: [1, 5, 100])
    func aLineAtTheLimitPassesAndOnePastItFails(chunk: Int) {
        let atLimit = [UInt8](repeating: 0x61, count: 16) + [0x0A]
        #expect(lines(atLimit, chunk: chunk) == [.line([UInt8](repeating: 0x61, count: 16))])
        let past = [UInt8](repeating: 0x61, count: 17) + [0x0A, 0x62, 0x0A]
        #expect(lines(past, chunk: chunk) == [.tooLong])
        // Without a newline at all, the framer notices as soon as the limit is passed.
        #expect(lines([UInt8](repeating: 0x61, count: 40), chunk: chunk) == [.tooLong])
    }

    @Test func overflowIsFinal() {
        var framer = LineFramer(maxLineLength: 4)
        framer.append(Array("toolong\nok\n".utf8))
        #expect(framer.next() == .tooLong)
        framer.append(Array("ok\n".utf8))
        #expect(framer.next() == .tooLong)
    }
}

@Suite struct JSONTests {
    @Test func roundTripsUnicodeAndEscapes() throws {
        let value: JSON = ["title": "牛乳を買う 🍣 \"quoted\" \\ \n\t\u{1}", "n": 42, "neg": -7, "f": .double(1.5),
                           "ok": true, "none": nil, "list": [1, "two", [:]]]
        let text = value.serialized()
        #expect(!text.contains("\n"))
        #expect(text.contains("牛乳を買う 🍣"))
        #expect(try JSON.parse(text) == value)
        #expect(try JSON.parse("\"\\ud83c\\udf63\\u00e9\"") == "🍣é")
    }

    @Test(arguments: [
        "", "{", "{\"a\":1,}", "[1,]", "01", "1.", "-", "NaN", "{\"a\" 1}", "\"\\x\"", "\"\\ud83c\"", "tru",
        "{\"a\":1}{", "\"a\u{1}\"", "{\"a\":1,\"a\":2}", "1e999",
    ])
    func rejectsMalformedText(text: String) {
        #expect(throws: JSONParseError.self) { try JSON.parse(text) }
    }

    @Test func rejectsInvalidUTF8AndDeepNesting() {
        #expect(throws: JSONParseError.self) { try JSON.parse([0x22, 0xFF, 0x22]) }
        #expect(throws: JSONParseError.self) { try JSON.parse(String(repeating: "[", count: 65) + String(repeating: "]", count: 65)) }
        #expect((try? JSON.parse(String(repeating: "[", count: 64) + String(repeating: "]", count: 64))) != nil)
    }

    @Test func keepsIntegersExact() throws {
        #expect(try JSON.parse("9223372036854775807") == .int(Int64.max))
        #expect(try JSON.parse("-9223372036854775808") == .int(Int64.min))
        #expect(try JSON.parse("9223372036854775808") == .double(9223372036854775808))
        for n: Int64 in [0, 7, -1, 10, -10, 1_000_000, Int64.max, Int64.min] {
            #expect(JSON.int(n).serialized() == String(n))
        }
    }

    /// The exact text written: escapes only where JSON needs them, everything else as is.
    @Test func writesStringsWithTheFewEscapesJSONNeeds() {
        #expect(JSON.string("牛乳を買う 🍣").serialized() == "\"牛乳を買う 🍣\"")
        #expect(JSON.string("a\"b\\c\nd\re\tf\u{1}g\u{1F}h\u{7F}i/").serialized()
                == #""a\"b\\c\nd\re\tf\u0001g\u001fh\u007fi/""#)
        #expect(JSON.string("").serialized() == "\"\"")
        #expect(JSON.object(["キー": "値", "k": .null, "b": false]).serialized() == #"{"キー":"値","k":null,"b":false}"#)
    }

    /// Plain ASCII strings take a fast path when parsed; the others are validated as UTF-8.
    @Test func parsesASCIIAndOtherStringsAlike() throws {
        #expect(try JSON.parse(#"{"method":"todo.get","ja":"予定","mixed":"a😀b"}"#)
                == ["method": "todo.get", "ja": "予定", "mixed": "a😀b"])
        #expect(throws: JSONParseError.self) { try JSON.parse([0x22, 0x61, 0xC3, 0x22]) }  // truncated sequence
    }
}

@Suite struct RequestDecodingTests {
    @Test func decodesRequestsAndNotifications() throws {
        let request = try RPCRequest.decode(Array("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"todo.get\",\"params\":{\"id\":1}}".utf8)).get()
        #expect(request.id == 3 && request.method == "todo.get" && request.params["id"] == 1)
        let notification = try RPCRequest.decode(Array("{\"jsonrpc\":\"2.0\",\"method\":\"todo.list\"}".utf8)).get()
        #expect(notification.id == nil)
    }

    @Test(arguments: [
        ("nope", -32700), ("[]", -32600), ("3", -32600), ("{\"jsonrpc\":\"2.0\",\"id\":1}", -32600),
        ("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"x\"}", -32600), ("{\"id\":1,\"method\":\"x\"}", -32600),
        ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":[1]}", -32602),
        ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"extra\":1}", -32600),
    ])
    func refusesBadRequests(text: String, code: Int) {
        guard case .failure(let failure) = RPCRequest.decode(Array(text.utf8)) else {
            Issue.record("accepted \(text)")
            return
        }
        #expect(failure.error.code == code)
    }
}

@Suite struct SocketPathTests {
    @Test func resolvesFlagsThenTheEnvironmentThenDefaults() {
        #expect(SocketPaths.socket(flag: "/x", system: true, environment: ["TODOD_SOCKET": "/y"], uid: 1000) == "/x")
        #expect(SocketPaths.socket(flag: nil, system: true, environment: ["TODOD_SOCKET": "/y"], uid: 1000) == "/run/todod/todod.sock")
        #expect(SocketPaths.socket(flag: nil, system: false, environment: ["TODOD_SOCKET": "/y"], uid: 0) == "/y")
        #expect(SocketPaths.socket(flag: nil, system: true, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], uid: 1000) == "/run/todod/todod.sock")
        #expect(SocketPaths.socket(flag: nil, system: false, environment: [:], uid: 0) == "/run/todod/todod.sock")
        #expect(SocketPaths.socket(flag: nil, system: false, environment: ["XDG_RUNTIME_DIR": "/run/user/0"], uid: 0) == "/run/user/0/todod/todod.sock")
        #expect(SocketPaths.socket(flag: nil, system: false, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], uid: 1000) == "/run/user/1000/todod/todod.sock")
        #expect(SocketPaths.database(flag: nil, environment: ["STATE_DIRECTORY": "/var/lib/todod"], uid: 0, home: "/root") == "/var/lib/todod/todos.db")
        #expect(SocketPaths.database(flag: nil, environment: [:], uid: 0, home: "/root") == "/var/lib/todod/todos.db")
        #expect(SocketPaths.database(flag: nil, environment: [:], uid: 1000, home: "/home/a") == "/home/a/.local/state/todod/todos.db")
        #expect(SocketPaths.database(flag: nil, environment: ["XDG_STATE_HOME": "/s"], uid: 1000, home: "/home/a") == "/s/todod/todos.db")
        #expect(SocketPaths.database(flag: nil, environment: ["TODOD_DB": "/d.db", "STATE_DIRECTORY": "/x"], uid: 1000, home: "/h") == "/d.db")
    }
}

/// Params refuse any member the method never read, naming the first such member.
@Suite struct ParamsTests {
    @Test func aMemberNobodyReadIsRefused() throws {
        var params = Params(["title": "牛乳", "titel": "typo", "notes": "x"])
        #expect(try params.string("title") == "牛乳")
        #expect(try params.optionalString("notes") == "x")
        #expect(throws: RPCError.invalidParams("titel", "is not a parameter of this method")) { try params.finish() }

        var complete = Params(["id": 3])
        #expect(try complete.int("id") == 3)
        try complete.finish()
        try Params(JSONObject()).finish()
    }

    @Test func theFirstUnknownMemberIsNamedHoweverManyThereAre() throws {
        var members: [(String, JSON)] = (0..<70).map { ("extra\($0)", .int(Int64($0))) }
        members.insert(("id", 1), at: 0)
        members.append(("title", "late"))  // known, but past the first 64 members
        var object = JSONObject()
        for (key, value) in members { object[key] = value }
        var params = Params(object)
        #expect(try params.int("id") == 1)
        #expect(try params.string("title") == "late")
        #expect(throws: RPCError.invalidParams("extra0", "is not a parameter of this method")) { try params.finish() }
    }
}
