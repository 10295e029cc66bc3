import TodoCalDAV

extension SyncGather {
    /// A server that answers a sync token it does not know as if it knew it (DAViCal: a 207
    /// listing every resource, with a new token and no deletions) would hide what was deleted.
    /// A delta that names at least half of the resources the state knows (four or more) with the
    /// ETags the state has for them, leaving out what this round created, is such an answer, or
    /// a round after many writes of our own: the calendar's listing (PROPFIND) then says which
    /// known resources are gone. Returns those, beyond the ones the delta removed.
    func wholeAnswerRemovals(
        _ changed: [RemoteVersion], _ removed: [String], _ known: [String: (uid: String, etag: String)]
    ) throws(SyncError) -> [String] {
        guard known.count >= 4 else { return [] }
        let unchanged = changed.filter { known[$0.href]?.etag == $0.etag && !handover.created.contains($0.href) }.count
        guard unchanged * 2 >= known.count else { return [] }
        let present = Set(try calDAV { () throws(CalDAVError) in try collection.versions() }.map(\.href))
        let gone = Set(removed)
        let missing = known.keys.filter { !present.contains($0) && !gone.contains($0) }
        if !missing.isEmpty {
            log(
                "\(account): the server's changes since the token left out \(missing.count) deleted resource\(missing.count == 1 ? "" : "s") (it did not know the token); the listing found them"
            )
        }
        return missing.sorted()
    }
}
