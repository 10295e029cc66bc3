#!/usr/bin/env python3
"""A stand-in org.freedesktop.login1 for todod's resume tests.

Run with a private bus in DBUS_SYSTEM_BUS_ADDRESS (todod reads the same variable):
    login1-stand-in.py READY_FILE
It owns org.freedesktop.login1 and writes READY_FILE when it does. A test makes it emit logind's
signal by calling its extra method
    org.todod.Test.Sleep(b start)
which emits org.freedesktop.login1.Manager.PrepareForSleep(start) from /org/freedesktop/login1
(true: about to sleep, false: resumed), then answers: once the answer is back, the signal left.
Needs jeepney (scripts/test installs it into .build/test-venv).
"""
import os
import sys

from jeepney import DBusAddress, HeaderFields, MessageType, new_error, new_method_return, new_signal
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

NAME = "org.freedesktop.login1"
EMITTER = DBusAddress("/org/freedesktop/login1", interface="org.freedesktop.login1.Manager")


def main():
    ready = sys.argv[1]
    conn = open_dbus_connection(bus=os.environ["DBUS_SYSTEM_BUS_ADDRESS"])
    reply = conn.send_and_get_reply(message_bus.RequestName(NAME, 4))  # DO_NOT_QUEUE
    if reply.body[0] != 1:
        sys.exit("cannot own " + NAME)
    with open(ready, "w") as f:
        f.write("ready\n")
    while True:
        msg = conn.receive()
        if msg.header.message_type != MessageType.method_call:
            continue
        fields = msg.header.fields
        if fields.get(HeaderFields.member) == "Sleep" and fields.get(HeaderFields.interface) == "org.todod.Test":
            conn.send(new_signal(EMITTER, "PrepareForSleep", "b", (bool(msg.body[0]),)))
            conn.send(new_method_return(msg))
        else:
            conn.send(new_error(msg, "org.freedesktop.DBus.Error.UnknownMethod", "s", ("unknown method",)))


if __name__ == "__main__":
    main()
