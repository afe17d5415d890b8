# SPDX-License-Identifier: Apache-2.0
"""Clients of yolo-edged's live view, for the scripts that measure it from outside: requests with
a token, the stream reader (an MJPEG viewer or an event-stream client), a /metrics scraper, and the
hostile clients (connections that never read, slow headers, oversized requests, garbage, and the
selector-driven slow-header and idle swarm).

Used by scripts/hostile-clients.py (hostile_run, against any device), scripts/bench-live.py
(StreamReader, Scraper, hostile_run) and scripts/bench-hostile.py (StreamReader, SlowIdleAttack).
The daemon they run against comes from scripts/lib/fixture_daemon.py. Only the standard library.
"""

import http.client
import json
import os
import selectors
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request


def bearer(token):
    """The headers that log in with a token or password, as a script would."""
    return {"Authorization": f"Bearer {token}"}


def get(port, path, headers=None, timeout=10.0):
    """One GET to 127.0.0.1:PORT; (status, body, seconds)."""
    t0 = time.monotonic()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        c.request("GET", path, headers=headers or {})
        r = c.getresponse()
        body = r.read()
        return r.status, body, time.monotonic() - t0
    finally:
        c.close()


def api_status(port, headers=None):
    """/api/status as a dict; exits the script unless it answers 200."""
    status, body, _ = get(port, "/api/status", headers)
    if status != 200:
        raise SystemExit(f"/api/status: HTTP {status}")
    return json.loads(body)


class StreamReader(threading.Thread):
    """Reads an endless response (/stream.mjpg or /api/detections) and throws the bytes away, as a
    viewer does, until `stop` is set. `bytes` counts what it read; `error` says why it stopped
    early ("" when it did not). With `nice`, it runs at nice 19 (the thread alone), so what it
    costs is not taken from the daemon under test."""

    def __init__(self, port, path, stop, headers=None, timeout=10.0, nice=False):
        super().__init__(daemon=True)
        self.port, self.path, self.stop = port, path, stop
        self.headers, self.timeout, self.nice = headers or {}, timeout, nice
        self.bytes, self.error = 0, ""

    def run(self):
        if self.nice:
            os.nice(19)
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        try:
            c.request("GET", self.path, headers=self.headers)
            r = c.getresponse()
            if r.status != 200:
                self.error = f"HTTP {r.status}"
                return
            while not self.stop.is_set():
                chunk = r.read1(65536)
                if not chunk:
                    self.error = "the stream ended"
                    return
                self.bytes += len(chunk)
        except OSError as e:
            self.error = str(e)
        finally:
            # Closed at once: a stream left open holds its viewer place until the server drops it.
            c.close()


class Scraper(threading.Thread):
    """A Prometheus scrape of /metrics every `interval` seconds until `stop` is set."""

    def __init__(self, port, stop, interval=1.0):
        super().__init__(daemon=True)
        self.port, self.stop, self.interval, self.scrapes = port, stop, interval, 0

    def run(self):
        while not self.stop.wait(self.interval):
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=10) as r:
                r.read()
            self.scrapes += 1


# The bounded hostile-client run (scripts/hostile-clients.py): everything at once from one address.

def connect(host, port, timeout=5.0):
    s = socket.create_connection((host, port), timeout=timeout)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    return s


def never_read(host, port, count, path, opened):
    """Connections that ask for something (or nothing) and never read the answer."""
    held = []
    for i in range(count):
        try:
            s = connect(host, port)
            if path:
                s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
            held.append(s)
            opened[0] += 1
        except OSError:
            pass
    return held


def slow_headers(host, port, seconds, stop, counts):
    """Slowloris: a request line and headers one byte every 0.3 s."""
    request = (f"GET /api/status HTTP/1.1\r\nHost: {host}\r\nX-Slow: " + "a" * 200).encode()
    try:
        s = connect(host, port)
    except OSError:
        return
    sent = 0
    deadline = time.monotonic() + seconds
    try:
        while not stop.is_set() and time.monotonic() < deadline:
            s.send(request[sent % len(request):sent % len(request) + 1])
            sent += 1
            time.sleep(0.3)
        counts["slow_bytes"] += sent
    except OSError:
        counts["slow_dropped"] += 1
    finally:
        s.close()


def oversized(host, port, counts):
    """A 16 MiB body, a 64 KiB header and a 100 KiB request line."""
    cases = [
        (b"POST /api/precision HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer x\r\n"
         b"Content-Type: application/json\r\nContent-Length: 16777216\r\n\r\n", 16 << 20),
        (b"GET /api/status HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 65536 + b"\r\n\r\n", 0),
        (b"GET /" + b"c" * 102400 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 0),
    ]
    for head, body in cases:
        try:
            s = connect(host, port)
            s.sendall(head)
            chunk = b"{" * 65536
            sent = 0
            while sent < body:
                s.sendall(chunk)
                sent += len(chunk)
            reply = s.recv(256)
            counts["oversized_answers"].append(reply.split(b"\r\n", 1)[0].decode(errors="replace"))
            s.close()
        except OSError as e:
            counts["oversized_answers"].append(f"dropped ({e.__class__.__name__})")


def garbage(host, port, count, counts):
    for i in range(count):
        try:
            s = connect(host, port)
            s.sendall(os.urandom(4096))
            s.settimeout(5)
            reply = s.recv(64)
            key = reply.split(b"\r\n", 1)[0].decode(errors="replace") or "closed"
            counts["garbage_answers"][key] = counts["garbage_answers"].get(key, 0) + 1
            s.close()
        except OSError as e:
            key = f"dropped ({e.__class__.__name__})"
            counts["garbage_answers"][key] = counts["garbage_answers"].get(key, 0) + 1


def page_loads(url, password=None, timeout=20):
    request = urllib.request.Request(url)
    if password:
        request.add_header("Authorization", f"Bearer {password}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as r:
            return r.status == 200 and b"yolo-edge" in r.read()
    except urllib.error.HTTPError as e:
        # http.auth: password without a password given here: the login form is the page.
        return not password and e.code == 401 and b'type="password"' in e.read()
    except OSError:
        return False


def hostile_run(url, seconds, password=None):
    """The whole bounded run against the page at `url`: what it did and whether the page loads
    afterwards, as a dict (scripts/hostile-clients.py prints it as JSON)."""
    parts = urllib.parse.urlsplit(url)
    host, port = parts.hostname, parts.port or 80
    counts = {"slow_bytes": 0, "slow_dropped": 0, "oversized_answers": [],
              "garbage_answers": {}}
    opened = [0]
    stop = threading.Event()
    # 200 connections never read: half silent, half asking for the stream or a snapshot.
    held = never_read(host, port, 100, None, opened)
    held += never_read(host, port, 50, "/stream.mjpg", opened)
    held += never_read(host, port, 50, "/snapshot.jpg", opened)
    threads = [threading.Thread(target=slow_headers, args=(host, port, seconds, stop, counts))
               for _ in range(20)]
    threads.append(threading.Thread(target=oversized, args=(host, port, counts)))
    threads.append(threading.Thread(target=garbage, args=(host, port, 50, counts)))
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    for s in held:
        s.close()
    started = time.monotonic()
    loads = page_loads(url, password)
    return {
        "url": url,
        "seconds": seconds,
        "never_read_connections": opened[0],
        "slow_header_connections": 20,
        "slow_header_bytes": counts["slow_bytes"],
        "slow_header_dropped_by_server": counts["slow_dropped"],
        "oversized": counts["oversized_answers"],
        "garbage": counts["garbage_answers"],
        "page_loads_after": loads,
        "page_load_s": round(time.monotonic() - started, 2),
    }


# The swarm of scripts/bench-hostile.py: many connections from loopback addresses of their own.

class SlowIdleAttack(threading.Thread):
    """`slow` slow-header and `idle` idle connections to 127.0.0.1:PORT on one selector loop at
    nice 19, each reopened when the server closes it, until `stop` is set. A slow client sends a
    request line, then a header line about once a second, and never finishes; an idle one sends
    nothing. Counts: opened, refused (at connect), cut (closed by the server), bytes (sent)."""

    def __init__(self, port, slow, idle, stop):
        super().__init__(daemon=True)
        self.port, self.slow, self.idle, self.stop = port, slow, idle, stop
        self.sel = selectors.DefaultSelector()
        self.opened = self.refused = self.cut = self.bytes = 0
        self.live = {}  # socket -> ["slow" | "idle", index, next send time, lines sent]

    def source(self, kind, i):
        # Slow clients from 50 addresses, idle ones from 50 others (20 and 4 each by default).
        return f"127.0.0.{2 + i % 50}" if kind == "slow" else f"127.0.1.{2 + i % 50}"

    def open(self, kind, i):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.bind((self.source(kind, i), 0))
        try:
            s.connect(("127.0.0.1", self.port))
        except BlockingIOError:
            pass
        except OSError:
            s.close()
            self.refused += 1
            return
        self.live[s] = [kind, i, time.monotonic() + (i % 100) / 100.0, 0]
        self.sel.register(s, selectors.EVENT_READ)
        self.opened += 1

    def close(self, s):
        kind, i = self.live.pop(s)[:2]
        self.sel.unregister(s)
        s.close()
        return kind, i

    def run(self):
        os.nice(19)
        for i in range(self.slow):
            self.open("slow", i)
        for i in range(self.idle):
            self.open("idle", i)
        line = b"X-Slow-Header: aaaaaaaaaaaaaaaa\r\n"
        while not self.stop.is_set():
            for key, _ in self.sel.select(timeout=0.05):
                s = key.fileobj
                try:
                    data = s.recv(4096)
                except OSError:
                    data = b""
                if not data:  # closed by the server: cut off or refused; back at once
                    kind, i = self.close(s)
                    self.cut += 1
                    self.open(kind, i)
            now = time.monotonic()
            for s, entry in list(self.live.items()):
                kind, i, due, sent = entry
                if kind != "slow" or now < due:
                    continue
                first = b"GET /api/status HTTP/1.1\r\nHost: pi\r\n" if sent == 0 else line
                try:
                    s.send(first)
                    self.bytes += len(first)
                    entry[3] += 1
                except OSError:
                    pass
                entry[2] = now + 1.0
        for s in list(self.live):
            self.close(s)
