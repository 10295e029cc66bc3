#!/usr/bin/env python3
"""The recurrence rules of calendars nobody here wrote, and their occurrences as
recurring-ical-events computes them (RecurrenceOracleTests runs this with the test venv's python).

    corpus-rrule-oracle.py rules DIR...     every distinct RRULE value in the *.ics files under
                                            DIR (lines unfolded), one per line: FILE<TAB>RULE
    corpus-rrule-oracle.py expand           reads ZONE<TAB>RULE lines on stdin; for each writes
                                            ZONE<TAB>RULE<TAB>START<TAB>OCCURRENCES: a VTODO with
                                            DTSTART and DUE;TZID=ZONE at START (the rule's first
                                            date on or after 2026-01-01 09:00 local, by dateutil),
                                            expanded by recurring-ical-events over 2026 (local),
                                            as UTC epoch seconds (comma-separated; START `-` when
                                            the rule gives no date)
"""
import datetime
import os
import re
import sys
import zoneinfo

import icalendar
import recurring_ical_events
from dateutil import rrule


def rules(dirs):
    seen = set()
    for top in dirs:
        for root, _, files in sorted(os.walk(top)):
            for name in sorted(files):
                if not name.endswith(".ics"):
                    continue
                path = os.path.join(root, name)
                with open(path, "rb") as f:
                    text = f.read().decode("utf-8", "replace")
                text = re.sub(r"\r?\n[ \t]", "", text)
                for line in re.split(r"\r?\n", text):
                    m = re.match(r"(?i)^RRULE(;[^:]*)?:(.*)$", line)
                    if not m:
                        continue
                    value = m.group(2).strip()
                    if value and value not in seen:
                        seen.add(value)
                        print(f"{os.path.relpath(path, top)}\t{value}")


def expand():
    for line in sys.stdin:
        zone_name, rule_text = line.rstrip("\n").split("\t")
        zone = zoneinfo.ZoneInfo(zone_name)
        anchor = datetime.datetime(2026, 1, 1, 9, 0)
        try:
            first = rrule.rrulestr(rule_text, dtstart=anchor).after(anchor, inc=True)
        except Exception as e:  # a rule dateutil cannot read
            print(f"{zone_name}\t{rule_text}\t!\t{type(e).__name__}")
            continue
        if first is None:
            print(f"{zone_name}\t{rule_text}\t-\t")
            continue
        stamp = first.strftime("%Y%m%dT%H%M%S")
        cal = icalendar.Calendar.from_ical(
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:oracle\r\nBEGIN:VTODO\r\nUID:o\r\nSUMMARY:o\r\n"
            f"DTSTART;TZID={zone_name}:{stamp}\r\nDUE;TZID={zone_name}:{stamp}\r\nRRULE:{rule_text}\r\n"
            "END:VTODO\r\nEND:VCALENDAR\r\n")
        start = datetime.datetime(2026, 1, 1, tzinfo=zone)
        end = datetime.datetime(2027, 1, 1, tzinfo=zone)
        out = []
        for c in recurring_ical_events.of(cal, components=["VTODO"]).between(start, end):
            out.append(int(c["DTSTART"].dt.timestamp()))
        first_utc = int(first.replace(tzinfo=zone).timestamp())
        print(f"{zone_name}\t{rule_text}\t{first_utc}\t{','.join(map(str, sorted(out)))}")


if __name__ == "__main__":
    if sys.argv[1] == "rules":
        rules(sys.argv[2:])
    else:
        expand()
