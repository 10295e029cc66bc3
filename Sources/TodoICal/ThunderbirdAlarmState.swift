import TodoCore
import TodoTime

/// Thunderbird's alarm state, which it keeps on the VTODO rather than in its VALARMs
/// (calendar/base/src/calAlarmService.js): `X-MOZ-LASTACK`, the last dismissal or snooze (an
/// alarm whose time is at or before it is not shown again), `X-MOZ-SNOOZE-TIME`, the instant the
/// todo's alarms are snoozed to (it wins over an earlier alarm time whatever `X-MOZ-LASTACK`
/// says), and on a recurring todo `X-MOZ-SNOOZE-TIME-<occurrence>` instead, the occurrence named
/// by its RECURRENCE-ID in microseconds since 1970 (`calIDateTime.nativeTime`: a UTC or zoned time
/// as its instant, a date or floating time as if it were UTC). Thunderbird sets `X-MOZ-LASTACK`
/// when it dismisses or snoozes and deletes the snooze when it dismisses.
///
/// The reader maps them onto the alarms; the writer keeps them as they came (kept lines, in
/// their place) and brings their values up to date with the alarms, so that an alarm dismissed
/// or snoozed here reads the same in Thunderbird.
struct ThunderbirdAlarmState {
    static let lastAckName = "X-MOZ-LASTACK"
    static let snoozeName = "X-MOZ-SNOOZE-TIME"

    /// The occurrence a recurring todo is at: its anchor (the current DTSTART, else DUE) and
    /// whether it is a date, in `zone` (where a date's day is counted).
    struct Occurrence {
        var anchor: Instant
        var allDay: Bool
        var zone: ZoneInfo

        /// The anchor's wall clock read as if it were UTC, in seconds (what `nativeTime` gives a
        /// date or a floating time).
        var wallClockSeconds: Int64 {
            let local = LocalTime(anchor, in: zone)
            return local.days * 86_400 + (allDay ? 0 : local.secondOfDay)
        }

        /// The name of its snooze as Thunderbird writes it (a date at its UTC midnight, a time as
        /// its instant).
        var snoozeName: String {
            ThunderbirdAlarmState.snoozeName + "-" + String((allDay ? wallClockSeconds : anchor.seconds) * 1_000_000)
        }

        /// Whether the suffix of `X-MOZ-SNOOZE-TIME-<suffix>` names it: microseconds (its instant,
        /// or its wall clock as UTC), or a date or date-time value.
        func isNamed(by suffix: Substring) -> Bool {
            if let usec = Int64(suffix) {
                return usec == anchor.seconds * 1_000_000 || usec == wallClockSeconds * 1_000_000
            }
            switch try? ICalDate.parse(ContentLine(name: ThunderbirdAlarmState.snoozeName, value: String(suffix))) {
            case .utc(let i): return i.seconds == anchor.seconds
            case .date(let days): return days * 86_400 == wallClockSeconds - wallClockSeconds % 86_400 && allDay
            case .local(let days, let second, nil): return days * 86_400 + second == wallClockSeconds
            default: return false
            }
        }
    }

    // MARK: - Reading

    /// The acknowledgement `X-MOZ-LASTACK` of `c` gives, read as `instant` reads it.
    static func lastAck(_ c: Component, _ instant: (ContentLine) -> Instant?) -> Instant? {
        c.property(lastAckName).flatMap(instant)
    }

    /// The snooze Thunderbird gives the todo: `X-MOZ-SNOOZE-TIME` for a todo that does not
    /// recur, the one naming `occurrence` for one that does; nil when none is pending (dismissed
    /// at or after it).
    static func snooze(
        _ c: Component, occurrence: Occurrence?, lastAck: Instant?, _ instant: (ContentLine) -> Instant?
    ) -> Instant? {
        let line: ContentLine?
        if let occurrence {
            line = c.properties.first { p in
                p.name.hasPrefix(snoozeName + "-") && occurrence.isNamed(by: p.name.dropFirst(snoozeName.count + 1))
            }
        } else {
            line = c.property(snoozeName)
        }
        guard let at = line.flatMap(instant), lastAck.map({ $0 < at }) ?? true else { return nil }
        return at
    }

    // MARK: - Writing

    /// `kept` (the VTODO's kept lines in their order) with Thunderbird's state made that of the
    /// todo `e`, when the todo carries any `X-MOZ-` property (it came from Thunderbird or went
    /// through it); otherwise `kept` unchanged. `X-MOZ-LASTACK` becomes the latest dismissal here
    /// when that is later; the snooze (`X-MOZ-SNOOZE-TIME`, or on a recurring todo the one of its
    /// current `occurrence`) becomes the pending snooze here, or is dropped when none is pending.
    /// A line whose value stays is written as it came; one needed and missing is added before the
    /// first kept component.
    static func written(_ kept: [String], _ e: ExportDocument.Entry, occurrence: Occurrence?) -> [String] {
        var topLevel: [Int: ContentLine] = [:]
        var depth = 0
        for (i, raw) in kept.enumerated() {
            guard let l = try? ContentLine(parsing: raw, number: 0) else { continue }
            if l.name == "BEGIN" {
                depth += 1
            } else if l.name == "END" {
                depth = max(0, depth - 1)
            } else if depth == 0 {
                topLevel[i] = l
            }
        }
        guard topLevel.values.contains(where: { $0.name.hasPrefix("X-MOZ-") }) else { return kept }
        let alarms = (e.alarms ?? []).filter(\.acts)
        let pending = pendingSnooze(e, alarms)
        let snooze = pending?.at
        // A snooze made here acknowledges what fired before it, as Thunderbird's snooze does:
        // it was made when the todo was last changed.
        let acknowledged =
            (alarms.compactMap(\.acknowledged) + [e.reminded, pending?.here == true ? e.updated : nil].compactMap { $0 })
            .max()
        let snoozeLine = occurrence?.snoozeName ?? snoozeName
        var out: [String] = []
        var wroteAck = false
        var wroteSnooze = false
        for (i, raw) in kept.enumerated() {
            guard let l = topLevel[i] else {
                out.append(raw)
                continue
            }
            if l.name == lastAckName, !wroteAck {
                wroteAck = true
                let was = (try? ICalDate.parse(l)).flatMap { d -> Instant? in if case .utc(let t) = d { t } else { nil }
                }
                if let acknowledged, was.map({ $0.seconds < acknowledged.seconds }) ?? true {
                    out.append(lastAckName + ":" + ICalDate.utcText(acknowledged))
                } else {
                    out.append(raw)
                }
            } else if l.name == snoozeName && occurrence == nil
                || occurrence.map({
                    l.name.hasPrefix(snoozeName + "-") && $0.isNamed(by: l.name.dropFirst(snoozeName.count + 1))
                })
                    == true
            {
                // A second line for the same snooze is left out, as is one no snooze here keeps.
                guard let snooze, !wroteSnooze else { continue }
                wroteSnooze = true
                let value = ICalDate.utcText(snooze)
                out.append(l.value.trimmingSpaces == value ? raw : l.name + ":" + value)
            } else {
                out.append(raw)
            }
        }
        var added: [String] = []
        if !wroteAck, let acknowledged { added.append(lastAckName + ":" + ICalDate.utcText(acknowledged)) }
        if !wroteSnooze, let snooze { added.append(snoozeLine + ":" + ICalDate.utcText(snooze)) }
        if !added.isEmpty {
            let firstComponent = out.firstIndex { $0.uppercased().hasPrefix("BEGIN:") } ?? out.endIndex
            out.insert(contentsOf: added, at: firstComponent)
        }
        return out
    }

    /// The snooze pending on the todo: the latest snooze of an alarm not dismissed since, else
    /// a reminder moved here to an instant that is none of the alarms' firings (`todoctl snooze`).
    /// `here` when it is the latter.
    static func pendingSnooze(_ e: ExportDocument.Entry, _ alarms: [Alarm]) -> (at: Instant, here: Bool)? {
        if let s = alarms.compactMap({ a in
            a.snoozedUntil.flatMap { s in a.acknowledged.map({ $0 < s }) ?? true ? s : nil }
        }).max() {
            return (s, false)
        }
        guard !e.done, e.reminded == nil, let remind = e.remind, !alarms.isEmpty,
            !alarms.contains(where: { $0.fires(at: remind, due: e.due, start: e.start) })
        else { return nil }
        return (remind, true)
    }
}
