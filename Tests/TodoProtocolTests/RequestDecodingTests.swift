import Testing
import TodoCore
import TodoProtocol

@Suite struct RequestDecodingTests {
    @Test func decodesRequestsAndNotifications() throws {
        let request = try RPCRequest.decode(
            Array("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"todo.get\",\"params\":{\"id\":1}}".utf8)
        ).get()
        #expect(request.id == 3 && request.method == "todo.get" && request.params["id"] == 1)
        let notification = try RPCRequest.decode(Array("{\"jsonrpc\":\"2.0\",\"method\":\"todo.list\"}".utf8)).get()
        #expect(notification.id == nil)
    }

    @Test(arguments: [
        ("nope", -32700), ("[]", -32600), ("3", -32600), ("{\"jsonrpc\":\"2.0\",\"id\":1}", -32600),
        ("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"x\"}", -32600), ("{\"id\":1,\"method\":\"x\"}", -32600),
        ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":[1]}", -32602),
        ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"extra\":1}", -32600)
    ])
    func refusesBadRequests(text: String, code: Int) {
        guard case .failure(let failure) = RPCRequest.decode(Array(text.utf8)) else {
            Issue.record("accepted \(text)")
            return
        }
        #expect(failure.error.code == code)
    }

    // MARK: The scanner (the decoder's hot path) against the tree decoder

    /// Lines near the edge of what `RequestScanner` reads: each must decode exactly as the tree
    /// decoder decodes it (the same request, or the same error and id).
    static let edgeLines: [String] = [
        #"{"jsonrpc":"2.0","id":7,"method":"todo.get","params":{"id":1}}"#,
        #" {"method":"todo.get" , "params":{ "id" : 1 },"jsonrpc":"2.0","id":"abc"}\#t"#,
        #"{"jsonrpc":"2.0","id":null,"method":"todo.get","params":{"id":1}}"#,
        #"{"jsonrpc":"2.0","method":"todo.list"}"#, #"{"jsonrpc":"2.0","method":"todo.list","params":{}}"#,
        #"{"jsonrpc":"2.0","id":-0,"method":"x"}"#, #"{"jsonrpc":"2.0","id":007,"method":"x"}"#,
        #"{"jsonrpc":"2.0","id":1.0,"method":"x"}"#, #"{"jsonrpc":"2.0","id":1e2,"method":"x"}"#,
        #"{"jsonrpc":"2.0","id":123456789012345678,"method":"x"}"#,
        #"{"jsonrpc":"2.0","id":9223372036854775807,"method":"x"}"#,
        #"{"jsonrpc":"2.0","id":9223372036854775808,"method":"x"}"#,
        #"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"x"}"#,
        #"{"jsonrpc":"2.0","id":true,"method":"x"}"#, #"{"jsonrpc":"2.0","id":[1],"method":"x"}"#,
        #"{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}"#, #"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"x"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"x","method":"y"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"x","params":{},"params":{}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"todo.get","params":{"id":1,"id":2}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"todo.get","params":{"id":1,"i\u0064":2}}"#,
        #"{"jsonrpc":"2.\u0030","id":1,"method":"x"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"todo\u002eget","params":{"id":1}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"x","extra":1}"#, #"{"jsonrpc":"2.0","id":1,"metho\u0064":"x"}"#,
        #"{"jsonrpc":"1.0","id":1,"method":"x"}"#, #"{"jsonrpc":2.0,"id":1,"method":"x"}"#, #"{"id":1,"method":"x"}"#,
        #"{"jsonrpc":"2.0","id":1}"#, #"{"jsonrpc":"2.0","id":1,"method":3}"#,
        #"{"jsonrpc":"2.0","id":1,"method":null}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}"#, #"{"jsonrpc":"2.0","id":1,"method":"x","params":null}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"x",}"#, #"{"jsonrpc":"2.0","id":1,"method":"x"} x"#,
        #"{"jsonrpc":"2.0","id":1,"method":"x"}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"x""#, #"{"jsonrpc":"2.0","id":1,"method":"x"#, #"{"#, #"}"#, "", "[]", "3",
        #""a""#,
        #"{"jsonrpc":"2.0","id":1,"method":"todo.add","params":{"title":"牛乳を買う","tags":["a","b"],"due":null,"top":true}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"todo.add","params":{"title":"a\"b"}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"todo.add","params":{"title":"tab\there"}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"todo.complete","params":{"ids":[1,2,3],"stop":false}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"todo.complete","params":{"ids":[1,[2]]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"todo.complete","params":{"ids":[1,2,]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":{"b":1}}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":1.5}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":tru}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":nul}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":1x}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"x","params":{"":1}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"x","params":{"e\u0301":1,"é":2}}"#,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"e\u{301}\":1,\"é\":2}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"a\":\"\u{7F}\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"a\":\"\u{1}\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"a\":\"\u{FEFF}\"}}",
        "\u{FEFF}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}",
        #"{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"a":16,"q":17}}"#
    ]

    @Test func theScannerDecodesAsTheTreeDecoder() {
        var lines = Self.edgeLines.map { Array($0.utf8) }
        // Lines with invalid UTF-8 in a string, a key and outside strings.
        lines.append(
            Array(#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":""#.utf8) + [0xC3, 0x28] + Array(#""}}"#.utf8))
        lines.append(Array(#"{"jsonrpc":"2.0","id":1,"method":"x","params":{""#.utf8) + [0xFF] + Array(#"":1}}"#.utf8))
        lines.append(Array(#"{"jsonrpc":"2.0","id":"#.utf8) + [0xED, 0xA0, 0x80] + Array(#","method":"x"}"#.utf8))
        for line in lines { expectSameDecoding(line) }
    }

    /// The plain lines todoctl and todobench send are read by the scanner (the hot path is used).
    @Test func theScannerReadsPlainRequests() throws {
        let get = Array(#"{"jsonrpc":"2.0","method":"todo.get","params":{"id":12},"id":7}"#.utf8)
        let request = try #require(RequestScanner.scan(get))
        #expect(request.id == 7 && request.known == .todoGet && request.params == ["id": 12])
        let add = RPCMessage.line(RPCRequest(id: 3, TodoAddParams(title: "牛乳を買う", tags: ["買い物", "x"])).json).dropLast()
        #expect(RequestScanner.scan(Array(add)) != nil)
        #expect(RequestScanner.scan(Array(#"{"jsonrpc":"2.0","method":"x","params":{"t":"a\n"}}"#.utf8)) == nil)
    }

    /// Random edits of valid lines (bytes replaced, inserted, deleted, swapped for JSON's
    /// punctuation) decode the same through the scanner as through the tree.
    @Test func randomEditsDecodeAsTheTreeDecoder() {
        var random = SplitMix(seed: 0x5EED_0027)
        let bases =
            Self.edgeLines.prefix(4).map { Array($0.utf8) } + [
                Array(
                    #"{"jsonrpc":"2.0","id":1,"method":"todo.complete","params":{"ids":[1,2,3],"title":"牛乳","x":null,"y":true}}"#
                        .utf8)
            ]
        let alphabet = Array(#"{}[],:"\ 0123456789-.eEtrufalsn\#u{1}é"#.utf8) + [0x80, 0xFF, 0xC3]
        var scanned = 0
        for _ in 0..<20_000 {
            var line = bases[Int(random.next() % UInt64(bases.count))]
            for _ in 0...(random.next() % 3) {
                let at = Int(random.next() % UInt64(line.count))
                let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
                switch random.next() % 3 {
                case 0: line[at] = byte
                case 1: line.insert(byte, at: at)
                default: line.remove(at: at)
                }
                if line.isEmpty { break }
            }
            if RequestScanner.scan(line) != nil { scanned += 1 }
            expectSameDecoding(line)
        }
        #expect(scanned > 1_000, "the scanner read only \(scanned) of the edited lines")
    }

    private func expectSameDecoding(_ line: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let text = String(decoding: line, as: UTF8.self)
        switch (RPCRequest.decode(line), RPCRequest.decodeTree(line)) {
        case (.success(let a), .success(let b)):
            #expect(
                a.id == b.id && a.method == b.method && a.known == b.known && a.params == b.params, "\(text)",
                sourceLocation: sourceLocation)
        case (.failure(let a), .failure(let b)):
            #expect(a.id == b.id && a.error == b.error, "\(text)", sourceLocation: sourceLocation)
        default:
            Issue.record("decoded differently: \(text)", sourceLocation: sourceLocation)
        }
    }
}

/// SplitMix64, so a failing random run replays.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
