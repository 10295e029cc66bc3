import TodoPosix

extension ZoneInfo {
    /// The IANA name ("Asia/Tokyo") of the zone `TZ` names, as `named(byTZ:tzdir:)` reads it: what
    /// todoctl sends as a todo's `zone`. Nil when the zone has no such name.
    ///
    /// - `TZ` unset: the name in the target of the `localtime` symbolic link
    ///   (`/etc/localtime -> /usr/share/zoneinfo/Europe/Berlin`); nil when it is a plain file.
    /// - `TZ` empty (or just `:`): "UTC".
    /// - `Asia/Tokyo` or `:Asia/Tokyo`: that name, when the database has a readable zone by it.
    /// - A path (`/usr/share/zoneinfo/Asia/Tokyo`): the part after the database directory
    ///   (`tzdir`, or a `zoneinfo` directory), links resolved.
    /// - A POSIX rule (`JST-9`) or anything unreadable: nil.
    ///
    /// The `posix/` and `right/` variants of the database give the plain name.
    package static func identifier(byTZ tz: String?, tzdir: String? = nil, localtime: String = "/etc/localtime")
        -> String?
    {
        guard let tz else { return identifier(ofPath: localtime, tzdir: tzdir) }
        let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
        if name.isEmpty { return "UTC" }
        if name.hasPrefix("/") { return identifier(ofPath: name, tzdir: tzdir) }
        guard ZoneInfo(identifier: name, tzdir: tzdir) != nil else { return nil }
        return plain(name)
    }

    /// The name of the zone file at `path` (links resolved) inside the database directory.
    private static func identifier(ofPath path: String, tzdir: String?) -> String? {
        guard let real = Files.realPath(path), ZoneInfo(path: real) != nil else { return nil }
        return identifier(ofRealPath: real, tzdir: tzdir)
    }

    /// The name of the zone file at `real` (links resolved) inside the database directory,
    /// without reading the file.
    static func identifier(ofRealPath real: String, tzdir: String?) -> String? {
        var name: String?
        if let tzdir, !tzdir.isEmpty, let base = Files.realPath(tzdir), real.hasPrefix(base + "/") {
            name = String(real.dropFirst(base.count + 1))
        } else {
            let components = real.split(separator: "/")
            if let last = components.lastIndex(of: "zoneinfo") {
                name = components[(last + 1)...].joined(separator: "/")
            }
        }
        guard let name, !name.isEmpty else { return nil }
        return plain(name)
    }

    /// `name` without a leading `posix/` or `right/` (the same zone, counted without or with leap seconds).
    static func plain(_ name: String) -> String {
        for prefix in ["posix/", "right/"] where name.hasPrefix(prefix) && name.count > prefix.count {
            return String(name.dropFirst(prefix.count))
        }
        return name
    }
}
