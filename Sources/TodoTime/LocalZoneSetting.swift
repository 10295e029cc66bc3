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

    /// Reads the setting as `ZoneInfo.named(byTZ:tzdir:)` and `ZoneInfo.identifier(byTZ:)` do.
    /// `localtime` is the path used when `TZ` is unset.
    ///
    /// The zone's file is read once, and the zone, its name and the bytes compared all come from
    /// that one read: a file replaced while it is read (a tz database update renames a new file
    /// over it) gives the old file's setting or the new one's, never the old rules with the new
    /// bytes, which would compare equal to the next read and keep the old rules for good.
    package static func read(tz: String?, tzdir: String?, localtime: String = "/etc/localtime") -> LocalZoneSetting {
        let named = tz.map { $0.hasPrefix(":") ? String($0.dropFirst()) : $0 } // what TZ names, without glibc's ":"
        let path: String? // the zone's file: the one TZ names, or `localtime` when TZ is unset
        if let named {
            path = named.isEmpty ? nil : named.hasPrefix("/") ? named : ZoneInfo.directory(tzdir) + "/" + named
        } else {
            path = localtime
        }
        var real: String?
        var contents: [UInt8] = []
        if let path, let resolved = Files.realPath(path) {
            real = resolved
            contents = (try? Files.contents(of: resolved, maxBytes: 1 << 20)) ?? []
        }
        let file = contents.isEmpty ? nil : ZoneInfo(tzif: contents)
        let zone: ZoneInfo
        if let file {
            zone = file
        } else if let named, !(tz ?? "").isEmpty {
            zone = ZoneInfo(posixRule: named) ?? .utc // no zone file: a POSIX rule ("JST-9"), or UTC
        } else {
            zone = .utc
        }
        let identifier: String?
        if let named, !named.hasPrefix("/") {
            let plainName = !named.split(separator: "/", omittingEmptySubsequences: false).contains("..")
            identifier = named.isEmpty ? "UTC" : file != nil && plainName ? ZoneInfo.plain(named) : nil
        } else {
            identifier = file == nil ? nil : real.flatMap { ZoneInfo.identifier(ofRealPath: $0, tzdir: tzdir) }
        }
        // A file TZ names that is no zone: TZ is taken as a rule, and nothing on disk decides it.
        let onDisk = tz == nil || file != nil
        var directories: [String] = []
        if onDisk, let path {
            directories.append(Files.directory(of: path))
            if let real { directories.append(Files.directory(of: real)) }
        }
        let name = identifier ?? (tz.map { $0.isEmpty ? "UTC" : $0 } ?? localtime)
        return LocalZoneSetting(zone: zone, name: name, contents: onDisk ? contents : [], directories: directories)
    }

    package static func == (a: LocalZoneSetting, b: LocalZoneSetting) -> Bool {
        a.name == b.name && a.contents == b.contents
    }
}
