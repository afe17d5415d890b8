#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The live view's goals, measured side by side in one run (issue 11; docs/benchmarks.md).

Runs yolo-edged on the fixture video as fast as inference goes (fixed threads), then alternates
phases of equal length and reports, from the daemon's own counters:
  - FPS with no client against FPS with 5 MJPEG viewers, an event-stream client and a
    Prometheus scrape every second (goal: >= 0.90);
  - JPEG encodes per second with 1 viewer and with 5 (goal: equal, the stream's rate);
  - FPS and RSS before, during and after a hostile-client run (scripts/hostile-clients.py;
    goal: FPS within 10 %, RSS within 5 MB, the page still loads).

    scripts/bench-live.py [--phase-s 20] [--rounds 2] [--model yolo11n_320_fp32]
"""

import argparse
import json
import os
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "lib"))
import fixture_daemon  # noqa: E402
import live_clients  # noqa: E402


# The live view is behind a login (http.auth: password); the benchmark sends the password it set
# as a bearer token, as a script would. /metrics is open to 127.0.0.1 (http.metrics_allow).
PASSWORD = "bench-live-password-0123456789"
AUTH = live_clients.bearer(PASSWORD)


def status(port):
    return live_clients.api_status(port, AUTH)


def reader(port, path, stop):
    """A viewer of `path` (the MJPEG stream or the event stream), logged in with the password."""
    return live_clients.StreamReader(port, path, stop, AUTH)


def measure(port, seconds, viewers=0, events=False, scrape=False, during=None):
    """Runs one phase; returns fps, encodes/s and RSS from the daemon's counters."""
    stop = threading.Event()
    clients = [reader(port, "/stream.mjpg", stop) for _ in range(viewers)]
    if events:
        clients.append(reader(port, "/api/detections", stop))
    if scrape:
        clients.append(live_clients.Scraper(port, stop))
    for c in clients:
        c.start()
    time.sleep(1.0)  # viewers connected, pixels flowing
    a = status(port)
    t0 = time.monotonic()
    extra = during(seconds) if during else None
    if not during:
        time.sleep(seconds)
    b = status(port)
    t1 = time.monotonic()
    stop.set()
    for c in clients:
        c.join(timeout=15)
        if getattr(c, "error", ""):
            print(f"{c.path}: {c.error}", file=sys.stderr)
    time.sleep(1.0)
    dt = t1 - t0
    http_a, http_b = a["outputs"]["http"], b["outputs"]["http"]
    return {
        "fps": (b["frames"] - a["frames"]) / dt,
        "encodes_per_s": (http_b["frames_encoded"] - http_a["frames_encoded"]) / dt,
        "rss_mb": b["device"]["rss_bytes"] / 1e6,
        "extra": extra,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--phase-s", type=float, default=20)
    ap.add_argument("--rounds", type=int, default=2)
    args = fixture_daemon.parse_args(ap, threads=2)
    with fixture_daemon.serving(args, "bench-live", password=PASSWORD,
                                max_viewers=6) as (work, _, port):
        rows = []
        for r in range(args.rounds):
            idle = measure(port, args.phase_s)
            busy = measure(port, args.phase_s, viewers=5, events=True, scrape=True)
            one = measure(port, args.phase_s, viewers=1)
            rows.append((idle, busy, one))
            print(f"round {r + 1}: idle {idle['fps']:.2f} fps, 5 viewers+events+scrape "
                  f"{busy['fps']:.2f} fps ({busy['fps'] / idle['fps']:.3f}x), encodes/s "
                  f"1 viewer {one['encodes_per_s']:.2f}, 5 viewers {busy['encodes_per_s']:.2f}",
                  flush=True)

        before = measure(port, args.phase_s)
        attack = measure(port, args.phase_s,
                         during=lambda s: live_clients.hostile_run(f"http://127.0.0.1:{port}/", s,
                                                                   PASSWORD))
        after = measure(port, args.phase_s)
        page = attack["extra"]["page_loads_after"]

    ratios = [b["fps"] / i["fps"] for i, b, _ in rows]
    print()
    print("| measure | value | goal |")
    print("|---|---|---|")
    for n, (i, b, o) in enumerate(rows, 1):
        print(f"| round {n}: FPS no client / 5 viewers + SSE + scrape | {i['fps']:.2f} / "
              f"{b['fps']:.2f} = **{b['fps'] / i['fps']:.3f}x** | >= 0.90 |")
        print(f"| round {n}: JPEG encodes/s, 1 viewer / 5 viewers | {o['encodes_per_s']:.2f} / "
              f"{b['encodes_per_s']:.2f} | equal (http.max_fps 5) |")
    print(f"| hostile run: FPS before / during / after | {before['fps']:.2f} / "
          f"{attack['fps']:.2f} / {after['fps']:.2f} (after/before "
          f"**{after['fps'] / before['fps']:.3f}x**, during/before "
          f"{attack['fps'] / before['fps']:.3f}x) | within 10 % |")
    print(f"| hostile run: RSS before / after (MB) | {before['rss_mb']:.1f} / "
          f"{after['rss_mb']:.1f} (**{after['rss_mb'] - before['rss_mb']:+.1f} MB**) | "
          f"within 5 MB |")
    print(f"| hostile run: page loads after | {page} "
          f"({attack['extra']['page_load_s']} s) | yes |")
    print()
    print("hostile run:", json.dumps(attack["extra"]))
    ok = (min(ratios) >= 0.90 and abs(after["fps"] / before["fps"] - 1) <= 0.10
          and abs(after["rss_mb"] - before["rss_mb"]) <= 5 and page)
    print("goals met" if ok else "GOALS NOT MET", f"(logs in {work})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
