import Testing
import TodoCore
import TodoProtocol
import TodoSQLite

/// `RPCError` keeps the parts of a -32602 error, so naming it under a prefix never cuts text.
@Suite struct RPCErrorTests {
    @Test func aNestedErrorNamesTheFieldUnderItsPrefixOnceOrTwice() {
        let error = RPCError.invalidParams("title", "must be a string, not integer")
        let once = error.nested(under: "todos[3].")
        #expect(once == RPCError.invalidParams("todos[3].title", "must be a string, not integer"))
        #expect(once.message == "invalid params: todos[3].title must be a string, not integer")
        #expect(once.field == "todos[3].title")
        #expect(once.reason == "must be a string, not integer")
        #expect(
            once.nested(under: "parts[0].").message
                == "invalid params: parts[0].todos[3].title must be a string, not integer")
    }

    /// An error with a field but no reason (mapped from a domain error) keeps its whole message.
    @Test func aMappedDomainErrorKeepsItsMessageWhenNested() {
        let mapped = RPCError(TodoError.invalid("title", "must not be empty"))
        #expect(mapped.code == RPCError.invalidParamsCode)
        #expect(
            mapped.nested(under: "todos[1].").message
                == "invalid params: todos[1].title invalid title: must not be empty")
        #expect(mapped.nested(under: "todos[1].").field == "todos[1].title")
    }

    @Test func otherErrorsAreNotNested() {
        let storage = RPCError(TodoError.storage("storage failure: the disk is full"))
        #expect(storage.nested(under: "todos[1].") == storage)
        #expect(storage.code == RPCError.storageCode)
    }

    /// A storage error converted for a savepoint is the mapped wire error, code and words kept.
    @Test func aStorageFailureConvertsToTheWireError() {
        let failure = TodoError(
            storage: SQLiteResultCode(rawValue: 13), reason: "the disk is full (database or disk is full)")
        let wire = RPCError(failure)
        #expect(wire.code == RPCError.storageCode)
        #expect(wire.message == "storage failure: the disk is full (database or disk is full)")
    }
}
