import Testing
import TodoProtocol

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
        members.append(("title", "late")) // known, but past the first 64 members
        var object = JSONObject()
        for (key, value) in members { object[key] = value }
        var params = Params(object)
        #expect(try params.int("id") == 1)
        #expect(try params.string("title") == "late")
        #expect(throws: RPCError.invalidParams("extra0", "is not a parameter of this method")) { try params.finish() }
    }
}
