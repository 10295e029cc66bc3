#!/usr/bin/env python3
"""Minimal todod client: adds a todo and lists the open ones (Python 3 stdlib only)."""
import json, os, socket, sys

def socket_path():
    if os.environ.get("TODOD_SOCKET"):
        return os.environ["TODOD_SOCKET"]
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if os.getuid() == 0 and not runtime:
        return "/run/todod/todod.sock"
    return (runtime or f"/run/user/{os.getuid()}") + "/todod/todod.sock"

class Client:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.lines = self.sock.makefile("r", encoding="utf-8", newline="\n")
        self.next_id = 0

    def call(self, method, **params):
        self.next_id += 1
        request = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.sock.sendall(json.dumps(request, ensure_ascii=False).encode() + b"\n")
        while True:
            reply = json.loads(self.lines.readline())
            if reply.get("id") == self.next_id:  # skips `event` notifications
                if "error" in reply:
                    raise RuntimeError(f"{reply['error']['code']}: {reply['error']['message']}")
                return reply["result"]

client = Client(sys.argv[1] if len(sys.argv) > 1 else socket_path())
todo = client.call("todo.add", title="Buy milk", category="Home", due="2026-12-01T09:00:00Z")
print(f"added #{todo['id']} at position {todo['position']}")
page = client.call("todo.list", status="open", limit=20)
for t in page["todos"]:
    print(f"{t['position']:>3}  #{t['id']:<4} {t['title']}  due={t['due']}  [{t['category'] or '-'}]")
print(f"{page['total']} open")
