#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""yolo-edged on the fixtures for the scripts: its config written, started, waited for, stopped.

The one place the scripts do those four things.

As a module: scripts/bench-live.py and scripts/bench-hostile.py (serving(): HTTP on a free
loopback port, measured from outside with scripts/lib/live_clients.py). As a command, for the
shell scripts, through the functions of scripts/lib/daemon-run.sh (soak.sh, bench-daemon.sh,
bench-models.sh, field-report-run.sh):

    fixture_daemon.py config FILE LOGDIR SOURCE_YAML MODEL_YAML [THREADS_YAML] [HTTP_YAML]
                             [--interval-s S]
    fixture_daemon.py exec CONFIG STATE_DIR [--build DIR]  # becomes yolo-edged, same pid: run it
                                                           # with & and keep $!
    fixture_daemon.py wait-lines LOGDIR N TIMEOUT_S        # exit 1 if the lines did not come
    fixture_daemon.py stop PID

The C++ tests start the daemon their own way, tests/daemon/daemon_process.h (DaemonSetup; C++ cannot
import this), and the two agree where it means something: the config's defaults (adaptive threads,
the field log every second, HTTP off unless asked for: 8080 may be taken), the config written
beside and renamed over, the command line (--config, --state-dir), and the readiness checks (the
log line "http: serving http://HOST:PORT/" for the port; interval lines with frames in the field
log, a line still being written not counted). The tests alone add their own systemd notify
socket and watchdog, run as nobody when root, and shorten reconnect and telemetry intervals.
"""

import argparse
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("YOLO_EDGE_BUILD_DIR", f"{ROOT}/build")
FIXTURES = os.environ.get("YOLO_EDGE_FIXTURES", f"{ROOT}/../shared/fixtures")
VIDEO = "video/birds_720p_10fps.mp4"
# How long yolo-edged has to exit after SIGTERM before it is killed.
STOP_TIMEOUT_S = 10


def config_text(logs, source, model, threads="  mode: adaptive", http='  listen: ""',
                interval_s=1):
    """A daemon config from the bodies of its sections (indented YAML, as tests/daemon/
    daemon_process.h's config_text takes them): HTTP off unless `http` says otherwise, the field
    log every `interval_s` seconds (None: the daemon's default)."""
    interval = "" if interval_s is None else f"  interval_s: {interval_s}\n"
    body = lambda text: text.rstrip("\n") + "\n"  # noqa: E731
    return (f"source:\n{body(source)}model:\n{body(model)}threads:\n{body(threads)}"
            f"logging:\n  dir: {logs}\n{interval}http:\n{body(http)}")


def write_config(path, text):
    """Written beside and renamed over, so that a daemon reloading it never reads half a file."""
    with open(f"{path}.tmp", "w") as f:
        f.write(text)
    os.replace(f"{path}.tmp", path)


def fixture_video(fixtures=FIXTURES, realtime=False):
    """The source section for the looping bird video, unpaced (as fast as inference goes) unless
    `realtime`."""
    return f"  uri: {fixtures}/{VIDEO}\n  loop: true\n  realtime: {str(realtime).lower()}"


def command(config, state, build=BUILD):
    return [f"{build}/bin/yolo-edged", "--config", config, "--state-dir", state]


def start(config, state, output, build=BUILD):
    """yolo-edged in the background, its stdout and stderr to the file `output`."""
    with open(output, "w") as log:
        return subprocess.Popen(command(config, state, build), stdout=log, stderr=log)


def http_port(output, timeout_s=60):
    """The port the daemon's HTTP server took (http.listen with port 0), from its log line
    "http: serving http://HOST:PORT/" in the file `output`; None if it did not say in time."""
    deadline = time.monotonic() + timeout_s
    while True:
        with open(output, errors="replace") as f:
            ports = re.findall(r"http: serving https?://[^ ]*:(\d+)/", f.read())
        if ports:
            return int(ports[-1])
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.1)


def interval_lines_with_frames(logs):
    """How many interval lines with frames the field log in `logs` has (a line still being written
    not counted)."""
    n = 0
    try:
        with open(f"{logs}/yolo-edge.jsonl") as f:
            for line in f:
                if not line.endswith("\n"):
                    break
                try:
                    j = json.loads(line)
                except ValueError:
                    continue
                n += j.get("type") == "interval" and j.get("frames", 0) > 0
    except FileNotFoundError:
        pass
    return n


def wait_for_lines(logs, n, timeout_s):
    """Whether the field log in `logs` has `n` interval lines with frames within `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while interval_lines_with_frames(logs) < n:
        if time.monotonic() >= deadline:
            return False
        time.sleep(1)
    return True


def _gone(pid):
    """Whether process `pid` has exited (no longer there, or a zombie its parent has to reap)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return True


def stop_pid(pid, timeout_s=STOP_TIMEOUT_S):
    """SIGTERM, then waits until the process has exited; SIGKILL after `timeout_s`. Its parent
    reaps it (`wait` in the shell)."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout_s
    while not _gone(pid):
        if time.monotonic() >= deadline:
            print(f"yolo-edged (pid {pid}) did not exit within {timeout_s} s of SIGTERM; killed",
                  file=sys.stderr)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            return
        time.sleep(0.05)


def stop(daemon, timeout_s=STOP_TIMEOUT_S):
    """stop_pid for a daemon this process started, reaped here."""
    stop_pid(daemon.pid, timeout_s)
    daemon.wait()


def parse_args(ap, threads):
    """Adds the options of the daemon under test (--model, --threads, --build, --fixtures) to the
    script's own and parses the command line."""
    ap.add_argument("--model", default="yolo11n_320_fp32")
    ap.add_argument("--threads", type=int, default=threads)
    ap.add_argument("--build", default=BUILD)
    ap.add_argument("--fixtures", default=FIXTURES)
    return ap.parse_args()


@contextlib.contextmanager
def serving(args, name, **http):
    """Runs the daemon on the looping fixture video as fast as inference goes (fixed threads), in a
    fresh folder /tmp/NAME-*, with the http settings `http` (token, password, max_viewers) beside
    a free loopback port. Yields (work folder, process, port) once it serves and has warmed up
    (model loaded, frames flowing); stops it on the way out."""
    work = tempfile.mkdtemp(prefix=f"{name}-")
    os.makedirs(f"{work}/logs")
    config = f"{work}/yolo-edge.yaml"
    write_config(config, config_text(
        f"{work}/logs", fixture_video(args.fixtures),
        f"  path: {args.fixtures}/models/{args.model}.onnx",
        threads=f"  mode: fixed\n  count: {args.threads}",
        http="  listen: 127.0.0.1:0\n" + "".join(f"  {k}: {v}\n" for k, v in http.items()),
        interval_s=None))
    daemon = start(config, f"{work}/state", f"{work}/daemon.log", args.build)
    try:
        port = http_port(f"{work}/daemon.log")
        if not port:
            raise SystemExit(f"the daemon did not start serving; see {work}/daemon.log")
        time.sleep(10)  # warm up: model loaded, frames flowing
        yield work, daemon, port
    finally:
        stop(daemon)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    c = sub.add_parser("config", help="write a config (section bodies as indented YAML)")
    c.add_argument("file")
    c.add_argument("logs")
    c.add_argument("source")
    c.add_argument("model")
    c.add_argument("threads", nargs="?", default="  mode: adaptive")
    c.add_argument("http", nargs="?", default='  listen: ""')
    c.add_argument("--interval-s", default="1", help="the field log's interval")
    e = sub.add_parser("exec", help="become yolo-edged on CONFIG (same pid)")
    e.add_argument("config")
    e.add_argument("state")
    e.add_argument("--build", default=BUILD)
    w = sub.add_parser("wait-lines", help="wait for N interval lines with frames in LOGDIR")
    w.add_argument("logs")
    w.add_argument("n", type=int)
    w.add_argument("timeout_s", type=float)
    s = sub.add_parser("stop", help="SIGTERM PID and wait for its exit (SIGKILL after 10 s)")
    s.add_argument("pid", type=int)
    args = ap.parse_args()
    if args.what == "config":
        write_config(args.file, config_text(args.logs, args.source, args.model, args.threads,
                                            args.http, args.interval_s))
    elif args.what == "exec":
        argv = command(args.config, args.state, args.build)
        os.execv(argv[0], argv)
    elif args.what == "wait-lines":
        return 0 if wait_for_lines(args.logs, args.n, args.timeout_s) else 1
    else:
        stop_pid(args.pid)
    return 0


if __name__ == "__main__":
    sys.exit(main())
