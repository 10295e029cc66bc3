#!/usr/bin/env python3
"""Compares iCalendar files property by property with the icalendar library (the corpus tests
run this with the test venv's python).

    ical-compare.py ORIGINAL EXPORTED [ORIGINAL EXPORTED ...]

For each VTODO of ORIGINAL (by UID and RECURRENCE-ID) and each of its VALARMs (in order), every
property of ORIGINAL must be in the same component of EXPORTED. Writes one line per finding:
    lost<TAB>FILE<TAB>COMPONENT<TAB>PROPERTY          (not in the export: must not happen)
    rewritten<TAB>FILE<TAB>COMPONENT<TAB>PROPERTY     (there, with another value that means the same
                                                      instant or the same values in another order)
    changed<TAB>FILE<TAB>COMPONENT<TAB>PROPERTY<TAB>ORIGINAL<TAB>EXPORTED   (another meaning)
"""
import os
import sys
import zoneinfo

import icalendar

# Properties the writer sets itself on every export (when it was written, by whom).
OWN = {"DTSTAMP", "LAST-MODIFIED", "X-APPLE-SORT-ORDER"}
# Values RFC 5545 gives a property that is absent: leaving them out says the same.
DEFAULTS = {("PRIORITY", "0"), ("PERCENT-COMPLETE", "0"), ("CLASS", "PUBLIC")}
# The zone floating times were read in (ORIGINAL's floating times are that zone's wall clock).
ZONE = zoneinfo.ZoneInfo(os.environ.get("ICAL_COMPARE_ZONE", "UTC"))


def values(component, name):
    v = component.get(name)
    return v if isinstance(v, list) else [v]


def normal(v):
    if hasattr(v, "dt"):
        dt = v.dt
        if hasattr(dt, "timestamp"):
            return ("dt", (dt if dt.tzinfo else dt.replace(tzinfo=ZONE)).timestamp())
        return ("dt", str(dt))
    if hasattr(v, "dts"):
        return ("dts", tuple(sorted(normal(x) for x in v.dts)))
    if hasattr(v, "cats"):
        return ("cats", tuple(v.cats))
    if isinstance(v, dict):  # vRecur
        return ("recur", tuple(sorted((k, tuple(x) if isinstance(x, list) else x) for k, x in v.items())))
    return ("text", v.to_ical() if hasattr(v, "to_ical") else str(v))


def todos(cal):
    out = {}
    for c in cal.walk("VTODO"):
        key = (str(c.get("UID", "")), str(c.get("RECURRENCE-ID").to_ical() if c.get("RECURRENCE-ID") else ""))
        out[key] = c
    return out


def compare(label, original, exported):
    a, b = todos(original), todos(exported)
    for key, c in a.items():
        d = b.get(key)
        if d is None and key[0] == "":  # a VTODO without UID gets one made
            d = next(iter(b.values()), None) if len(a) == 1 else None
        if d is None:
            print(f"lost\t{label}\tVTODO {key}\t(the component)")
            continue
        pairs = [("VTODO", c, d)] + [(f"VALARM {i + 1}", x, y) for i, (x, y) in enumerate(
            zip([s for s in c.subcomponents if s.name == "VALARM"], [s for s in d.subcomponents if s.name == "VALARM"]))]
        if len([s for s in c.subcomponents if s.name == "VALARM"]) > len([s for s in d.subcomponents if s.name == "VALARM"]):
            print(f"lost\t{label}\tVTODO\tVALARM")
        for where, x, y in pairs:
            for name in x.keys():
                if name in OWN:
                    continue
                other = name.replace("_", "-")  # Synology's PERCENT_COMPLETE is read as PERCENT-COMPLETE
                if name not in y and other not in y:
                    original_values = [v.to_ical().decode() if hasattr(v, "to_ical") else str(v) for v in values(x, name)]
                    if all(not v.strip() for v in original_values):
                        print(f"rewritten\t{label}\t{where}\t{name} (empty)")
                    elif all((name, v.strip().upper()) in DEFAULTS for v in original_values):
                        print(f"rewritten\t{label}\t{where}\t{name} (default {original_values[0]})")
                    else:
                        print(f"lost\t{label}\t{where}\t{name}")
                    continue
                if name not in y:
                    print(f"rewritten\t{label}\t{where}\t{name} (as {other})")
                    continue
                p = sorted(map(normal, values(x, name)), key=repr)
                q = sorted(map(normal, values(y, name)), key=repr)
                if p == q:
                    if [v.to_ical() for v in values(x, name)] != [v.to_ical() for v in values(y, name)]:
                        print(f"rewritten\t{label}\t{where}\t{name}")
                else:
                    print(f"changed\t{label}\t{where}\t{name}\t{p}\t{q}")


def main(args):
    for i in range(0, len(args), 2):
        with open(args[i], "rb") as f:
            original = icalendar.Calendar.from_ical(f.read())
        with open(args[i + 1], "rb") as f:
            exported = icalendar.Calendar.from_ical(f.read())
        compare(args[i], original, exported)


if __name__ == "__main__":
    main(sys.argv[1:])
