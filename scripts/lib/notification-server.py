#!/usr/bin/env python3
"""A stand-in org.freedesktop.Notifications server for todod-notify's tests.

Run with the session bus in DBUS_SESSION_BUS_ADDRESS:
    notification-server.py RECORD_FILE [--slow PREFIX SECONDS]
It owns org.freedesktop.Notifications, answers Notify with a new id and appends one JSON line per
call to RECORD_FILE ({"id", "app", "replaces", "icon", "summary", "body", "actions", "hints",
"expire", "time", "sender"}; time is when the call arrived, seconds since the epoch, sender the
caller's unique name). Each CloseNotification appends {"id", "time", "sender"} to
RECORD_FILE.closes. With --slow, a Notify whose summary starts with PREFIX is shown (recorded) at
once but answered SECONDS later, as a stuck server would; the answer's time goes to
RECORD_FILE.replies ({"id", "time"}). When it owns the name it writes RECORD_FILE.ready. Tests
press a button by calling its extra method
    org.todod.Test.Invoke(u id, s action)
which emits ActionInvoked(id, action) and NotificationClosed(id, 2) as a real server does.

    notification-server.py --spoof DESTINATION ID ACTION
instead connects as another peer (owning nothing) and sends a unicast ActionInvoked(ID, ACTION)
to DESTINATION, as an attacker on the session bus could.
Needs jeepney (scripts/test installs it into .build/test-venv).
"""
import json
import sys
import time

from jeepney import DBusAddress, HeaderFields, MessageType, new_error, new_method_return, new_signal
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
EMITTER = DBusAddress(PATH, interface=NAME)


def plain(value):
    """jeepney's variants are (signature, value) pairs: keep the value."""
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str):
        return plain(value[1])
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value


def spoof(destination, nid, action):
    conn = open_dbus_connection(bus="SESSION")
    msg = new_signal(EMITTER, "ActionInvoked", "us", (int(nid), action))
    msg.header.fields[HeaderFields.destination] = destination
    conn.send(msg)
    conn.send_and_get_reply(message_bus.GetId())  # the signal left before this answer came
    conn.close()


def main():
    if sys.argv[1] == "--spoof":
        spoof(*sys.argv[2:5])
        return
    record = sys.argv[1]
    slow_prefix, slow_delay = None, 0.0
    if len(sys.argv) >= 5 and sys.argv[2] == "--slow":
        slow_prefix, slow_delay = sys.argv[3], float(sys.argv[4])
    delayed = []  # (when, message, id)
    conn = open_dbus_connection(bus="SESSION")
    # A call the bus queued for us while starting us on demand (D-Bus activation) may arrive
    # before the answer to RequestName: keep it for the loop below.
    early = []
    serial = 1_000_000
    conn.send(message_bus.RequestName(NAME, 4), serial=serial)  # DO_NOT_QUEUE
    while True:
        reply = conn.receive()
        if reply.header.fields.get(HeaderFields.reply_serial) == serial:
            break
        early.append(reply)
    if reply.body[0] != 1:
        sys.exit("cannot own " + NAME)
    with open(record + ".ready", "w") as f:
        f.write("ready\n")
    next_id = 0
    out = open(record, "a", buffering=1)
    closes = open(record + ".closes", "a", buffering=1)
    replies = open(record + ".replies", "a", buffering=1)
    while True:
        timeout = None
        if delayed:
            timeout = max(0.0, min(d[0] for d in delayed) - time.time())
        try:
            msg = early.pop(0) if early else conn.receive(timeout=timeout)
        except TimeoutError:
            msg = None
        now = time.time()
        for d in [d for d in delayed if d[0] <= now]:
            delayed.remove(d)
            conn.send(new_method_return(d[1], "u", (d[2],)))
            replies.write(json.dumps({"id": d[2], "time": time.time()}) + "\n")
        if msg is None or msg.header.message_type != MessageType.method_call:
            continue
        fields = msg.header.fields
        member = fields.get(HeaderFields.member)
        iface = fields.get(HeaderFields.interface)
        if member == "Notify":
            arrived = time.time()
            app, replaces, icon, summary, body, actions, hints, expire = msg.body
            next_id += 1
            nid = replaces or next_id
            if slow_prefix is not None and summary.startswith(slow_prefix):
                delayed.append((arrived + slow_delay, msg, nid))
            else:
                conn.send(new_method_return(msg, "u", (nid,)))
            out.write(json.dumps({"id": nid, "app": app, "replaces": replaces, "icon": icon, "summary": summary,
                                  "body": body, "actions": list(actions),
                                  "hints": {k: plain(v) for k, v in hints.items()}, "expire": expire,
                                  "time": arrived, "sender": fields.get(HeaderFields.sender)}, ensure_ascii=False) + "\n")
        elif member == "GetCapabilities":
            conn.send(new_method_return(msg, "as", (["actions", "body"],)))
        elif member == "GetServerInformation":
            conn.send(new_method_return(msg, "ssss", ("stand-in", "todod tests", "1", "1.2")))
        elif member == "CloseNotification":
            closes.write(json.dumps({"id": msg.body[0], "time": time.time(), "sender": fields.get(HeaderFields.sender)}) + "\n")
            conn.send(new_method_return(msg))
            conn.send(new_signal(EMITTER, "NotificationClosed", "uu", (msg.body[0], 3)))
        elif member == "Invoke" and iface == "org.todod.Test":
            nid, action = msg.body
            conn.send(new_signal(EMITTER, "ActionInvoked", "us", (nid, action)))
            conn.send(new_signal(EMITTER, "NotificationClosed", "uu", (nid, 2)))
            conn.send(new_method_return(msg))
        elif member in ("Introspect", "Ping", "GetMachineId"):
            conn.send(new_method_return(msg, "s", ("",)) if member != "Ping" else new_method_return(msg))
        else:
            conn.send(new_error(msg, "org.freedesktop.DBus.Error.UnknownMethod", "s", ("unknown method " + str(member),)))


if __name__ == "__main__":
    main()
