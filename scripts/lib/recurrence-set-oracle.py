#!/usr/bin/env python3
"""Recurrence sets (RRULE + EXDATE + RDATE, DTSTART apart from DUE) as recurring-ical-events
expands them (RecurrenceSetOracleTests runs this with the test venv's python).

    recurrence-set-oracle.py ZONE,ZONE... PATH...

PATH is an .ics file or a directory searched for them. Every VEVENT or VTODO that recurs (RRULE
or RDATE) and has an EXDATE or an RDATE, or a DTSTART apart from its DUE, is made into a VTODO of
its own: UID, SUMMARY, DTSTART, DUE (a VTODO's own; an event's DTSTART), RRULE, EXDATE and RDATE
as they came, with the file's VTIMEZONEs. A file holding `{ZONE}` (the fixtures written here) is
made once per ZONE with the name put there; a VTODO with floating times is read once per ZONE as
that zone's local time. Writes one JSON object per line:

    {"case": FILE#N@ZONE, "zone": ZONE, "ics": TEXT, "dues": [UTC epoch seconds]}

the dues of the occurrences whose start lies in the year from the first DTSTART (at most 500),
or {"case": ..., "error": TEXT} when recurring-ical-events cannot expand it.
"""
import datetime
import json
import os
import sys
import zoneinfo

import icalendar
import recurring_ical_events

COPIED = ["DTSTART", "RRULE", "EXDATE", "RDATE"]


def files(paths):
    for top in paths:
        if os.path.isfile(top):
            yield top, os.path.basename(top)
            continue
        for root, _, names in sorted(os.walk(top)):
            for name in sorted(names):
                if name.endswith(".ics"):
                    path = os.path.join(root, name)
                    yield path, os.path.relpath(path, top)


def has_set(c):
    if c.get("RECURRENCE-ID") is not None or c.get("DTSTART") is None:
        return False
    recurs = c.get("RRULE") is not None or c.get("RDATE") is not None
    apart = c.name == "VTODO" and c.get("DUE") is not None and c["DUE"].to_ical() != c["DTSTART"].to_ical()
    return recurs and (c.get("EXDATE") is not None or c.get("RDATE") is not None or apart)


def make_todo(cal, c, n):
    out = icalendar.Calendar()
    out.add("VERSION", "2.0")
    out.add("PRODID", "-//todod//recurrence-set-oracle//EN")
    for tz in cal.walk("VTIMEZONE"):
        out.add_component(tz)
    todo = icalendar.Todo()
    todo.add("UID", f"oracle-{n}")
    todo.add("SUMMARY", f"case {n}")
    for name in COPIED:
        value = c.get(name)
        if value is None:
            continue
        for v in value if isinstance(value, list) else [value]:
            todo.add(name, v) if name != "DTSTART" else todo.add(name, v)
    due = c.get("DUE") if c.name == "VTODO" else None
    todo["DUE"] = due if due is not None else c["DTSTART"]
    out.add_component(todo)
    return out.to_ical().decode()


def aware(dt, zone):
    if isinstance(dt, datetime.datetime):
        return dt if dt.tzinfo is not None else dt.replace(tzinfo=zone)
    return datetime.datetime(dt.year, dt.month, dt.day, tzinfo=zone)


def expand(text, zone):
    cal = icalendar.Calendar.from_ical(text)
    todo = next(iter(cal.walk("VTODO")))
    start = todo["DTSTART"].dt
    first = start if isinstance(start, datetime.datetime) else datetime.datetime(start.year, start.month, start.day)
    end = first + datetime.timedelta(days=365)
    dues = []
    for o in recurring_ical_events.of(cal, components=["VTODO"]).between(first, end):
        dues.append(int(aware(o["DUE"].dt, zone).timestamp()))
        if len(dues) >= 500:
            break
    return sorted(dues)


def main():
    zones = sys.argv[1].split(",")
    n = 0
    for path, name in files(sys.argv[2:]):
        with open(path, "rb") as f:
            raw = f.read().decode("utf-8", "replace")
        templated = "{ZONE}" in raw
        for zone_name in zones if templated else [None]:
            try:
                cal = icalendar.Calendar.from_ical(raw.replace("{ZONE}", zone_name) if templated else raw)
            except Exception:
                continue  # not a calendar icalendar reads: nothing to compare
            for c in cal.walk():
                if c.name not in ("VEVENT", "VTODO") or not has_set(c):
                    continue
                n += 1
                text = make_todo(cal, c, n)
                floating = "TZID" not in text and "Z\r\n" not in text.split("BEGIN:VTODO")[1]
                for z in [zone_name] if templated else (zones if floating else [zones[0]]):
                    case = f"{name}#{n}@{z}"
                    try:
                        dues = expand(text, zoneinfo.ZoneInfo(z))
                    except Exception as e:  # a set recurring-ical-events cannot expand
                        print(json.dumps({"case": case, "error": f"{type(e).__name__}: {e}"}))
                        continue
                    print(json.dumps({"case": case, "zone": z, "ics": text, "dues": dues}))


if __name__ == "__main__":
    main()
