#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Drift found and acted on, as a user's daemon meets it (issue 41): how long the live INT8 checks
take to find an INT8 file that does not fit the scene, and how long `checks.drift_action:
requantize` takes to run a new one that does, with the daemon's defaults but for the hold.

An INT8 file of the model calibrated at night levels (one grey image at 3/255, `yolo-edge quantize`
with its defaults) runs on the traffic clip in real time. The checks keep their default budget
(2 % of a core); checks.drift_after_min is 1 (the default 10 would only add 9 minutes);
model.calibration_frames keeps its default 64, so the reservoir needs a minute of frames first.
Printed: when the agreement first fell under the floor, when the daemon acted, when the new file
ran, the agreement after, the longest gap between two frames the status saw, and the frames the
source dropped.

    scripts/bench-drift.py [--model yolo11n_320_fp32] [--timeout-s 900]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import fixture_daemon as fd  # noqa: E402


def night_file(args, work):
    """The model quantized on one dark grey image: an INT8 file made for another scene."""
    import zlib, struct  # noqa: E401  (a PNG without OpenCV's Python bindings)
    frames = f"{work}/night"
    os.makedirs(frames)
    w, h, level = 640, 480, 3
    raw = b"".join(b"\x00" + bytes([level]) * (3 * w) for _ in range(h))
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))  # noqa: E731
    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
           chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    with open(f"{frames}/night.png", "wb") as f:
        f.write(png)
    out = f"{work}/{args.model}.night.int8.onnx"
    subprocess.run([f"{args.build}/bin/yolo-edge", "quantize", "--model",
                    f"{args.fixtures}/models/{args.model}.onnx", "--calib", frames, "--out", out],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return out


def status(port):
    """The daemon's status; {} while it is not ready (503) or does not answer."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status", timeout=10) as r:
            return json.load(r)
    except OSError:
        return {}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="yolo11n_320_fp32")
    ap.add_argument("--timeout-s", type=float, default=900)
    ap.add_argument("--build", default=fd.BUILD)
    ap.add_argument("--fixtures", default=fd.FIXTURES)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="yolo-edge-drift-")
    os.makedirs(f"{work}/logs")
    night = night_file(args, work)
    config = f"{work}/yolo-edge.yaml"
    fd.write_config(config, fd.config_text(
        f"{work}/logs",
        f"  uri: {args.fixtures}/video/traffic_720p_30fps.mp4\n  loop: true\n  realtime: true",
        f"  path: {args.fixtures}/models/{args.model}.onnx\n  precision: int8\n"
        f"  int8_path: {night}",
        threads="  mode: fixed\n  count: 1", http="  listen: 127.0.0.1:0\n  auth: none",
        interval_s=None) + "checks:\n  drift_after_min: 1\n  drift_action: requantize\n")
    daemon = fd.start(config, f"{work}/state", f"{work}/daemon.log", args.build)
    marks = {}
    frames, last_frame, longest_gap = 0, None, 0.0
    try:
        port = fd.http_port(f"{work}/daemon.log")
        if not port:
            raise SystemExit(f"the daemon did not start serving; see {work}/daemon.log")
        t0 = time.monotonic()
        while time.monotonic() - t0 < args.timeout_s:
            j = status(port)
            now = time.monotonic() - t0
            if j.get("frames", 0) > frames:
                if last_frame is not None:
                    longest_gap = max(longest_gap, now - last_frame)
                frames, last_frame = j["frames"], now
            c = j.get("outputs", {}).get("int8-checks", {})
            m = j.get("model", {})
            phase = c.get("drift", {}).get("phase", "")
            a = c.get("agreement")
            if a is not None and a < 0.95:
                marks.setdefault("agreement under the floor", (now, a))
            if phase in ("requantizing", "waiting"):
                marks.setdefault(f"drift: {phase}", (now, a))
            if m.get("file", "").endswith(".requantized.int8.onnx") and m.get("precision") == "int8":
                marks.setdefault("the new INT8 file runs", (now, None))
                # The checks' figures of the new file (their window starts over with it).
                judged_new = c.get("int8", "").endswith(".requantized.int8.onnx")
                if judged_new and c.get("window_checks", 0) >= 20 and a is not None:
                    marks["agreement after 20 checks of the new file"] = (now, a)
                    break
            if phase == "waiting":
                break
            time.sleep(1)
        dropped = status(port).get("source", {}).get("dropped")
    finally:
        fd.stop(daemon)
    print(f"bench-drift: {args.model}, night-calibrated INT8 on the traffic clip, work in {work}")
    for what, (t, a) in sorted(marks.items(), key=lambda kv: kv[1][0]):
        print(f"  {t:7.1f} s  {what}" + ("" if a is None else f" (agreement {a:.3f})"))
    print(f"  longest gap between two frames the status saw: {longest_gap:.1f} s "
          f"(polled every 1 s); frames the source dropped: {dropped}")
    with open(f"{work}/daemon.log") as f:
        for line in f:
            if "requantiz" in line or "again from this camera" in line:
                print("  log: " + line.rstrip()[:300])
    return 0 if "agreement after 20 checks of the new file" in marks else 1


if __name__ == "__main__":
    sys.exit(main())
