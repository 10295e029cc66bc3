"""python-caldav as "the phone" of the sync tests (Tests/TodoSyncTests/PythonCalDAVTests.swift).

A test runs the venv's python with `-c`, importing this module, with the calendar's URL, user and
password as arguments; `calendar()` opens that calendar with python-caldav, and `dump(cal)` prints
what python-caldav and icalendar read from it, one JSON document, for the test to compare with
todod's own JSON:

    {"todos": [{"uid", "summary", "status", "completed", "recurrence_id", "range",
                "dtstart": {"utc", "local", "tzid"}, "due": {...}, "rrule",
                "alarms": [{"lines", "at"}]}],
     "zones": {"TZID": "problem or null"}, "hrefs": {"uid": count of resources}}

`at` is the alarm's instant as icalendar computes it (RFC 5545: RELATED=START from DTSTART, END
from DUE); `zones` says of each VTIMEZONE whether icalendar can turn it into a tzinfo giving the
tz database's offsets over 2026 and 2027 (null) or what is wrong.
"""

import datetime as dt
import json
import sys
from zoneinfo import ZoneInfo

import caldav
import icalendar


def calendar():
    client = caldav.DAVClient(url=sys.argv[1], username=sys.argv[2], password=sys.argv[3])
    return caldav.Calendar(client=client, url=sys.argv[1])


def when(prop):
    """A DTSTART/DUE as UTC instant, local text and TZID (icalendar's reading of it)."""
    if prop is None:
        return None
    value = prop.dt
    if not isinstance(value, dt.datetime):
        return {"date": value.isoformat()}
    tzid = prop.params.get("TZID")
    utc = value.astimezone(dt.timezone.utc) if value.tzinfo else None
    return {"utc": utc.strftime("%Y-%m-%dT%H:%M:%SZ") if utc else None,
            "local": value.strftime("%Y-%m-%dT%H:%M:%S"), "tzid": tzid}


def alarm_instant(todo, alarm):
    trigger = alarm.get("TRIGGER")
    if trigger is None:
        return None
    if isinstance(trigger.dt, dt.datetime):
        return trigger.dt.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    related = trigger.params.get("RELATED", "START").upper()
    base = todo.get("DUE" if related == "END" else "DTSTART")
    if base is None:
        return None
    return (base.dt + trigger.dt).astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def zone_problem(vtimezone):
    """None when icalendar makes a tzinfo of the VTIMEZONE that agrees with the tz database on
    every hour of 2026 and 2027; else what is wrong."""
    tzid = str(vtimezone["TZID"])
    try:
        tz = vtimezone.to_tz()
    except Exception as e:  # noqa: BLE001 - the reason is the answer
        return "icalendar cannot read it: %s" % e
    try:
        reference = ZoneInfo(tzid)
    except Exception:  # noqa: BLE001 - a custom zone: nothing to compare with
        return None
    t = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    while t.year < 2028:
        mine, theirs = t.astimezone(tz).utcoffset(), t.astimezone(reference).utcoffset()
        if mine != theirs:
            return "offset at %s is %s, the tz database says %s" % (t.isoformat(), mine, theirs)
        t += dt.timedelta(hours=1)
    return None


def dump(cal):
    todos, zones, hrefs = [], {}, {}
    for resource in cal.todos(include_completed=True):
        ical = icalendar.Calendar.from_ical(resource.data)
        for vtimezone in ical.walk("VTIMEZONE"):
            zones[str(vtimezone["TZID"])] = zone_problem(vtimezone)
        uids = set()
        for todo in ical.walk("VTODO"):
            uid = str(todo.get("UID"))
            uids.add(uid)
            rid = todo.get("RECURRENCE-ID")
            todos.append({
                "uid": uid, "summary": str(todo.get("SUMMARY", "")), "status": str(todo.get("STATUS", "")),
                "completed": todo.get("COMPLETED") is not None,
                "recurrence_id": when(rid), "range": rid.params.get("RANGE") if rid is not None else None,
                "dtstart": when(todo.get("DTSTART")), "due": when(todo.get("DUE")),
                "rrule": todo["RRULE"].to_ical().decode() if "RRULE" in todo else None,
                "alarms": [{"lines": [line.decode() for line in a.to_ical().splitlines()],
                            "at": alarm_instant(todo, a)} for a in todo.walk("VALARM")],
            })
        for uid in uids:
            hrefs[uid] = hrefs.get(uid, 0) + 1
    print(json.dumps({"todos": todos, "zones": zones, "hrefs": hrefs}, ensure_ascii=False))


def by_uid(cal, uid):
    """The resource holding the todo `uid`."""
    for resource in cal.todos(include_completed=True):
        if str(resource.icalendar_component.get("UID")) == uid:
            return resource
    raise SystemExit("no todo %s on the calendar" % uid)


def save(cal, components, timezones=True):
    """Saves one resource made of icalendar `components` (VTODOs) with python-caldav, with the
    VTIMEZONEs its TZIDs need (icalendar's `add_missing_timezones`) unless `timezones` is false."""
    ical = icalendar.Calendar()
    ical.add("PRODID", "-//python-caldav test phone//EN")
    ical.add("VERSION", "2.0")
    for c in components:
        ical.add_component(c)
    if timezones:
        ical.add_missing_timezones()
    return cal.save_todo(ical.to_ical().decode())
