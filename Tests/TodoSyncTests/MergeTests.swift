import Testing
import TodoCore
import TodoSync

/// The merge rules of SPEC §9 one by one, and the VTODO conversion's stability (pure, no I/O).
@Suite struct MergeTests {
    static let t0 = Instant(seconds: 1_790_000_000)
    static func item(
        _ title: String = "牛乳を買う", updated: Int64 = 0, _ change: (inout ExportDocument.Entry) -> Void = { _ in }
    ) -> SyncItem {
        var e = ExportDocument.Entry(
            title: title, created: t0, updated: Instant(seconds: t0.seconds + updated), uid: "u-1")
        change(&e)
        return SyncItem(entry: e, sortOrder: 3)
    }

    @Test func differentFieldsChangedOnEachSideAreBothKept() {
        let base = Self.item()
        let local = Self.item(updated: 10) { $0.title = "オーツミルクを買う" }
        let remote = Self.item(updated: 20) {
            $0.notes = "2 本"
            $0.priority = .high
        }
        let out = ThreeWayMerge.merge(base: base, local: local, remote: remote)
        #expect(out.merged.entry.title == "オーツミルクを買う")
        #expect(out.merged.entry.notes == "2 本")
        #expect(out.merged.entry.priority == .high)
        #expect(out.conflicts.isEmpty)
        #expect(out.merged.entry.updated == Instant(seconds: Self.t0.seconds + 20))
    }

    @Test func theSameFieldChangedOnBothSidesGoesToTheLaterLastModified() {
        let base = Self.item()
        let local = Self.item(updated: 30) { $0.title = "local" }
        let remote = Self.item(updated: 20) {
            $0.title = "remote"
            $0.notes = "n"
        }
        let out = ThreeWayMerge.merge(base: base, local: local, remote: remote)
        #expect(out.merged.entry.title == "local")
        #expect(out.merged.entry.notes == "n")
        #expect(out.conflicts == [.title])
        #expect(out.kept == "local")

        let later = ThreeWayMerge.merge(
            base: base, local: Self.item(updated: 10) { $0.title = "local" }, remote: remote)
        #expect(later.merged.entry.title == "remote")
        #expect(later.kept == "remote")
        #expect(later.conflicts == [.title])
    }

    @Test func theSameChangeOnBothSidesIsNoConflict() {
        let base = Self.item()
        let both = Self.item(updated: 5) {
            $0.done = true
            $0.completed = Instant(seconds: Self.t0.seconds + 5)
        }
        let out = ThreeWayMerge.merge(
            base: base, local: both,
            remote: Self.item(updated: 9) {
                $0.done = true
                $0.completed = Instant(seconds: Self.t0.seconds + 5)
            })
        #expect(out.conflicts.isEmpty)
        #expect(out.merged.entry.done)
    }

    @Test func tagsMergeAsSets() {
        let base = Self.item { $0.tags = ["a", "b", "c"] }
        let local = Self.item(updated: 1) { $0.tags = ["a", "c", "家"] } // removed b, added 家
        let remote = Self.item(updated: 2) { $0.tags = ["A", "b", "x"] } // removed c, added x
        let out = ThreeWayMerge.merge(base: base, local: local, remote: remote)
        #expect(out.merged.entry.tags.map { $0.lowercased() } == ["a", "x", "家"])
        #expect(out.conflicts.isEmpty)
    }

    @Test func withoutABaseTheLaterSideWinsWholeAndTagsJoin() {
        let local = Self.item(updated: 50) {
            $0.title = "newer"
            $0.tags = ["l"]
        }
        let remote = Self.item(updated: 40) {
            $0.title = "older"
            $0.tags = ["r"]
            $0.ical = "X-KEPT:1"
        }
        let out = ThreeWayMerge.merge(base: nil, local: local, remote: remote)
        #expect(out.merged.entry.title == "newer")
        #expect(out.merged.entry.tags == ["l", "r"])
        #expect(out.merged.entry.ical == "X-KEPT:1")
        #expect(out.conflicts.isEmpty)
    }

    @Test func theDueGroupAndTheDoneGroupMoveWhole() {
        let base = Self.item {
            $0.due = Instant(seconds: Self.t0.seconds + 86_400)
            $0.zone = "Asia/Tokyo"
        }
        let local = Self.item(updated: 1) {
            $0.due = nil
            $0.zone = nil
        }
        let remote = Self.item(updated: 2) {
            $0.due = Instant(seconds: Self.t0.seconds + 86_400)
            $0.zone = "Asia/Tokyo"
            $0.title = "x"
        }
        let out = ThreeWayMerge.merge(base: base, local: local, remote: remote)
        #expect(out.merged.entry.due == nil)
        #expect(out.merged.entry.title == "x")
    }

    @Test func unknownLinesOfTheRemoteSurviveALocalEdit() {
        let codec = VTodoCodec()
        let text = vtodo(
            uid: "todoman-1", summary: "Water the plants",
            extra: ["GEO:35.68;139.69", "X-TODOMAN-FOO:bar", "SEQUENCE:4"])
        let remote = try! codec.item(Array(text.utf8)).get()
        var local = remote
        local.entry.title = "Water the bonsai"
        local.entry.updated = Instant(seconds: remote.entry.updated.seconds + 60)
        let out = ThreeWayMerge.merge(base: remote, local: local, remote: remote)
        let written = String(decoding: codec.bytes(out.merged), as: UTF8.self)
        #expect(written.contains("SUMMARY:Water the bonsai\r\n"))
        #expect(written.contains("GEO:35.68;139.69\r\n"))
        #expect(written.contains("X-TODOMAN-FOO:bar\r\n"))
        #expect(written.contains("SEQUENCE:4\r\n"))
    }

    /// Converting twice gives the same bytes, so what a round imported is not sent back.
    @Test func conversionIsStable() {
        let codec = VTodoCodec()
        var samples: [SyncItem] = [
            Self.item(),
            Self.item("Ｆｕｌｌ width 全角 and an emoji 🍵 " + String(repeating: "長い題名", count: 30), updated: 1) {
                $0.notes = "line 1\nline 2; with, commas\\and a backslash"
                $0.tags = ["家", "errand"]
                $0.category = "買い物"
                $0.priority = .medium
                $0.due = Instant(usec: Self.t0.usec + 3_600_000_123)
                $0.remind = Instant(usec: Self.t0.usec + 2_700_000_000)
                $0.zone = "Asia/Tokyo"
                $0.recurrence = TodoRecurrence(rule: "FREQ=WEEKLY;BYDAY=TU", from: .completion)
                $0.ical = "GEO:1;2\nX-OTHER;X-P=1:v"
            },
            Self.item("done", updated: 2) {
                $0.done = true
                $0.completed = Instant(usec: Self.t0.usec + 1_500_000)
            }
        ]
        samples[0].sortOrder = nil
        for sample in samples {
            let once = codec.bytes(codec.canonical(sample))
            let twice = codec.bytes(try! codec.item(once).get())
            #expect(once == twice)
            #expect(codec.canonical(codec.canonical(sample)) == codec.canonical(sample))
        }
        #expect(!String(decoding: codec.bytes(samples[0]), as: UTF8.self).contains("X-APPLE-SORT-ORDER"))
        #expect(String(decoding: codec.bytes(samples[1]), as: UTF8.self).contains("X-APPLE-SORT-ORDER:3\r\n"))
    }

    @Test func sameContentIgnoresTimestampsAndOrderOnly() {
        let a = Self.item(updated: 1)
        var b = Self.item(updated: 99)
        b.sortOrder = 7
        #expect(ThreeWayMerge.sameContent(a, b))
        #expect(!ThreeWayMerge.sameContent(a, Self.item { $0.tags = ["x"] }))
    }
}

extension MergeTests {
    /// An all-day todo of a machine in Tokyo read by one in UTC is still due at the start of its
    /// day in Tokyo (the store's form), with its reminder the same distance before.
    @Test func anAllDayTodoKeepsItsDayInItsOwnZone() throws {
        let tokyoMidnight = try #require(Instant(rfc3339: "2026-12-24T15:00:00Z")) // 2026-12-25 00:00 in Tokyo
        let item = Self.item {
            $0.due = tokyoMidnight
            $0.allDay = true
            $0.zone = "Asia/Tokyo"
            $0.remind = Instant(usec: tokyoMidnight.usec + 9 * 3_600_000_000)
        }
        let utcReader = VTodoCodec()
        let text = String(decoding: utcReader.bytes(item), as: UTF8.self)
        #expect(text.contains("DUE;VALUE=DATE:20261225\r\n"))
        let back = try utcReader.item(Array(text.utf8)).get()
        #expect(back.entry.due == tokyoMidnight)
        #expect(back.entry.remind == Instant(usec: tokyoMidnight.usec + 9 * 3_600_000_000))
        #expect(utcReader.bytes(back) == utcReader.bytes(utcReader.canonical(item)))
    }
}

/// The alarms merge by uid (issue 35): each side's additions, removals and acknowledgements
/// survive the other's, and `remind` follows the merged list.
extension MergeTests {
    static let due = Instant(seconds: t0.seconds + 86_400)

    static func withAlarms(updated: Int64 = 0, _ alarms: [Alarm]) -> SyncItem {
        item(updated: updated) {
            $0.due = Self.due
            $0.alarms = alarms
            ($0.remind, $0.reminded) = Alarm.reminder(alarms, due: Self.due, start: nil)
        }
    }

    static let hourBefore = Alarm(uid: "hour-before", trigger: .due(-3_600_000_000))
    static let atDue = Alarm(uid: "at-due", trigger: .due(0), repeatCount: 6, intervalUsec: 600_000_000)

    /// The phone adds an alarm while here another is acknowledged: both changes survive, in one
    /// VTODO, with no conflict.
    @Test func anAlarmAddedThereAndOneAcknowledgedHereBothSurvive() throws {
        let base = Self.withAlarms([Self.hourBefore, Self.atDue])
        var acknowledged = Self.atDue
        acknowledged.acknowledged = Instant(seconds: Self.due.seconds + 60)
        let local = Self.withAlarms(updated: 10, [Self.hourBefore, acknowledged])
        let added = Alarm(uid: "phone", trigger: .at(Instant(seconds: Self.due.seconds - 86_400)))
        let remote = Self.withAlarms(updated: 20, [Self.hourBefore, Self.atDue, added])
        let out = ThreeWayMerge.merge(base: base, local: local, remote: remote)
        #expect(out.conflicts.isEmpty)
        #expect(out.merged.entry.alarms == [Self.hourBefore, acknowledged, added])
        // The next firing over the merged list: the phone's, a day before.
        #expect(out.merged.entry.remind == added.triggerInstant(due: Self.due, start: nil))
        #expect(out.merged.entry.reminded == nil)
        // Written and read back as a VTODO: three VALARMs, the acknowledgement kept.
        let codec = VTodoCodec()
        let written = String(decoding: codec.bytes(out.merged), as: UTF8.self)
        #expect(written.split(separator: "\r\n").filter { $0 == "BEGIN:VALARM" }.count == 3, "\(written)")
        let read = try codec.item(Array(written.utf8)).get()
        #expect(read.entry.alarms?.map(\.uid) == ["hour-before", "at-due", "phone"])
        #expect(read.entry.alarms?[1].acknowledged == acknowledged.acknowledged)
        // The same round the other way round (the phone's change the later one): the same list.
        let swapped = ThreeWayMerge.merge(
            base: base, local: Self.withAlarms(updated: 30, [Self.hourBefore, acknowledged]), remote: remote)
        #expect(Set(swapped.merged.entry.alarms?.map(\.uid) ?? []) == ["hour-before", "at-due", "phone"])
        #expect(swapped.merged.entry.alarms?.first { $0.uid == "at-due" }?.acknowledged == acknowledged.acknowledged)
    }

    /// Without a base (a resync after lost state) the alarms of both sides are joined, as tags
    /// are: each side's own kept, one both hold merged (the later acknowledgement), one that
    /// fires as another under a different uid once; `remind` follows the joined list.
    @Test func withoutABaseTheAlarmsOfBothSidesAreJoined() {
        var acknowledged = Self.atDue
        acknowledged.acknowledged = Instant(seconds: Self.due.seconds + 60)
        let phone = Alarm(uid: "phone", trigger: .at(Instant(seconds: Self.due.seconds - 86_400)))
        let twin = Alarm(uid: "made-elsewhere", trigger: .due(-3_600_000_000))
        let local = Self.withAlarms(updated: 10, [Self.hourBefore, acknowledged])
        let remote = Self.withAlarms(updated: 20, [Self.atDue, phone, twin])
        let out = ThreeWayMerge.merge(base: nil, local: local, remote: remote)
        #expect(out.conflicts.isEmpty && out.kept == "remote")
        let alarms = out.merged.entry.alarms ?? []
        #expect(alarms.map(\.uid) == ["at-due", "phone", "made-elsewhere"], "\(alarms.map(\.uid))")
        #expect(alarms[0].acknowledged == acknowledged.acknowledged)
        #expect(out.merged.entry.remind == phone.triggerInstant(due: Self.due, start: nil))
        // Neither side with an alarm: nothing to join, the later side's reminder as it is.
        let plain = ThreeWayMerge.merge(base: nil, local: Self.item(updated: 5), remote: Self.item(updated: 6))
        #expect(plain.merged.entry.alarms == nil || plain.merged.entry.alarms == [])
    }

    /// One removed on either side is removed; one changed on both goes to the later side (a
    /// conflict, reported); of two acknowledgements the later is kept, whichever side is later.
    @Test func alarmsRemovedChangedAndAcknowledgedOnBothSides() {
        let third = Alarm(uid: "third", trigger: .due(-86_400_000_000))
        let base = Self.withAlarms([Self.hourBefore, Self.atDue, third])
        var localAtDue = Self.atDue
        localAtDue.acknowledged = Instant(seconds: Self.due.seconds + 1_200)
        var localHour = Self.hourBefore
        localHour.trigger = .due(-1_800_000_000)
        var remoteAtDue = Self.atDue
        remoteAtDue.acknowledged = Instant(seconds: Self.due.seconds + 60)
        remoteAtDue.snoozedUntil = Instant(seconds: Self.due.seconds + 900)
        var remoteHour = Self.hourBefore
        remoteHour.trigger = .due(-7_200_000_000)
        // Here: the hour before made 30 minutes, at-due acknowledged at 20 past; there: third
        // removed, the hour before made two hours, at-due acknowledged at 1 past and snoozed.
        let local = Self.withAlarms(updated: 10, [localHour, localAtDue, third])
        let remote = Self.withAlarms(updated: 20, [remoteHour, remoteAtDue])
        let out = ThreeWayMerge.merge(base: base, local: local, remote: remote)
        #expect(out.conflicts == [.alarms])
        #expect(out.kept == "remote")
        let merged = out.merged.entry.alarms ?? []
        #expect(merged.map(\.uid) == ["hour-before", "at-due"])
        #expect(merged[0].trigger == .due(-7_200_000_000))
        // The later acknowledgement (here's) wins, though the remote side is the later one.
        #expect(merged[1].acknowledged == localAtDue.acknowledged && merged[1].snoozedUntil == nil)
        #expect(out.merged.entry.remind == Instant(seconds: Self.due.seconds - 7_200))
    }
}
