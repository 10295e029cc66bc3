import TodoProtocol

/// A response written to its connection while it is produced: `{"jsonrpc":"2.0","result":`, the
/// result's text in pieces, then `,"id":…}` and the newline. Pieces a slow reader has not taken
/// yet wait in memory up to `ClientConnection.streamLimit`, then on disk (`OutputSpool`); only a
/// reader beyond the spool budget is cut off, and the stream then stops. A long `todo.list`
/// goes out this way, so the client sees its first todos at once and the store queue is not
/// held for a slow reader.
///
/// Only for a request answered inline (`RequestExecutor.answerInline`): that runs on the I/O
/// thread while the I/O queue waits for it, so writing to the connection here is safe, and no
/// other answer of the connection can come between the pieces.
final class ResponseStream {
    private let connection: ClientConnection
    private let id: JSON
    /// Whether a piece went out: from then on the response can only be finished or abandoned.
    private(set) var started = false

    init(connection: ClientConnection, id: JSON) {
        self.connection = connection
        self.id = id
    }

    /// Sends the next piece of the result's text.
    func write(_ piece: [UInt8]) {
        if !started {
            started = true
            connection.sendPart(Array(#"{"jsonrpc":"2.0","result":"#.utf8))
        }
        connection.sendPart(piece)
    }

    /// Whether the peer is still there to read more.
    var isOpen: Bool { !connection.closed }

    /// Sends the end of the response, newline included.
    func finish() {
        var bytes = Array(#","id":"#.utf8)
        id.write(to: &bytes)
        bytes.append(contentsOf: "}\n".utf8)
        write(bytes)
    }

    /// A piece went out but the response cannot be finished (the store failed): the line can no
    /// longer be completed, so the connection is closed.
    func abandon() {
        connection.close()
    }
}
