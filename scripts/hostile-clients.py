#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A bounded hostile-client run against yolo-edged's HTTP server (issue 11).

Opens many connections that never read, sends headers a byte at a time, oversized bodies and
headers, and garbage, all at once, for a fixed time; then closes everything and checks that the
page still loads. Prints what it did as JSON. Usable against any device:

    scripts/hostile-clients.py http://pi.local:8080 [--seconds 20] [--password PASSWORD]

With the password (`yolo-edge config --show-credential` on the device) the page is loaded logged
in at the end; without it, the login form answering counts as the page loading.

Only the standard library: it runs wherever python3 does.
"""

import argparse
import json
import os
import socket
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request


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


def run(url, seconds, password=None):
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("url", help="the daemon's page, e.g. http://127.0.0.1:8080/")
    ap.add_argument("--seconds", type=float, default=20, help="how long the attack lasts")
    ap.add_argument("--password", default=os.environ.get("YOLO_EDGE_PASSWORD"),
                    help="the live view's password, to load the page logged in at the end")
    args = ap.parse_args()
    result = run(args.url, args.seconds, args.password)
    print(json.dumps(result, indent=2))
    return 0 if result["page_loads_after"] else 1


if __name__ == "__main__":
    sys.exit(main())
