import TodoPosix

/// The zone a process takes as local, as read now from `TZ`, `TZDIR` and the files they name:
/// what todod re-reads when the zone changes under it (docs/REMINDERS.md, "Time that changes").
///
/// Two settings are equal when they name the same zone and its file holds the same bytes: an
/// `/etc/localtime` pointed elsewhere, or the tz database's file for the zone updated, is a
/// change; the same file read twice is not.
package struct LocalZoneSetting: Sendable, Equatable {
    /// The zone itself.
    package var zone: ZoneInfo
    /// Its IANA name ("Asia/Tokyo") when it has one, else what `TZ` says ("JST-9"), else the
    /// path of the file ("/etc/localtime").
    package var name: String
    /// The bytes of the zone's file (empty for a POSIX rule or UTC).
    package var contents: [UInt8]
    /// The directories whose entries decide the zone: the one holding `/etc/localtime` (or the
    /// file `TZ` names) and the one holding the file it resolves to. Watched for changes.
    package var directories: [String]

    /// Reads the setting as `ZoneInfo.named(byTZ:tzdir:)` does. `localtime` is the path used when
    /// `TZ` is unset.
    package static func read(tz: String?, tzdir: String?, localtime: String = "/etc/localtime") -> LocalZoneSetting {
        let zone = tz == nil ? (ZoneInfo(path: localtime) ?? .utc) : ZoneInfo.named(byTZ: tz, tzdir: tzdir)
        let identifier = ZoneInfo.identifier(byTZ: tz, tzdir: tzdir, localtime: localtime)
        var path: String?
        if let tz {
            let file = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            if !file.isEmpty {
                let candidate = file.hasPrefix("/") ? file : ((tzdir?.isEmpty ?? true) ? "/usr/share/zoneinfo" : tzdir!) + "/" + file
                if ZoneInfo(path: candidate) != nil { path = candidate }
            }
        } else {
            path = localtime
        }
        var directories: [String] = []
        var contents: [UInt8] = []
        if let path {
            directories.append(Files.directory(of: path))
            if let real = Files.realPath(path) {
                directories.append(Files.directory(of: real))
                contents = (try? Files.contents(of: real, maxBytes: 1 << 20)) ?? []
            }
        }
        let name = identifier ?? (tz.map { $0.isEmpty ? "UTC" : $0 } ?? localtime)
        return LocalZoneSetting(zone: zone, name: name, contents: contents, directories: directories)
    }

    package static func == (a: LocalZoneSetting, b: LocalZoneSetting) -> Bool {
        a.name == b.name && a.contents == b.contents
    }
}
