import TodoCore
import TodoTime

/// Writes export-document entries as VTODOs.
package struct ICalWriter: Sendable {
    package var tzdir: String?
    /// The PRODID of the files todod writes.
    package static let prodID = "-//todod//todod//EN"

    package init(tzdir: String? = nil) { self.tzdir = tzdir }

    /// One VCALENDAR holding every entry, `X-APPLE-SORT-ORDER` counting their order from 1.
    package func calendar(_ entries: [ExportDocument.Entry], firstSortOrder: Int = 1) -> String {
        var body = ""
        var zones = ZoneDefinitions(tzdir: tzdir)
        // Each zone read from the tz database once per file, not once per todo.
        var known: [String: ZoneInfo?] = [:]
        for (i, e) in entries.enumerated() {
            var zone: ZoneInfo?
            if let name = e.zone {
                if let z = known[name] {
                    zone = z
                } else {
                    zone = ZoneInfo(identifier: name, tzdir: tzdir)
                    known[name] = .some(zone)
                }
            }
            for line in vtodo(e, sortOrder: firstSortOrder + i, zone: zone) {
                zones.note(line)
                body += ContentLines.fold(line)
            }
            if let ical = e.ical, ical.hasPrefix("~") || ical.contains("\n~") {
                zones.keep(ical.split(separator: "\n").filter { $0.hasPrefix("~") }.map { String($0.dropFirst()) })
            }
        }
        var out =
            ContentLines.fold("BEGIN:VCALENDAR") + ContentLines.fold("VERSION:2.0")
            + ContentLines.fold("PRODID:" + Self.prodID)
        for line in zones.components() { out += ContentLines.fold(line) }
        return out + body + ContentLines.fold("END:VCALENDAR")
    }

    /// Kept lines that cannot break the file they go into (an `ical` member may come from any
    /// JSON document): each a content line without control characters, components balanced and
    /// never a VCALENDAR or VTODO; anything else is left out.
    static func wellFormed(_ lines: [String]) -> [String] {
        var out: [String] = []
        var open: [String] = []
        var skipping = 0 // inside a component left out (with everything in it)
        for raw in lines {
            guard !raw.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }),
                let l = try? ContentLine(parsing: raw, number: 0)
            else { continue }
            let name = l.value.uppercased()
            if skipping > 0 {
                if l.name == "BEGIN" { skipping += 1 } else if l.name == "END" { skipping -= 1 }
                continue
            }
            if l.name == "BEGIN" {
                guard open.count < 8, !["VCALENDAR", "VTODO"].contains(name), !name.isEmpty else {
                    skipping = 1
                    continue
                }
                open.append(name)
            } else if l.name == "END" {
                guard open.last == name else { continue }
                open.removeLast()
            }
            out.append(raw)
        }
        for name in open.reversed() { out.append("END:" + name) }
        return out
    }

    /// The unfolded lines of one VTODO.
    package func vtodo(_ e: ExportDocument.Entry, sortOrder: Int) -> [String] {
        vtodo(e, sortOrder: sortOrder, zone: e.zone.flatMap { ZoneInfo(identifier: $0, tzdir: tzdir) })
    }

    /// The unfolded lines of one VTODO whose zone (`e.zone` read from the tz database, nil when
    /// unknown there) the caller has already read.
    func vtodo(_ e: ExportDocument.Entry, sortOrder: Int, zone known: ZoneInfo?) -> [String] {
        VTodoWriter(
            e: e, kept: KeptLines(e.ical), sortOrder: sortOrder,
            zone: (info: known ?? .utc, tzid: known.map { _ in e.zone! }),
            tzdir: tzdir
        ).lines()
    }

    /// Kept VTODO components (lines starting with `+`): whole `BEGIN:VTODO` ... `END:VTODO`
    /// blocks whose inner lines are well formed; anything else is left out.
    static func wellFormedInstances(_ lines: [String]) -> [String] {
        var out: [String] = []
        var block: [String]?
        for raw in lines {
            let upper = raw.uppercased()
            if upper == "BEGIN:VTODO" {
                block = []
            } else if upper == "END:VTODO" {
                if let inner = block { out += ["BEGIN:VTODO"] + wellFormed(inner) + ["END:VTODO"] }
                block = nil
            } else {
                block?.append(raw)
            }
        }
        return out
    }
}
