#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The live view on a hostile network, measured (issue 25; docs/benchmarks.md).

Runs yolo-edged on the fixture video as fast as inference goes (fixed threads, the default login in
front of HTTP), measures its FPS with no client, then for --seconds (60 by default) keeps up, all at
once, from loopback addresses of their own (127.0.0.X, as other hosts would come):
  - 1000 slow-header clients, each sending a header line about once a second and never finishing,
    reconnecting at once when cut off;
  - 200 idle sockets that send nothing, reopened when closed;
  - 20 MJPEG viewers reading the stream (logged in with the token);
  - a Prometheus scrape of /metrics every second (from 127.0.0.1, allowed by http.metrics_allow);
  - GET /api/status every 100 ms with the token, each timed.
Then it reports: every /api/status answered or not and its p50/p99/max latency, the FPS during the
attack against the FPS before, the daemon's thread count and RSS before, during and after, and how
long the page takes to load afterwards. The attack's own clients run in this process at nice 19, so
the figure is the daemon's cost, not Python's. Loopback only; nothing leaves the machine.

    scripts/bench-hostile.py [--seconds 60] [--slow 1000] [--idle 200] [--viewers 20]
"""

import argparse
import os
import re
import statistics
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "lib"))
import fixture_daemon  # noqa: E402
import live_clients  # noqa: E402
TOKEN = "bench-hostile-token-0123456789abcdef"
AUTH = live_clients.bearer(TOKEN)


def get(port, path):
    """One request with the token; (status, body, seconds)."""
    return live_clients.get(port, path, AUTH)


def proc_figures(pid):
    """The daemon's thread count and resident memory (MB) from /proc."""
    threads = len(os.listdir(f"/proc/{pid}/task"))
    with open(f"/proc/{pid}/status") as f:
        rss_kb = int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))
    return threads, rss_kb / 1024


def frames(port):
    return live_clients.api_status(port, AUTH)["frames"]


def viewer(port, stop):
    """An MJPEG viewer logged in with the token, at nice 19 like the attack."""
    return live_clients.StreamReader(port, "/stream.mjpg", stop, AUTH, timeout=30, nice=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--baseline-s", type=float, default=20)
    ap.add_argument("--slow", type=int, default=1000)
    ap.add_argument("--idle", type=int, default=200)
    ap.add_argument("--viewers", type=int, default=20)
    args = fixture_daemon.parse_args(ap, threads=1)
    with fixture_daemon.serving(args, "bench-hostile", token=TOKEN,
                                max_viewers=max(args.viewers, 4)) as (work, daemon, port):
        def quiet_fps():
            f0, t0 = frames(port), time.monotonic()
            time.sleep(args.baseline_s)
            return (frames(port) - f0) / (time.monotonic() - t0)

        fps_before = quiet_fps()
        # The memory of watching (frames copied for the encoder, its buffers) is there before
        # the attack, so what grows after is the clients' cost.
        warm = threading.Event()
        warm_viewer = viewer(port, warm)
        warm_viewer.start()
        time.sleep(5)
        warm.set()
        warm_viewer.join(timeout=30)
        # The server frees a closed stream's place when it next writes to it (the next frame, or
        # the viewer check): the attack's viewers start once it has.
        for _ in range(100):
            if live_clients.api_status(port, AUTH)["outputs"]["http"]["viewers"] == 0:
                break
            time.sleep(0.1)
        threads_before, rss_before = proc_figures(daemon.pid)

        stop = threading.Event()
        attack = live_clients.SlowIdleAttack(port, args.slow, args.idle, stop)
        viewers = [viewer(port, stop) for _ in range(args.viewers)]
        attack.start()
        for v in viewers:
            v.start()
        time.sleep(3)  # the attack in place
        latencies, failures, scrapes, scrape_failures = [], [], 0, 0
        threads_during, rss_during = [], []
        f0, t0 = frames(port), time.monotonic()
        next_scrape = t0
        while time.monotonic() - t0 < args.seconds:
            try:
                status, _, seconds = get(port, "/api/status")
                if status == 200:
                    latencies.append(seconds)
                else:
                    failures.append(f"HTTP {status}")
            except OSError as e:
                failures.append(str(e))
            if time.monotonic() >= next_scrape:
                next_scrape += 1.0
                try:
                    scrape_status = live_clients.get(port, "/metrics")[0]
                    scrapes += 1
                    scrape_failures += scrape_status != 200
                except OSError:
                    scrape_failures += 1
                n, rss = proc_figures(daemon.pid)
                threads_during.append(n)
                rss_during.append(rss)
            time.sleep(0.1)
        fps_attack = (frames(port) - f0) / (time.monotonic() - t0)
        stop.set()
        attack.join(timeout=30)
        for v in viewers:
            v.join(timeout=30)
        time.sleep(5)
        threads_after, rss_after = proc_figures(daemon.pid)
        page_status, page, page_s = get(port, "/")
        fps_after = quiet_fps()
        fps_idle = (fps_before + fps_after) / 2
        http_status = live_clients.api_status(port, AUTH)["outputs"]["http"]

    answered = len(latencies)
    total = answered + len(failures)
    q = statistics.quantiles(latencies, n=100) if len(latencies) >= 2 else [0] * 99
    viewer_errors = [v.error for v in viewers if v.error]
    print(f"| measure | value | goal |")
    print(f"|---|---|---|")
    print(f"| /api/status answered during the attack | {answered} of {total}"
          f"{' (' + '; '.join(sorted(set(failures))[:3]) + ')' if failures else ''} | all |")
    print(f"| /api/status latency p50 / p99 / max (ms) | {q[49] * 1000:.1f} / {q[98] * 1000:.1f} / "
          f"{max(latencies, default=0) * 1000:.1f} | p99 <= 200 |")
    print(f"| FPS no client (before, after) / under attack | {fps_idle:.2f} ({fps_before:.2f}, "
          f"{fps_after:.2f}) / {fps_attack:.2f} = **{fps_attack / fps_idle:.3f}x** | >= 0.95 |")
    print(f"| daemon threads before / during (max) / after | {threads_before} / "
          f"{max(threads_during, default=0)} / {threads_after} | bounded |")
    print(f"| daemon RSS before / during (max) / after (MB) | {rss_before:.1f} / "
          f"{max(rss_during, default=0):.1f} / {rss_after:.1f} (growth during "
          f"{max(rss_during, default=rss_before) - rss_before:+.1f}, after "
          f"{rss_after - rss_before:+.1f}) | < 10 MB growth |")
    print(f"| scrapes answered | {scrapes - scrape_failures} of {scrapes} | all |")
    print(f"| MJPEG viewers that kept streaming | {args.viewers - len(viewer_errors)} of "
          f"{args.viewers} ({sum(v.bytes for v in viewers) / 1e6:.0f} MB read"
          f"{'; ' + '; '.join(sorted(set(viewer_errors))) if viewer_errors else ''}) | all |")
    print(f"| attack connections opened / reconnected after a cut / refused at connect | "
          f"{attack.opened} / {attack.cut} / {attack.refused} | bounded by the server |")
    print(f"| server's count: requests cut off / connections refused | "
          f"{http_status['requests_cut_off']} / {http_status['refused_connections']} | |")
    print(f"| the page after the attack | HTTP {page_status} in {page_s * 1000:.0f} ms | at once |")
    print(f"\nslow clients {args.slow}, idle {args.idle}, viewers {args.viewers}, {args.seconds:.0f} s; "
          f"model {args.model} at {args.threads} thread(s); daemon log {work}/daemon.log")
    ok = (not failures and q[98] <= 0.2 and fps_attack >= 0.95 * fps_idle
          and rss_after - rss_before < 10 and page_status == 200)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
