// Finding the calendars of a CalDAV account (RFC 4791 §6, RFC 5397, RFC 6764): the URL itself
// when it is a calendar, else /.well-known/caldav, the current user's principal, its
// calendar-home-set, and the collections in that home.

/// A calendar collection found by discovery.
package struct CalendarInfo: Sendable, Equatable {
    /// Its absolute URL.
    package var url: String
    /// Its DAV:displayname (the last path segment when it has none).
    package var displayName: String
    /// Whether it may hold VTODOs (C:supported-calendar-component-set lists VTODO, or is absent).
    package var holdsTodos: Bool
    /// Whether it offers a DAV:sync-token (RFC 6578 sync-collection).
    package var supportsSyncToken: Bool
    package init(url: String, displayName: String, holdsTodos: Bool, supportsSyncToken: Bool) {
        self.url = url
        self.displayName = displayName
        self.holdsTodos = holdsTodos
        self.supportsSyncToken = supportsSyncToken
    }
}

/// A CalDAV account: where the server is and who we are on it.
package struct CalDAVAccount: Sendable {
    /// The server's root, a principal, a calendar home, or a calendar collection.
    package var url: String
    package var user: String?
    package var password: String?
    package var timeouts: CalDAVTimeouts

    package init(url: String, user: String?, password: String?, timeouts: CalDAVTimeouts = CalDAVTimeouts()) {
        self.url = url
        self.user = user
        self.password = password
        self.timeouts = timeouts
    }

    /// The properties asked for on every collection discovery looks at.
    private static let collectionProperties = """
        <d:resourcetype/><d:displayname/><d:sync-token/><c:supported-calendar-component-set/>
        """

    /// The calendars of the account: `[that calendar]` when `url` is a calendar collection,
    /// else every calendar in the user's calendar home.
    package func calendars() throws(CalDAVError) -> [CalendarInfo] {
        let client = HTTPClient(user: user, password: password, origin: url, timeouts: timeouts)
        guard let start = HTTPURL(url) else {
            throw .network("not an http(s) URL without user information: \(HTTPClient.redacted(url))")
        }
        // A URL that is not a DAV resource (404, 405, a 3xx, a non-multistatus) falls through to
        // the well-known URL; a wrong password or an unreachable server stops here.
        let first: [DAVResponse]
        do {
            first = try propfind(
                client, start, depth: "0",
                Self.collectionProperties
                    + "<d:current-user-principal/><c:calendar-home-set/>")
        } catch {
            switch error {
            case .notFound, .http, .malformed: first = []
            default: throw error
            }
        }
        if let me = first.first(where: {
            comparablePath($0.href, base: start) == comparablePath(start.path, base: start)
        }) ?? first.first {
            if let info = Self.calendar(me, base: start) { return [info] }
            if let home = Self.firstHref(me.property(XMLNamespace.caldav, "calendar-home-set")),
                let homeURL = start.resolving(home)
            {
                return try calendars(in: homeURL, client)
            }
            if let principal = Self.firstHref(me.property(XMLNamespace.dav, "current-user-principal")),
                let principalURL = start.resolving(principal)
            {
                return try calendars(ofPrincipal: principalURL, client)
            }
        }
        // RFC 6764 §5: /.well-known/caldav redirects to the context path.
        var context = start
        context.path = "/.well-known/caldav"
        for _ in 0..<5 {
            let answer = try client.dav(
                "PROPFIND", context, depth: "0", body: Self.propfindBody("<d:current-user-principal/>"))
            if [301, 302, 303, 307, 308].contains(answer.status), let location = answer.header("Location"),
                let next = context.resolving(location)
            {
                guard next.scheme == start.scheme || next.scheme == "https" else { break }
                // Credentials go to the account's origin alone: a redirect elsewhere is said, not followed.
                guard start.sameOrigin(next) else {
                    throw .network(
                        "\(start.origin) redirects discovery to \(next.origin); the password goes only to the account's own host: "
                            + "if that server is the account's, add the account with --url \(next.string)")
                }
                context = next
                continue
            }
            if answer.status == 401 { throw .unauthorized }
            guard answer.status == 207 else { break }
            let status = try Multistatus(answer.body)
            if let principal = status.responses.lazy.compactMap({
                Self.firstHref($0.property(XMLNamespace.dav, "current-user-principal"))
            }).first,
                let principalURL = context.resolving(principal)
            {
                return try calendars(ofPrincipal: principalURL, client)
            }
            break
        }
        throw .unsupported(
            "CalDAV discovery (no calendar, calendar-home-set or current-user-principal at \(start.string))")
    }

    /// A collection at `url` with this account's credentials.
    package func collection(url: String) -> CalDAVCollection {
        CalDAVCollection(url: url, user: user, password: password, origin: self.url, timeouts: timeouts)
    }

    /// The collection `info` describes, with this account's credentials.
    package func collection(_ info: CalendarInfo) -> CalDAVCollection { collection(url: info.url) }

    /// Makes a calendar collection for VTODOs at `url` (MKCALENDAR, RFC 4791 §5.3.1) named `name`.
    package func makeCalendar(at url: String, name: String) throws(CalDAVError) {
        let client = HTTPClient(user: user, password: password, origin: url, timeouts: timeouts)
        guard let target = HTTPURL(url) else {
            throw .network("not an http(s) URL without user information: \(HTTPClient.redacted(url))")
        }
        let body = """
            <?xml version="1.0" encoding="utf-8"?>
            <c:mkcalendar xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:set><d:prop>\
            <d:displayname>\(name.xmlEscaped)</d:displayname>\
            <c:supported-calendar-component-set><c:comp name="VTODO"/></c:supported-calendar-component-set>\
            </d:prop></d:set></c:mkcalendar>
            """
        let response = try client.dav("MKCALENDAR", target, depth: nil, body: body)
        guard (200..<300).contains(response.status) else { throw DAVStatus.error(response) }
    }

    /// Renames the calendar at `url` (PROPPATCH of its DAV:displayname).
    package func renameCalendar(at url: String, to name: String) throws(CalDAVError) {
        let client = HTTPClient(user: user, password: password, origin: url, timeouts: timeouts)
        guard let target = HTTPURL(url) else {
            throw .network("not an http(s) URL without user information: \(HTTPClient.redacted(url))")
        }
        let body = """
            <?xml version="1.0" encoding="utf-8"?>
            <d:propertyupdate xmlns:d="DAV:"><d:set><d:prop><d:displayname>\(name.xmlEscaped)</d:displayname></d:prop></d:set></d:propertyupdate>
            """
        let response = try client.dav("PROPPATCH", target, depth: nil, body: body)
        guard (200..<300).contains(response.status) else { throw DAVStatus.error(response) }
        // A 207 whose propstat refuses the property.
        func refused(_ status: Int) -> Bool { !(200..<300).contains(status) }
        if response.status == 207, let status = try? Multistatus(response.body),
            let failed = status.responses.first(where: { r in r.propstats.contains { refused($0.status) } })
        {
            let code = failed.propstats.first { refused($0.status) }?.status ?? 500
            throw .http(status: code, "the server did not rename the calendar")
        }
    }

    /// Deletes the calendar collection at `url` (DELETE, RFC 4918 §9.6.1), whatever it holds. A
    /// 404 is a calendar gone: Cyrus answers so to the DELETE that removed it.
    package func deleteCalendar(at url: String) throws(CalDAVError) {
        let client = HTTPClient(user: user, password: password, origin: url, timeouts: timeouts)
        guard let target = HTTPURL(url) else {
            throw .network("not an http(s) URL without user information: \(HTTPClient.redacted(url))")
        }
        let response = try client.send("DELETE", target)
        if response.status == 404 { return }
        guard (200..<300).contains(response.status) else { throw DAVStatus.error(response) }
        // A 207 names a member the server could not delete.
        if response.status == 207 { throw .http(status: 207, "the server deleted part of the calendar only") }
    }

    /// The calendar the server takes for the user's default (RFC 6638 §9.2: the
    /// `schedule-default-calendar-URL` of the principal's scheduling inbox), or nil when the
    /// server names none (no scheduling, no principal, any error).
    package func scheduleDefaultCalendar() -> String? {
        let client = HTTPClient(user: user, password: password, origin: url, timeouts: timeouts)
        guard let start = HTTPURL(url) else { return nil }
        func href(_ target: HTTPURL, _ namespace: String, _ name: String) -> HTTPURL? {
            let property = namespace == XMLNamespace.dav ? "<d:\(name)/>" : "<c:\(name)/>"
            guard let answer = try? propfind(client, target, depth: "0", property),
                let found = answer.lazy.compactMap({ Self.firstHref($0.property(namespace, name)) }).first
            else { return nil }
            return target.resolving(found)
        }
        var principal = href(start, XMLNamespace.dav, "current-user-principal")
        if principal == nil {
            // RFC 6764 §5: /.well-known/caldav (redirects followed on the account's own origin).
            var context = start
            context.path = "/.well-known/caldav"
            for _ in 0..<5 {
                guard
                    let answer = try? client.dav(
                        "PROPFIND", context, depth: "0", body: Self.propfindBody("<d:current-user-principal/>"))
                else { break }
                if [301, 302, 303, 307, 308].contains(answer.status), let location = answer.header("Location"),
                    let next = context.resolving(location), start.sameOrigin(next)
                {
                    context = next
                    continue
                }
                if answer.status == 207, let status = try? Multistatus(answer.body),
                    let found = status.responses.lazy.compactMap({
                        Self.firstHref($0.property(XMLNamespace.dav, "current-user-principal"))
                    }).first
                {
                    principal = context.resolving(found)
                }
                break
            }
        }
        guard let principal, let inbox = href(principal, XMLNamespace.caldav, "schedule-inbox-URL"),
            let calendar = href(inbox, XMLNamespace.caldav, "schedule-default-calendar-URL")
        else { return nil }
        return calendar.string
    }

    // MARK: - Steps

    private func calendars(ofPrincipal principal: HTTPURL, _ client: HTTPClient) throws(CalDAVError) -> [CalendarInfo] {
        let answer = try propfind(client, principal, depth: "0", "<c:calendar-home-set/>")
        guard
            let home = answer.lazy.compactMap({ Self.firstHref($0.property(XMLNamespace.caldav, "calendar-home-set")) })
                .first,
            let homeURL = principal.resolving(home)
        else {
            throw .unsupported("CalDAV (the principal \(principal.path) has no calendar-home-set)")
        }
        return try calendars(in: homeURL, client)
    }

    private func calendars(in home: HTTPURL, _ client: HTTPClient) throws(CalDAVError) -> [CalendarInfo] {
        try propfind(client, home, depth: "1", Self.collectionProperties).compactMap { Self.calendar($0, base: home) }
    }

    private func propfind(_ client: HTTPClient, _ target: HTTPURL, depth: String, _ properties: String)
        throws(CalDAVError) -> [DAVResponse]
    {
        let answer = try client.dav("PROPFIND", target, depth: depth, body: Self.propfindBody(properties))
        guard answer.status == 207 else { throw DAVStatus.error(answer) }
        return try Multistatus(answer.body).responses
    }

    private static func propfindBody(_ properties: String) -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop>\(properties)</d:prop></d:propfind>
        """
    }

    /// The calendar a PROPFIND response describes, or nil when it is no calendar collection.
    private static func calendar(_ response: DAVResponse, base: HTTPURL) -> CalendarInfo? {
        guard let types = response.property(XMLNamespace.dav, "resourcetype"),
            types.child(XMLNamespace.caldav, "calendar") != nil,
            let url = base.resolving(response.href)
        else { return nil }
        var name = response.property(XMLNamespace.dav, "displayname")?.trimmedText ?? ""
        if name.isEmpty {
            name = url.pathOnly.split(separator: "/").last.map(String.init) ?? url.pathOnly
        }
        var holdsTodos = true
        if let set = response.property(XMLNamespace.caldav, "supported-calendar-component-set") {
            let components = set.children(XMLNamespace.caldav, "comp")
            holdsTodos =
                components.isEmpty
                || components.contains { comp in
                    comp.attributes["name"]?.uppercased() == "VTODO"
                }
        }
        let syncToken = response.property(XMLNamespace.dav, "sync-token").map { !$0.trimmedText.isEmpty } ?? false
        return CalendarInfo(url: url.string, displayName: name, holdsTodos: holdsTodos, supportsSyncToken: syncToken)
    }

    private static func firstHref(_ property: XMLElement?) -> String? {
        guard let href = property?.child(XMLNamespace.dav, "href")?.trimmedText, !href.isEmpty else { return nil }
        return href
    }
}
