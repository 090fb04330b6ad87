#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/hostile-remote.py MODE PORTFILE: a remote cache that answers
# without end, on 127.0.0.1 (a port of its own, written to PORTFILE), for
# t0105-remote-trust. MODE says how:
#   entry         a GET gets 200 and a body that never ends (no length)
#   entry-length  the same, announced as 1 TiB (Content-Length)
#   error         a GET gets 500 and an error page that never ends
#   put           a GET gets 404; a PUT gets 201 and a body that never ends
# The bodies come at about 200 MiB/s, as a fast network would bring them.
# It serves until it is killed, or for 300 s at most.
import http.server
import os
import socketserver
import sys
import threading
import time

MODE, PORTFILE = sys.argv[1], sys.argv[2]
CHUNK = b"\0" * (1 << 20)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # the body ends when the connection does

    def log_message(self, *args):
        pass

    def endless(self, status, length=None):
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        if length is not None:
            self.send_header("Content-Length", str(length))
        self.end_headers()
        try:
            while True:
                self.wfile.write(CHUNK)
                time.sleep(0.005)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self):
        if MODE == "entry":
            self.endless(200)
        elif MODE == "entry-length":
            self.endless(200, 1 << 40)
        elif MODE == "error":
            self.endless(500)
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

    def do_PUT(self):
        n = int(self.headers.get("Content-Length", "0"))
        while n > 0:
            got = self.rfile.read(min(n, 1 << 16))
            if not got:
                break
            n -= len(got)
        self.endless(201)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


server = Server(("127.0.0.1", 0), Handler)
tmp = PORTFILE + ".tmp"
with open(tmp, "w") as f:
    f.write("%d\n" % server.server_address[1])
os.rename(tmp, PORTFILE)
threading.Timer(300, os._exit, (0,)).start()
server.serve_forever()
