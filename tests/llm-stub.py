#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/llm-stub.py: a loopback stub of the OpenAI chat-completions API
and the Anthropic messages API, for the shell tests (see stub_start in
tests/lib.sh).

  python3 tests/llm-stub.py --script FILE --log DIR --port-file FILE
                            [--port N] [--pid-file FILE] [--watch-pid PID]

It listens on 127.0.0.1 (port N, default 0: any free one), writes the port
to --port-file once it listens, and serves until SIGTERM or SIGINT (or,
with --watch-pid, until process PID is gone).

Endpoints (POST): /v1/chat/completions and /chat/completions (OpenAI),
/v1/messages (Anthropic); anything else gets 404.

Each request is logged to DIR/NNNN.json (0001, 0002, ... in order of
arrival): seq, path, api, headers (names lowercased), body (parsed JSON,
or the raw text), prompt (every text of the request joined with blank
lines: the Anthropic system field first, then each message's content),
rule and step (0-based indices of what answered, null if none), fault,
t_start and t_end.  The record is written just before the answer's last
bytes are sent (or before the connection is dropped), so a client that
has its answer always finds the record.

The script (JSON, re-read whenever it changes):

  {"rules": [{"match": "SUBSTRING" or null,
              "responses": [STEP, ...],
              "repeat": "last" | "cycle"}, ...]}

The script may also have "chaos" (an object, all optional), faults and
latency drawn at random for every API request, to load a client:

  {"chaos": {"seed": N, "latency": SECONDS or [LO, HI],
             "faults": {"FAULT": PROBABILITY, ...}, "hang": SECONDS},
   "rules": [...]}

Each request first waits the latency (uniform in [LO, HI]), then, with
the given probability, gets FAULT (any fault below) instead of its rule's
answer; no rule is asked then (no step is spent), and the record has
"chaos": true.  "hang" is the seconds a "hang" fault holds the
connection (default 600).  Draws come from one generator seeded with
"seed" (default 0).

The first rule whose match occurs in the prompt (or whose match is null or
absent) answers, with its steps in turn; past the last step, "last" (the
default) repeats the last one and "cycle" starts over.  No rule: 500.
An OpenAI request with "n": K gets K choices, from the rule's next K
steps (text, finish and usage out; the first step's delay and fault),
unless the rule has "ignore_n": true, which plays a server that answers
one choice whatever n is; the record then has "choices": K.
STEP (all optional):
  text        the answer ("")
  text_file   a file, relative to the script's directory, whose content
              is the answer (wins over text)
  finish      "stop" (default) or "length" (Anthropic: end_turn and
              max_tokens); other values pass through
  usage       {"in": N, "out": M}; by default len(prompt)//4 and
              len(text)//4, at least 1
  logprobs    {"TOKEN": LOGPROB, ...} (OpenAI): the first choice gets
              "logprobs": {"content": [{"token": TEXT, "logprob": ...,
              "top_logprobs": [{"token": TOKEN, "logprob": LOGPROB},
              ...]}]}, as a server asked for "logprobs" answers
  delay       seconds to wait before answering (faults too), or [LO, HI]:
              a uniform random wait between the two
  hang        seconds a "hang" fault holds the connection (600)
  fault       null, "429" (Retry-After: retry_after, default 1), "quota"
              (429, insufficient_quota, no Retry-After), "400", "401",
              "403", "404", "500", "529" (error status and JSON body),
              "malformed" (200, invalid JSON), "truncated" (200, half the
              body under the full Content-Length, then the socket is
              closed), "truncated-reset" (the same, but the connection
              is reset), "empty" (200, no choices / no content blocks),
              "reset" (no answer: the connection is reset), "hang" (no
              answer: the connection is held open and silent until the
              client goes or "hang" seconds pass, then closed)
"""

import argparse
import json
import os
import random
import select
import signal
import socket
import socketserver
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

OPENAI_PATHS = ("/v1/chat/completions", "/chat/completions")
ANTHROPIC_PATHS = ("/v1/messages",)

# fault -> (status, error type)
ERROR_FAULTS = {
    "400": (400, "invalid_request_error"),
    "401": (401, "authentication_error"),
    "403": (403, "permission_error"),
    "404": (404, "not_found_error"),
    "500": (500, "api_error"),
    "529": (529, "overloaded_error"),
}
STATUS_TEXT = {529: "Overloaded"}
ANTHROPIC_STOP = {"stop": "end_turn", "length": "max_tokens"}


def write_atomic(path, data):
    """Write DATA (str or bytes) to PATH through a temporary file."""
    d, b = os.path.split(path)
    tmp = os.path.join(d, ".%s.%d.%d.tmp" % (b, os.getpid(),
                                            threading.get_ident()))
    mode = "wb" if isinstance(data, bytes) else "w"
    kw = {} if isinstance(data, bytes) else {"encoding": "utf-8"}
    with open(tmp, mode, **kw) as f:
        f.write(data)
    os.replace(tmp, path)


def texts_of(content):
    """The texts of a content field: a string, or a list of blocks."""
    if isinstance(content, str):
        return [content]
    out = []
    if isinstance(content, list):
        for b in content:
            if isinstance(b, str):
                out.append(b)
            elif isinstance(b, dict) and isinstance(b.get("text"), str):
                out.append(b["text"])
    return out


def prompt_of(api, body):
    if not isinstance(body, dict):
        return ""
    parts = []
    if api != "openai":
        parts += texts_of(body.get("system"))
    msgs = body.get("messages")
    if isinstance(msgs, list):
        for m in msgs:
            if isinstance(m, dict):
                parts += texts_of(m.get("content"))
    return "\n\n".join(parts)


def span(v, rng):
    """Seconds from V: a number, or [LO, HI] drawn uniformly by RNG."""
    if isinstance(v, (list, tuple)) and len(v) == 2:
        return rng.uniform(float(v[0]), float(v[1]))
    return float(v or 0)


def error_body(api, etype, message, code=None):
    err = {"type": etype, "message": message}
    if code is not None:
        err["code"] = code
    if api == "anthropic":
        return {"type": "error", "error": err}
    return {"error": err}


class Script:
    """The rules, re-read when the file changes; per-rule step counters."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        self.dir = os.path.dirname(self.path)
        self.lock = threading.Lock()
        self.key = None
        self.rules = []
        self.counters = []
        self.chaos = {}
        self.rng = random.Random(0)
        self.error = None

    def _parse(self):
        with open(self.path, encoding="utf-8") as f:
            data = json.load(f)
        if not isinstance(data, dict) or not isinstance(data.get("rules"),
                                                        list):
            raise ValueError('the script is not {"rules": [...]}')
        for i, r in enumerate(data["rules"]):
            if not isinstance(r, dict):
                raise ValueError("rule %d is not an object" % i)
            m = r.get("match")
            if m is not None and not isinstance(m, str):
                raise ValueError("rule %d: match is not a string" % i)
            steps = r.get("responses", [])
            if not isinstance(steps, list) or not all(
                    isinstance(s, dict) for s in steps):
                raise ValueError("rule %d: responses is not a list of "
                                 "objects" % i)
            if r.get("repeat", "last") not in ("last", "cycle"):
                raise ValueError("rule %d: repeat is not last or cycle" % i)
        chaos = data.get("chaos") or {}
        if not isinstance(chaos, dict) or not isinstance(
                chaos.get("faults", {}), dict):
            raise ValueError('chaos is not {"faults": {...}, ...}')
        return data["rules"], chaos

    def _load(self):
        # Under self.lock.  A script caught half written is retried.
        for attempt in range(10):
            try:
                st = os.stat(self.path)
            except OSError as e:
                self.key = None
                self.error = "stub: cannot read the script: %s" % e
                return
            key = (st.st_mtime_ns, st.st_size, st.st_ino)
            if key == self.key:
                return
            try:
                rules, chaos = self._parse()
            except (OSError, ValueError) as e:
                self.key = None
                self.error = "stub: bad script %s: %s" % (self.path, e)
                time.sleep(0.05)
                continue
            self.key = key
            self.rules = rules
            self.counters = [0] * len(rules)
            self.chaos = chaos
            self.rng = random.Random(chaos.get("seed", 0))
            self.error = None
            return

    def draw_chaos(self):
        """(latency in seconds, fault or None, hang seconds) for one
        request, from the script's "chaos"."""
        with self.lock:
            self._load()
            c = self.chaos
            if self.error or not c:
                return 0, None, None
            delay = span(c.get("latency"), self.rng)
            fault, x = None, self.rng.random()
            for f, p in sorted(c.get("faults", {}).items()):
                if x < p:
                    fault = f
                    break
                x -= p
            return delay, fault, c.get("hang")

    def pick(self, prompt):
        """(rule index, step index, step, error message)."""
        with self.lock:
            self._load()
            if self.error:
                return None, None, None, self.error
            for i, rule in enumerate(self.rules):
                m = rule.get("match")
                if m is not None and m not in prompt:
                    continue
                steps = rule.get("responses") or [{}]
                n = self.counters[i]
                self.counters[i] += 1
                if n >= len(steps):
                    if rule.get("repeat", "last") == "cycle":
                        n %= len(steps)
                    else:
                        n = len(steps) - 1
                return i, n, steps[n], None
            return None, None, None, "stub: no rule matches"


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def server_bind(self):
        # HTTPServer.server_bind looks the host name up; not needed here.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]

    def next_seq(self):
        with self.seq_lock:
            self.seq += 1
            return self.seq

    def handle_error(self, request, client_address):
        e = sys.exc_info()[1]
        if isinstance(e, (ConnectionError, socket.timeout)):
            return
        super().handle_error(request, client_address)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "llm-stub/1"
    sys_version = ""
    disable_nagle_algorithm = True

    def log_message(self, format, *args):
        pass

    def do_POST(self):
        self.serve(True)

    def do_GET(self):
        self.serve(False)

    do_PUT = do_DELETE = do_PATCH = do_GET

    # -- plumbing --------------------------------------------------------

    def read_body(self):
        te = self.headers.get("Transfer-Encoding", "")
        if "chunked" in te.lower():
            data = b""
            while True:
                line = self.rfile.readline(65537)
                size = int(line.split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(65537) not in (b"\r\n", b"\n",
                                                             b""):
                        pass
                    return data
                data += self.rfile.read(size)
                self.rfile.readline(65537)
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n > 0 else b""

    def save(self):
        rec = self.rec
        rec["t_end"] = time.time()
        name = "%04d.json" % rec["seq"]
        write_atomic(os.path.join(self.server.logdir, name),
                     json.dumps(rec, indent=1, ensure_ascii=False) + "\n")

    def head(self, status, length, extra=()):
        self.send_response(status, STATUS_TEXT.get(status))
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(length))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()

    def answer(self, status, obj, extra=()):
        data = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
        self.save()
        self.head(status, len(data), extra)
        self.wfile.write(data)

    def drop(self, reset):
        """Close the connection: a reset (RST) or a plain close (FIN)."""
        self.close_connection = True
        sock = self.connection
        try:
            if reset:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                struct.pack("ii", 1, 0))
            else:
                sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        # The socket closes for real once its reader is closed too (the
        # writer does not hold it open); later flushes of the writer are
        # harmless no-ops.
        try:
            self.rfile.close()
        except OSError:
            pass
        sock.close()

    def hang(self, secs):
        """Hold the connection, silent, until the client closes it (EOF
        or an error on the socket) or SECS pass."""
        end = time.time() + secs
        sock = self.connection
        while True:
            left = end - time.time()
            if left <= 0:
                return
            try:
                r, _, _ = select.select([sock], [], [], min(left, 0.5))
                if r:
                    if not sock.recv(4096, socket.MSG_PEEK):
                        return
                    time.sleep(min(left, 0.5))  # more bytes: not an EOF
            except (OSError, ValueError):
                return

    # -- the request -----------------------------------------------------

    def serve(self, post):
        t_start = time.time()
        seq = self.server.next_seq()
        raw = self.read_body()
        path = self.path.split("?", 1)[0]
        api = None
        if post and path in OPENAI_PATHS:
            api = "openai"
        elif post and path in ANTHROPIC_PATHS:
            api = "anthropic"
        try:
            body = json.loads(raw.decode("utf-8"))
        except ValueError:
            body = raw.decode("utf-8", "replace")
        prompt = prompt_of(api, body)
        self.rec = {
            "seq": seq, "path": self.path, "api": api,
            "headers": {},
            "body": body, "prompt": prompt,
            "rule": None, "step": None, "fault": None,
            "t_start": t_start, "t_end": None,
        }
        hdrs = self.rec["headers"]
        for k, v in self.headers.items():
            k = k.lower()
            hdrs[k] = hdrs[k] + ", " + v if k in hdrs else v
        if api is None:
            self.answer(404, error_body(
                api, "not_found_error",
                "stub: no such endpoint: %s %s" % (self.command, path)))
            return

        script = self.server.script
        latency, chaos_fault, chaos_hang = script.draw_chaos()
        if latency > 0:
            time.sleep(latency)
        if chaos_fault:
            step, rule = {"fault": chaos_fault}, None
            if chaos_hang is not None:
                step["hang"] = chaos_hang
            self.rec["chaos"] = True
        else:
            rule, n, step, err = script.pick(prompt)
            self.rec["rule"], self.rec["step"] = rule, n
            if err:
                self.answer(500, error_body(api, "api_error", err))
                return
            with script.lock:
                delay = span(step.get("delay"), script.rng)
            if delay > 0:
                time.sleep(delay)
        fault = step.get("fault")
        self.rec["fault"] = fault

        if fault == "hang":
            self.save()
            self.hang(float(step.get("hang", 600)))
            self.drop(False)
            return
        if fault == "reset":
            self.save()
            self.drop(True)
            return
        if fault == "429":
            ra = step.get("retry_after", 1)
            self.answer(429, error_body(api, "rate_limit_error",
                                        "stub: rate limited"),
                        [("Retry-After", str(ra))])
            return
        if fault == "quota":
            self.answer(429, error_body(
                api, "insufficient_quota",
                "stub: you exceeded your current quota",
                code="insufficient_quota"))
            return
        if fault in ERROR_FAULTS:
            status, etype = ERROR_FAULTS[fault]
            self.answer(status, error_body(api, etype,
                                           "stub: fault %s" % fault))
            return
        if fault == "malformed":
            self.answer(200, b'{"choices": [ {"message": ')
            return
        if fault not in (None, "truncated", "truncated-reset", "empty"):
            self.answer(500, error_body(api, "api_error",
                                        "stub: unknown fault %r" % fault))
            return

        text = step.get("text", "")
        if step.get("text_file"):
            try:
                with open(os.path.join(self.server.script.dir,
                                       step["text_file"]),
                          encoding="utf-8") as f:
                    text = f.read()
            except OSError as e:
                self.answer(500, error_body(
                    api, "api_error", "stub: text_file: %s" % e))
                return
        finish = step.get("finish", "stop")
        usage = step.get("usage") or {}
        tin = usage.get("in", max(1, len(prompt) // 4))
        tout = usage.get("out", max(1, len(text) // 4))
        model = body.get("model", "stub") if isinstance(body, dict) \
            else "stub"
        if api == "openai":
            choices = [{
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": finish,
            }]
            if isinstance(step.get("logprobs"), dict):
                top = [{"token": k, "logprob": v}
                       for k, v in step["logprobs"].items()]
                choices[0]["logprobs"] = {"content": [{
                    "token": text,
                    "logprob": step["logprobs"].get(text, -1.0),
                    "top_logprobs": top}]}
            # "n": further choices from the rule's next steps, unless the
            # rule plays a server that ignores n ("ignore_n": true).
            want = body.get("n", 1) if isinstance(body, dict) else 1
            if not isinstance(want, int) or rule is None or \
                    self.server.script.rules[rule].get("ignore_n"):
                want = 1
            for j in range(1, want):
                _, _, more, _ = self.server.script.pick(prompt)
                more = more or {}
                mtext = more.get("text", "")
                tout += (more.get("usage") or {}).get(
                    "out", max(1, len(mtext) // 4))
                choices.append({
                    "index": j,
                    "message": {"role": "assistant", "content": mtext},
                    "finish_reason": more.get("finish", "stop"),
                })
            self.rec["choices"] = len(choices)
            obj = {
                "id": "stub-%d" % seq,
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": choices,
                "usage": {"prompt_tokens": tin, "completion_tokens": tout,
                          "total_tokens": tin + tout},
            }
            if fault == "empty":
                obj["choices"] = []
        else:
            obj = {
                "id": "msg_stub_%d" % seq,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [{"type": "text", "text": text}],
                "stop_reason": ANTHROPIC_STOP.get(finish, finish),
                "stop_sequence": None,
                "usage": {"input_tokens": tin, "output_tokens": tout},
            }
            if fault == "empty":
                obj["content"] = []
        data = json.dumps(obj).encode()
        if fault in ("truncated", "truncated-reset"):
            self.save()
            self.head(200, len(data))
            self.wfile.write(data[:len(data) // 2])
            self.wfile.flush()
            self.drop(fault == "truncated-reset")
            return
        self.answer(200, data)


def main():
    ap = argparse.ArgumentParser(description="loopback LLM API stub")
    ap.add_argument("--script", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--pid-file")
    ap.add_argument("--watch-pid", type=int,
                    help="exit once this process is gone")
    args = ap.parse_args()

    def stop(signum, frame):
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    os.makedirs(args.log, exist_ok=True)
    server = Server(("127.0.0.1", args.port), Handler)
    server.script = Script(args.script)
    server.logdir = os.path.abspath(args.log)
    server.seq = 0
    server.seq_lock = threading.Lock()

    if args.watch_pid:
        def watch():
            while True:
                time.sleep(0.5)
                try:
                    os.kill(args.watch_pid, 0)
                except ProcessLookupError:
                    os.kill(os.getpid(), signal.SIGTERM)
                    return
                except OSError:
                    pass
        threading.Thread(target=watch, daemon=True).start()

    try:
        if args.pid_file:
            write_atomic(args.pid_file, "%d\n" % os.getpid())
        write_atomic(args.port_file, "%d\n" % server.server_address[1])
        server.serve_forever()
    except (SystemExit, KeyboardInterrupt):
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
