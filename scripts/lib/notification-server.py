#!/usr/bin/env python3
"""A stand-in org.freedesktop.Notifications server for todod-notify's tests.

Run with the session bus in DBUS_SESSION_BUS_ADDRESS:
    notification-server.py RECORD_FILE
It owns org.freedesktop.Notifications, answers Notify with a new id and appends one JSON line per
call to RECORD_FILE ({"id", "app", "replaces", "icon", "summary", "body", "actions", "hints",
"expire", "time"}; time is when the call arrived, seconds since the epoch). When it owns the name it
writes RECORD_FILE.ready. Tests press a button by calling its extra method
    org.todod.Test.Invoke(u id, s action)
which emits ActionInvoked(id, action) and NotificationClosed(id, 2) as a real server does.
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


def main():
    record = sys.argv[1]
    conn = open_dbus_connection(bus="SESSION")
    reply = conn.send_and_get_reply(message_bus.RequestName(NAME, 4))  # DO_NOT_QUEUE
    if reply.body[0] != 1:
        sys.exit("cannot own " + NAME)
    with open(record + ".ready", "w") as f:
        f.write("ready\n")
    next_id = 0
    out = open(record, "a", buffering=1)
    while True:
        msg = conn.receive()
        if msg.header.message_type != MessageType.method_call:
            continue
        fields = msg.header.fields
        member = fields.get(HeaderFields.member)
        iface = fields.get(HeaderFields.interface)
        if member == "Notify":
            arrived = time.time()
            app, replaces, icon, summary, body, actions, hints, expire = msg.body
            next_id += 1
            nid = replaces or next_id
            conn.send(new_method_return(msg, "u", (nid,)))
            out.write(json.dumps({"id": nid, "app": app, "replaces": replaces, "icon": icon, "summary": summary,
                                  "body": body, "actions": list(actions),
                                  "hints": {k: plain(v) for k, v in hints.items()}, "expire": expire,
                                  "time": arrived}, ensure_ascii=False) + "\n")
        elif member == "GetCapabilities":
            conn.send(new_method_return(msg, "as", (["actions", "body"],)))
        elif member == "GetServerInformation":
            conn.send(new_method_return(msg, "ssss", ("stand-in", "todod tests", "1", "1.2")))
        elif member == "CloseNotification":
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
