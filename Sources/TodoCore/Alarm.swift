#if canImport(Glibc)
    import Glibc
#endif

/// One alarm of a todo (an iCalendar `VALARM`, RFC 5545 §3.6.6 and RFC 9074): when it fires,
/// how often it repeats (nagging), and whether it was acknowledged or snoozed. A todo keeps a
/// list of them (`Todo.alarms`); its `remind` is the next pending firing over all of them.
package struct Alarm: Sendable, Equatable {
    /// What the alarm fires relative to.
    package enum Trigger: Sendable, Equatable {
        /// A signed offset from the todo's due instant (`-86_400_000_000`: a day before).
        case due(Int64)
        /// A signed offset from the todo's start instant.
        case start(Int64)
        /// At an instant.
        case at(Instant)
    }

    /// Stable and unique within its todo (the `VALARM`'s `UID`).
    package var uid: String
    /// When it fires: everything but its uid and kept text.
    package var timing: Timing
    /// The alarm's `VALARM` as iCalendar text, for an alarm todod cannot act on (an e-mail, a
    /// location): kept byte for byte and never fired. Nil for the alarms todod acts on.
    package var ical: String?

    /// What decides when an alarm fires, apart from whether it acts. Plain values only: reading
    /// it from the stored text, and handing it on, copies no String and goes through no runtime
    /// value functions (a todo's answer writes its alarms from these).
    package struct Timing: Sendable, Equatable {
        package var trigger: Trigger
        /// How many more times it fires after the first (RFC 5545 `REPEAT`), `interval` apart.
        package var repeatCount = 0
        /// Microseconds between repeats (RFC 5545 `DURATION`); 0 when it does not repeat.
        package var intervalUsec: Int64 = 0
        /// When it was acknowledged (dismissed): no firing of it at or before the trigger
        /// instant is pending any more, nor its repeats (RFC 9074 `ACKNOWLEDGED`).
        package var acknowledged: Instant? = nil
        /// Snoozed: it fires again at this instant (RFC 9074's snooze alarm).
        package var snoozedUntil: Instant? = nil
    }

    package var trigger: Trigger {
        get { timing.trigger }
        set { timing.trigger = newValue }
    }
    package var repeatCount: Int {
        get { timing.repeatCount }
        set { timing.repeatCount = newValue }
    }
    package var intervalUsec: Int64 {
        get { timing.intervalUsec }
        set { timing.intervalUsec = newValue }
    }
    package var acknowledged: Instant? {
        get { timing.acknowledged }
        set { timing.acknowledged = newValue }
    }
    package var snoozedUntil: Instant? {
        get { timing.snoozedUntil }
        set { timing.snoozedUntil = newValue }
    }

    package init(
        uid: String, trigger: Trigger, repeatCount: Int = 0, intervalUsec: Int64 = 0,
        acknowledged: Instant? = nil, snoozedUntil: Instant? = nil, ical: String? = nil
    ) {
        self.uid = uid
        self.timing = Timing(
            trigger: trigger, repeatCount: repeatCount, intervalUsec: intervalUsec, acknowledged: acknowledged,
            snoozedUntil: snoozedUntil)
        self.ical = ical
    }

    /// The most alarms a todo may have, and the most repeats one may make.
    package static let maxPerTodo = 20
    package static let maxRepeats = 1000
    /// The shortest interval between repeats.
    package static let minIntervalUsec: Int64 = 1_000_000

    /// The instant its trigger names for a todo with `due` and `start`; nil when it is relative
    /// to one the todo does not have (or leaves the years 0001 to 9999).
    package func triggerInstant(due: Instant?, start: Instant?) -> Instant? {
        timing.triggerInstant(due: due, start: start)
    }

    /// Whether todod fires it (not a kept alarm of another kind).
    package var acts: Bool { ical == nil }

    /// The first of its firings strictly after `after` (every firing when nil); nil when none
    /// is left or it does not act.
    package func nextFiring(after: Instant?, due: Instant?, start: Instant?) -> Instant? {
        acts ? timing.nextFiring(after: after, due: due, start: start) : nil
    }

    /// Whether it has fired by `now` and was not acknowledged since: its trigger instant or its
    /// snooze is at or before `now`, with no acknowledgement at or after the later of them that
    /// is. What `todo.alarm.ack` without an alarm acknowledges (`todoctl dismiss`).
    package func firedUnacknowledged(by now: Instant, due: Instant?, start: Instant?) -> Bool {
        guard acts else { return false }
        var last: Instant? = nil
        if let base = triggerInstant(due: due, start: start), base <= now { last = base }
        if let snoozedUntil, snoozedUntil <= now, last.map({ snoozedUntil > $0 }) ?? true { last = snoozedUntil }
        guard let last else { return false }
        return acknowledged.map { $0 < last } ?? true
    }

    /// Whether `instant` is one of its pending firings (the trigger instant, a repeat or the
    /// snooze), not one its acknowledgement dismissed: another alarm firing at a dismissed
    /// repeat's instant is that other alarm's.
    package func fires(at instant: Instant, due: Instant?, start: Instant?) -> Bool {
        guard acts else { return false }
        if snoozedUntil == instant { return acknowledged.map { $0 < instant } ?? true }
        guard let base = triggerInstant(due: due, start: start), instant >= base else { return false }
        if let acknowledged, acknowledged >= base { return false }
        if instant == base { return true }
        guard repeatCount > 0, intervalUsec > 0 else { return false }
        let d = instant.usec - base.usec
        return d % intervalUsec == 0 && d / intervalUsec <= Int64(repeatCount)
    }

    /// The first firing over `alarms` strictly after `after`.
    package static func nextFiring(_ alarms: [Alarm], after: Instant?, due: Instant?, start: Instant?) -> Instant? {
        var best: Instant? = nil
        for alarm in alarms {
            if let t = alarm.nextFiring(after: after, due: due, start: start), best.map({ t < $0 }) ?? true { best = t }
        }
        return best
    }

    /// The `remind` and `reminded` a todo with `alarms` has as an iCalendar reader places them:
    /// the next pending firing, not fired; when every one was acknowledged, the last trigger,
    /// fired when it was acknowledged. Both nil without an alarm todod fires.
    package static func reminder(_ alarms: [Alarm], due: Instant?, start: Instant?) -> (
        remind: Instant?, reminded: Instant?
    ) {
        if let next = nextFiring(alarms, after: nil, due: due, start: start) { return (next, nil) }
        let last = alarms.filter(\.acts).compactMap { a in a.triggerInstant(due: due, start: start).map { (a, $0) } }
            .max { $0.1 < $1.1 }
        return (last?.1, last?.0.acknowledged)
    }

    /// Moves an absolute trigger by `usec` (a relative one follows its due or start by itself);
    /// nil when it would leave the years 0001 to 9999.
    package func shifted(by usec: Int64) -> Alarm? {
        var moved = self
        if case .at(let t) = trigger {
            guard let m = t.checkedAdding(usec: usec) else { return nil }
            moved.trigger = .at(m)
        }
        return moved
    }

    // MARK: - The stored text

    /// The list as the store keeps it (`todos.alarms`): one line per alarm,
    /// `UID due|start|at VALUE [repeat N USEC] [ack USEC] [snooze USEC] [ical TEXT]`, where
    /// VALUE is an offset or instant in microseconds and TEXT the kept `VALARM` with `\` and
    /// newlines escaped (`\\`, `\n`), always last. Nil for no alarms.
    package static func storedText(_ alarms: [Alarm]) -> String? {
        guard !alarms.isEmpty else { return nil }
        return alarms.map(\.storedLine).joined(separator: "\n")
    }

    /// The alarm as one line of `storedText` (also what compares two alarms as text).
    package var storedLine: String {
        var words = [uid]
        switch trigger {
        case .due(let o): words += ["due", String(o)]
        case .start(let o): words += ["start", String(o)]
        case .at(let t): words += ["at", String(t.usec)]
        }
        if repeatCount > 0 { words += ["repeat", String(repeatCount), String(intervalUsec)] }
        if let acknowledged { words += ["ack", String(acknowledged.usec)] }
        if let snoozedUntil { words += ["snooze", String(snoozedUntil.usec)] }
        if let ical {
            var escaped = ""
            for c in ical.unicodeScalars {
                switch c {
                case "\\": escaped += "\\\\"
                case "\n": escaped += "\\n"
                case "\r": escaped += "\\r"
                default: escaped.unicodeScalars.append(c)
                }
            }
            words += ["ical", escaped]
        }
        return words.joined(separator: " ")
    }

    /// Reads what `storedText` wrote; lines it cannot read are left out. Over the UTF-8 bytes
    /// (every todo read with alarms goes through it: no `Character` work).
    package static func alarms(storedText text: String?) -> [Alarm] {
        guard var text else { return [] }
        return text.withUTF8 { bytes in
            var alarms: [Alarm] = []
            var from = 0
            while from < bytes.count {
                var to = from
                while to < bytes.count, bytes[to] != 0x0A { to += 1 }
                if let alarm = Alarm(storedLine: UnsafeBufferPointer(rebasing: bytes[from..<to])) {
                    alarms.append(alarm)
                }
                from = to + 1
            }
            return alarms
        }
    }

    init?(storedLine line: UnsafeBufferPointer<UInt8>) {
        var uid = 0..<0
        var ical: Range<Int>? = nil
        guard let timing = Alarm.read(storedLine: line, uid: &uid, ical: &ical) else { return nil }
        self.uid = String(decoding: UnsafeBufferPointer(rebasing: line[uid]), as: UTF8.self)
        self.timing = timing
        self.ical = ical.map {
            String(decoding: Alarm.unescaped(UnsafeBufferPointer(rebasing: line[$0])), as: UTF8.self)
        }
    }

    /// Calls `body` with each alarm of `text` (what `storedText` wrote) in order, as its timing,
    /// its uid's bytes and, for an alarm kept as iCalendar text, that text as stored (escaped:
    /// `unescaped` reads it), the bytes valid only inside `body`: for writing the alarms out (a
    /// todo's JSON) without making an `Alarm`, a String of each uid or an array of them.
    package static func forEachStored(
        _ text: String?, _ body: (Timing, UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>?) -> Void
    ) {
        guard var text else { return }
        text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return }
            var from = 0
            while from < bytes.count {
                let newline = memchr(base + from, 0x0A, bytes.count - from)
                let to = newline.map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? bytes.count
                let line = UnsafeBufferPointer(rebasing: bytes[from..<to])
                var uid = 0..<0
                var ical: Range<Int>? = nil
                if let timing = read(storedLine: line, uid: &uid, ical: &ical) {
                    body(
                        timing, UnsafeBufferPointer(rebasing: line[uid]),
                        ical.map { UnsafeBufferPointer(rebasing: line[$0]) })
                }
                from = to + 1
            }
        }
    }

    /// The iCalendar text of a stored line's `ical` word as it was before `storedLine` escaped it.
    package static func unescaped(_ stored: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(stored.count)
        var escaping = false
        for b in stored {
            if escaping {
                bytes.append(b == 0x6E ? 0x0A : b == 0x72 ? 0x0D : b)
                escaping = false
            } else if b == 0x5C {
                escaping = true
            } else {
                bytes.append(b)
            }
        }
        return bytes
    }

    /// One line of `storedText`: the alarm's timing; `uid` is set to where the uid is in the
    /// line, `ical` to where the kept iCalendar text is (escaped), if there is one.
    private static func read(
        storedLine line: UnsafeBufferPointer<UInt8>, uid: inout Range<Int>, ical: inout Range<Int>?
    ) -> Timing? {
        var at = 0
        func word() -> UnsafeBufferPointer<UInt8>? {
            guard at < line.count else { return nil }
            var end = at
            while end < line.count, line[end] != 0x20 { end += 1 }
            let w = UnsafeBufferPointer(rebasing: line[at..<end])
            at = end + 1
            return w
        }
        func number() -> Int64? {
            guard let w = word(), !w.isEmpty, w.count <= 20 else { return nil }
            var negative = false
            var value: Int64 = 0
            var i = 0
            if w[0] == 0x2D {
                negative = true
                i = 1
            }
            guard i < w.count else { return nil }
            while i < w.count {
                let d = w[i] &- 0x30
                guard d < 10 else { return nil }
                let (m, o1) = value.multipliedReportingOverflow(by: 10)
                let (a, o2) = m.addingReportingOverflow(Int64(d))
                guard !o1, !o2 else { return nil }
                value = a
                i += 1
            }
            return negative ? -value : value
        }
        func equals(_ w: UnsafeBufferPointer<UInt8>, _ s: StaticString) -> Bool {
            w.count == s.utf8CodeUnitCount && memcmp(w.baseAddress!, s.utf8Start, w.count) == 0
        }
        guard let uidBytes = word(), !uidBytes.isEmpty, let kind = word(), let value = number() else { return nil }
        var timing: Timing
        if equals(kind, "due") {
            timing = Timing(trigger: .due(value))
        } else if equals(kind, "start") {
            timing = Timing(trigger: .start(value))
        } else if equals(kind, "at") {
            timing = Timing(trigger: .at(Instant(usec: value)))
        } else {
            return nil
        }
        uid = 0..<uidBytes.count
        while let key = word() {
            if equals(key, "repeat") {
                guard let n = number(), let i = number() else { return nil }
                timing.repeatCount = Int(n)
                timing.intervalUsec = i
            } else if equals(key, "ack") {
                timing.acknowledged = number().map(Instant.init(usec:))
            } else if equals(key, "snooze") {
                timing.snoozedUntil = number().map(Instant.init(usec:))
            } else if equals(key, "ical") {
                ical = min(at, line.count)..<line.count // the rest of the line
                break
            } else {
                return nil
            }
        }
        return timing
    }
}

extension Alarm.Timing {
    /// The instant its trigger names for a todo with `due` and `start`; nil when it is relative
    /// to one the todo does not have (or leaves the years 0001 to 9999).
    package func triggerInstant(due: Instant?, start: Instant?) -> Instant? {
        switch trigger {
        case .due(let offset): return due.flatMap { $0.checkedAdding(usec: offset) }
        case .start(let offset): return start.flatMap { $0.checkedAdding(usec: offset) }
        case .at(let t): return t
        }
    }

    /// The first of its firings strictly after `after` (every firing when nil): the trigger
    /// instant and its repeats, unless acknowledged at or after the trigger instant, then the
    /// snooze. Nil when none is left.
    package func nextFiring(after: Instant?, due: Instant?, start: Instant?) -> Instant? {
        var best: Instant? = nil
        func consider(_ t: Instant) {
            if let after, t <= after { return }
            if let b = best, b <= t { return }
            best = t
        }
        if let base = triggerInstant(due: due, start: start) {
            let dismissed = acknowledged.map { $0 >= base } ?? false
            if !dismissed {
                if let after, repeatCount > 0, intervalUsec > 0, after >= base {
                    // The first repeat after `after`, counted rather than walked.
                    let k = (after.usec - base.usec) / intervalUsec + 1
                    if k <= Int64(repeatCount), let t = base.checkedAdding(usec: k &* intervalUsec) { consider(t) }
                } else {
                    consider(base)
                }
            }
        }
        if let snoozedUntil, acknowledged.map({ $0 < snoozedUntil }) ?? true { consider(snoozedUntil) }
        return best
    }
}
