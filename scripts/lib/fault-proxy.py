#!/usr/bin/env python3
"""An HTTP reverse proxy on 127.0.0.1 that injects faults, for the CalDAV and sync tests.

It forwards every request to UPSTREAM (keeping one upstream connection per client connection)
and, when told to, instead:

  drop        reads the request and closes the connection without answering
  delay       waits --delay seconds (default 3) before forwarding (a slow server)
  cut         forwards, then sends the answer's headers and only half its body, and closes
  500, 503    answers that status without forwarding
  412         answers 412 to a write (PUT, DELETE, MKCALENDAR, PROPPATCH, MOVE, COPY) without
              forwarding it; other requests pass
  canned      (on demand only) answers with a given status, body and headers without forwarding:
              a server misbehaving in a way the real ones do not (507 truncation, weak ETags ...)

Faults come from two places:
  * at random: --seed N --rate P --faults drop,delay,cut,500,503,412 gives each request the
    probability P of one fault drawn from the list (the same seed, the same sequence);
  * on demand: a request to the proxy itself, GET /__fault__?kind=KIND&count=N[&method=PUT],
    queues KIND for the next N requests (of that method, when given); for canned add
    &status=CODE&body=FILE (the body is read from FILE) and any number of &header=Name:%20value;
    GET /__fault__?clear=1
    empties the queue and sets the random rate to 0. Queued faults come before random ones.

Every request is logged to --log (default stderr) as one line: "pass METHOD PATH STATUS" or
"fault KIND METHOD PATH". The port it listens on (--port, default 0: any free one) is written to
--port-file once it accepts connections. With --tls-cert and --tls-key it speaks HTTPS to its
clients (a certificate no client trusts, for the TLS failure tests). With --exit-on-stdin-eof it exits when its standard
input closes (so it dies with the test process that started it even when that is killed).

  scripts/lib/fault-proxy.py --upstream http://127.0.0.1:5232 --port-file /tmp/p/port \\
      --log /tmp/p/log --seed 7 --rate 0.2 --faults drop,cut,500,412

Python standard library only.
"""
import argparse
import http.client
import http.server
import os
import random
import socketserver
import ssl
import sys
import threading
import time
import urllib.parse

WRITES = {"PUT", "DELETE", "MKCALENDAR", "MKCOL", "PROPPATCH", "MOVE", "COPY"}
KINDS = {"drop", "delay", "cut", "500", "503", "412", "canned"}
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"}


class Faults:
    """The queue of faults asked for and the seeded random source, shared by all connections."""

    def __init__(self, seed, rate, kinds, log):
        self.lock = threading.Lock()
        self.queue = []  # [kind, remaining, method or None]
        self.random = random.Random(seed)
        self.rate = rate
        self.kinds = kinds
        self.log_file = log

    def log(self, line):
        with self.lock:
            self.log_file.write(line + "\n")
            self.log_file.flush()

    def control(self, query):
        params = urllib.parse.parse_qs(query)
        with self.lock:
            if "clear" in params:
                self.queue.clear()
                self.rate = 0.0
                return "cleared"
            kind = params.get("kind", [""])[0]
            if kind not in KINDS:
                return None
            count = int(params.get("count", ["1"])[0])
            method = params.get("method", [None])[0]
            canned = None
            if kind == "canned":
                with open(params["body"][0], "rb") as f:
                    body = f.read()
                headers = [tuple(h.split(":", 1)) for h in params.get("header", [])]
                canned = (int(params.get("status", ["200"])[0]), body, [(n.strip(), v.strip()) for n, v in headers])
            self.queue.append([kind, count, method.upper() if method else None, canned])
            return f"queued {kind} x{count}" + (f" for {method}" if method else "")

    def choose(self, method):
        """The fault for this request, or None to pass it through."""
        with self.lock:
            for entry in self.queue:
                kind, remaining, only, canned = entry
                if only is not None and only != method:
                    continue
                if kind == "412" and method not in WRITES:
                    continue
                entry[1] -= 1
                if entry[1] <= 0:
                    self.queue.remove(entry)
                return kind, canned
            if self.rate > 0 and self.kinds and self.random.random() < self.rate:
                kind = self.random.choice(self.kinds)
                if kind == "412" and method not in WRITES:
                    return None, None
                return kind, None
        return None, None


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fault-proxy"

    def log_message(self, format, *args):  # the log has our own lines only
        pass

    def upstream_connection(self):
        if getattr(self, "upstream", None) is None:
            target = self.server.upstream
            self.upstream = http.client.HTTPConnection(target.hostname, target.port or 80, timeout=60)
        return self.upstream

    def handle_any(self):
        faults = self.server.faults
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length > 0 else b""
        path = self.path
        if path.startswith("/__fault__"):
            answer = faults.control(urllib.parse.urlsplit(path).query)
            self.answer(200 if answer else 400, (answer or "unknown fault kind").encode())
            return
        kind, canned = faults.choose(self.command)
        if kind == "canned":
            faults.log(f"fault canned {self.command} {path} {canned[0]} request={body[:2000]!r}")
            status, data, headers = canned
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        if kind is not None:
            faults.log(f"fault {kind} {self.command} {path}")
        if kind == "drop":
            self.close_connection = True
            self.connection.shutdown(2)
            return
        if kind in ("500", "503", "412"):
            self.answer(int(kind), f"fault-proxy: injected {kind}\n".encode())
            return
        if kind == "delay":
            time.sleep(self.server.delay)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP and k.lower() != "host"}
        headers["Host"] = self.server.upstream.netloc
        try:
            connection = self.upstream_connection()
            try:
                connection.request(self.command, path, body=body, headers=headers)
                response = connection.getresponse()
            except (http.client.HTTPException, OSError):
                connection.close()  # the upstream closed a kept-alive connection: once more
                connection.request(self.command, path, body=body, headers=headers)
                response = connection.getresponse()
            data = response.read()
        except (http.client.HTTPException, OSError) as error:
            self.upstream = None
            faults.log(f"upstream-error {self.command} {path} {error}")
            self.answer(502, b"fault-proxy: upstream failed\n")
            return
        if response.getheader("Connection", "").lower() == "close" or response.version == 10:
            connection.close()
            self.upstream = None
        if kind != "cut":  # logged before answering: a client that has its answer finds its line
            faults.log(f"pass {self.command} {path} {response.status}")
        self.send_response(response.status, response.reason)
        for name, value in response.getheaders():
            if name.lower() not in HOP_BY_HOP and name.lower() != "content-length":
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if kind == "cut":
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)
            return
        self.wfile.write(data)

    def answer(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def __getattr__(self, name):  # do_GET, do_PUT, do_REPORT ...: every method is forwarded
        if name.startswith("do_"):
            return self.handle_any
        raise AttributeError(name)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    parser = argparse.ArgumentParser(description="HTTP reverse proxy that injects faults")
    parser.add_argument("--upstream", required=True, help="http://HOST:PORT of the real server")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file")
    parser.add_argument("--log")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rate", type=float, default=0.0)
    parser.add_argument("--faults", default="", help="comma-separated kinds for --rate")
    parser.add_argument("--delay", type=float, default=3.0, help="seconds a delay fault waits")
    parser.add_argument("--tls-cert", help="serve HTTPS with this certificate (PEM) ...")
    parser.add_argument("--tls-key", help="... and this private key (PEM)")
    parser.add_argument("--exit-on-stdin-eof", action="store_true")
    args = parser.parse_args()
    kinds = [k for k in args.faults.split(",") if k]
    for k in kinds:
        if k not in KINDS:
            parser.error(f"unknown fault kind {k!r} (known: {', '.join(sorted(KINDS))})")
    log = open(args.log, "a", buffering=1) if args.log else sys.stderr
    server = Server(("127.0.0.1", args.port), Handler)
    if args.tls_cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.tls_cert, args.tls_key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    server.upstream = urllib.parse.urlsplit(args.upstream)
    server.delay = args.delay
    server.faults = Faults(args.seed, args.rate, kinds, log)
    port = server.server_address[1]
    server.faults.log(f"listening on 127.0.0.1:{port} for {args.upstream} seed={args.seed} rate={args.rate}")
    if args.exit_on_stdin_eof:
        def watch():
            sys.stdin.buffer.read()
            os._exit(0)
        threading.Thread(target=watch, daemon=True).start()
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(f"{port}\n")
        os.rename(args.port_file + ".tmp", args.port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
