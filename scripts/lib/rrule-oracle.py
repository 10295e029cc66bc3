#!/usr/bin/env python3
"""The independent RRULE implementation TodoCalendarTests compare TodoCalendar with:
python-dateutil's rrule, in zones from tz.gettz.

Reads cases from the file named by argv[1], one per line, tab-separated:
    zone  rrule  dtstart  until  after  window_end
  zone        an IANA zone name (Europe/Berlin), or UTC for a rule anchored in UTC (DTSTART ...Z)
  rrule       RRULE text without UNTIL (FREQ=MONTHLY;BYDAY=-1FR)
  dtstart     local wall-clock DTSTART, 2026-03-29T02:30:00 (an existing local time)
  until       "-" or a UTC instant in epoch seconds ("u1798000000") or a local date ("d2027-01-31")
  after       epoch seconds: report the first occurrence strictly after it
  window_end  epoch seconds: report the occurrences in [after, window_end]
argv[2], when given, is the last year looked at (2060 unless given).
Writes one line per case: the first 15 occurrences (up to that year), then "|", the next one after `after` (or
"none"), then "|", the occurrences in the window (at most 100); all as epoch seconds.

RFC 5545 reading of local times (what TodoCalendar does): a nonexistent local time moves forward
by the gap (dateutil's tz.resolve_imaginary); an ambiguous one takes the first instant (fold=0).
UNTIL is applied here rather than by dateutil, which compares aware datetimes of one zone by
their wall-clock reading.
"""
import datetime
import sys

from dateutil import rrule, tz

UTC = datetime.timezone.utc


def epoch(dt):
    return int(tz.resolve_imaginary(dt).astimezone(UTC).timestamp())


def main():
    out = []
    horizon = int(sys.argv[2]) if len(sys.argv) > 2 else 2060
    with open(sys.argv[1], encoding="utf-8") as cases:
        for line in cases:
            zone_name, text, start, until, after, window_end = line.rstrip("\n").split("\t")
            zone = tz.gettz(zone_name)
            if zone is None:
                raise SystemExit(f"rrule-oracle: no zone {zone_name}")
            dtstart = datetime.datetime.fromisoformat(start).replace(tzinfo=zone)
            after, window_end = int(after), int(window_end)
            first, following, window = [], None, []
            for occurrence in rrule.rrulestr(text, dtstart=dtstart):
                if occurrence.year > horizon:
                    break
                t = epoch(occurrence)
                if until.startswith("u") and t > int(until[1:]):
                    break
                if until.startswith("d") and occurrence.date() > datetime.date.fromisoformat(until[1:]):
                    break
                if len(first) < 15:
                    first.append(t)
                if following is None and t > after:
                    following = t
                if after <= t <= window_end and len(window) < 100:
                    window.append(t)
                if len(first) >= 15 and following is not None and t > window_end:
                    break
            out.append(" ".join(map(str, first)) + " | " + ("none" if following is None else str(following))
                       + " | " + " ".join(map(str, window)))
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
