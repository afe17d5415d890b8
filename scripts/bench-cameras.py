#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Two cameras in one daemon against the same two as separate daemons (issue 42's first goal).

The traffic clip and the bird video, each in real time as a camera, detected at 5 fps each with
yolo11n 320 at INT8 (the file made once by `yolo-edge quantize`, as the other benchmarks do):

- together: one yolo-edged with both under cameras:;
- apart: two yolo-edged, one camera each.

Rounds alternate (together, apart, together, ...) so a drift of the machine's speed touches both.
Each run warms up, then the CPU of the daemons' processes (utime + stime from /proc) and their
resident memory (VmRSS) are read over --seconds, and each camera's detection rate from the field
log's interval lines. Printed per round and as medians, with the goals: each camera keeps its
detect fps, CPU together <= 1.1x apart, RSS together <= 1.3x one daemon of the two apart.

    scripts/bench-cameras.py [--seconds 30] [--rounds 3] [--detect-fps 5] [--precision int8]
                             [--threads 1|adaptive|efficiency]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import fixture_daemon as fd  # noqa: E402

CLIPS = {"road": "video/traffic_720p_30fps.mp4", "birds": "video/birds_720p_10fps.mp4"}
TICK = os.sysconf("SC_CLK_TCK")


def int8_file(model):
    """The INT8 file of `model`, made once with yolo-edge quantize (as scripts/lib/daemon-run.sh's
    cached_int8 does)."""
    out = f"/tmp/yolo-edge-bench-cache/{model}.int8.onnx"
    if not os.path.exists(out):
        os.makedirs(os.path.dirname(out), exist_ok=True)
        print(f"making {out} (yolo-edge quantize, 64 frames)...", file=sys.stderr)
        subprocess.run([f"{fd.BUILD}/bin/yolo-edge", "quantize", "--model",
                        f"{fd.FIXTURES}/models/{model}.onnx", "--calib",
                        f"{fd.FIXTURES}/video/birds_720p_10fps.mp4", "--frames", "64", "--out", out],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return out


def config(logs, names, args):
    cameras = "".join(
        f"  - {{name: {n}, uri: \"{fd.FIXTURES}/{CLIPS[n]}\", loop: true, realtime: true, "
        f"detect_fps: {args.detect_fps}}}\n" for n in names)
    model = f"  path: {fd.FIXTURES}/models/{args.model}.onnx\n"
    if args.precision == "int8":
        model += f"  int8_path: {int8_file(args.model)}\n  precision: int8\n"
    threads = (f"  mode: fixed\n  count: {args.threads}\n" if args.threads.isdigit() else
               f"  mode: {args.threads}\n")
    # Everything else at the daemon's defaults (the checks too), the field log every second.
    return (f"cameras:\n{cameras}model:\n{model}threads:\n{threads}logging:\n  dir: {logs}\n"
            f"  interval_s: 1\nhttp:\n  listen: \"\"\n")


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def log_size(logs):
    return os.path.getsize(f"{logs}/yolo-edge.jsonl")


def detection_fps(logs, names, offset, end):
    """Each camera's detections per second in the interval lines the field log in `logs` wrote
    between bytes `offset` and `end` (the measured span)."""
    frames = {n: 0 for n in names}
    seconds = 0.0
    with open(f"{logs}/yolo-edge.jsonl") as f:
        f.seek(offset)
        for line in f.read(end - offset).splitlines():
            j = json.loads(line)
            if j.get("type") != "interval":
                continue
            seconds += j["duration_s"]
            if len(names) == 1:
                frames[names[0]] += j["frames"]
            else:
                for n in names:
                    frames[n] += j.get("cameras", {}).get(n, {}).get("frames", 0)
    return {n: frames[n] / seconds if seconds else 0.0 for n in names}


def run(work, tag, groups, args):
    """Runs one daemon per group of camera names; returns the CPU share (cores), total RSS (MB),
    RSS of each daemon, and each camera's detection fps."""
    daemons = []
    for i, names in enumerate(groups):
        logs = f"{work}/{tag}-{i}"
        path = f"{work}/{tag}-{i}.yaml"
        fd.write_config(path, config(logs, names, args))
        daemons.append((names, logs, fd.start(path, f"{work}/{tag}-{i}-state", f"{logs}.out")))
    try:
        for names, logs, _ in daemons:
            if not fd.wait_for_lines(logs, 1, 120):
                sys.exit(f"bench-cameras: no frames from {names} in 120 s; see {logs}.out")
        time.sleep(args.warmup)
        offsets = [log_size(logs) for _, logs, _ in daemons]
        start = [cpu_ticks(d.pid) for _, _, d in daemons]
        t0 = time.monotonic()
        time.sleep(args.seconds)
        elapsed = time.monotonic() - t0
        cpu = sum(cpu_ticks(d.pid) - s for (_, _, d), s in zip(daemons, start)) / TICK / elapsed
        rss = [rss_mb(d.pid) for _, _, d in daemons]
        ends = [log_size(logs) for _, logs, _ in daemons]
    finally:
        for _, _, d in daemons:
            fd.stop(d)
    fps = {}
    for (names, logs, _), offset, end in zip(daemons, offsets, ends):
        fps.update(detection_fps(logs, names, offset, end))
    return cpu, sum(rss), rss, fps


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="yolo11n_320_fp32")
    ap.add_argument("--precision", choices=["fp32", "int8"], default="int8")
    ap.add_argument("--detect-fps", type=float, default=5)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--warmup", type=float, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", default="1",
                    help="a thread count (threads.mode fixed), or adaptive or efficiency; the "
                         "default 1 gives both sides the same work per frame (adaptive takes 2 "
                         "threads for one daemon of 10 fps where two of 5 fps beside each other "
                         "settle on 1, which is a latency choice, not the cameras' cost)")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="yolo-edge-cameras.")
    load = open("/proc/loadavg").read().split()[:3]
    print(f"bench-cameras: {args.model} {args.precision}, threads {args.threads}, "
          f"detect_fps {args.detect_fps} each, "
          f"{args.seconds:g} s per run, {os.cpu_count()} cores, load {' '.join(load)}, "
          f"work in {work}")
    together, apart = [], []
    for r in range(1, args.rounds + 1):
        for tag, groups, into in (("together", [["road", "birds"]], together),
                                  ("apart", [["road"], ["birds"]], apart)):
            cpu, rss, each, fps = run(work, f"{tag}-{r}", groups, args)
            into.append((cpu, rss, each, fps))
            rates = ", ".join(f"{n} {v:.2f}" for n, v in fps.items())
            print(f"round {r} {tag}: CPU {cpu * 100:.1f} % of a core, RSS {rss:.0f} MB "
                  f"({' + '.join(f'{x:.0f}' for x in each)}), detection fps {rates}")
    cpu_t = statistics.median(c for c, _, _, _ in together)
    cpu_a = statistics.median(c for c, _, _, _ in apart)
    rss_t = statistics.median(r for _, r, _, _ in together)
    # One daemon of the two apart: the larger (the road's decodes 720p at 30 fps).
    rss_one = statistics.median(max(e) for _, _, e, _ in apart)
    print(f"CPU: together {cpu_t * 100:.1f} %, apart {cpu_a * 100:.1f} % of a core: ratio "
          f"{cpu_t / cpu_a:.3f} (goal <= 1.1)")
    print(f"RSS: together {rss_t:.0f} MB, one daemon apart {rss_one:.0f} MB: ratio "
          f"{rss_t / rss_one:.3f} (goal <= 1.3)")
    for n in CLIPS:
        t = statistics.median(f[n] for _, _, _, f in together)
        a = statistics.median(f[n] for _, _, _, f in apart)
        print(f"{n}: detection fps together {t:.2f}, apart {a:.2f} (goal: {args.detect_fps:g})")


if __name__ == "__main__":
    main()
