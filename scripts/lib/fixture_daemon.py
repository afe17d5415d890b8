# SPDX-License-Identifier: Apache-2.0
"""yolo-edged on the fixture video, serving HTTP on a free loopback port: shared by
scripts/bench-live.py and scripts/bench-hostile.py, which measure it from outside.
"""

import contextlib
import os
import re
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def parse_args(ap, threads):
    """Adds the options of the daemon under test (--model, --threads, --build, --fixtures) to the
    script's own and parses the command line."""
    ap.add_argument("--model", default="yolo11n_320_fp32")
    ap.add_argument("--threads", type=int, default=threads)
    ap.add_argument("--build", default=os.environ.get("YOLO_EDGE_BUILD_DIR", f"{ROOT}/build"))
    ap.add_argument("--fixtures",
                    default=os.environ.get("YOLO_EDGE_FIXTURES", f"{ROOT}/../shared/fixtures"))
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
    with open(config, "w") as f:
        f.write(f"""source:
  uri: {args.fixtures}/video/birds_720p_10fps.mp4
  loop: true
  realtime: false
model:
  path: {args.fixtures}/models/{args.model}.onnx
threads:
  mode: fixed
  count: {args.threads}
logging:
  dir: {work}/logs
http:
  listen: 127.0.0.1:0
""")
        f.writelines(f"  {key}: {value}\n" for key, value in http.items())
    log = open(f"{work}/daemon.log", "w")
    daemon = subprocess.Popen([f"{args.build}/bin/yolo-edged", "--config", config,
                               "--state-dir", f"{work}/state"], stdout=log, stderr=log)
    try:
        port = None
        for _ in range(600):
            m = re.search(r"http: serving http://127\.0\.0\.1:(\d+)/", open(f"{work}/daemon.log").read())
            if m:
                port = int(m.group(1))
                break
            time.sleep(0.1)
        if not port:
            raise SystemExit(f"the daemon did not start serving; see {work}/daemon.log")
        time.sleep(10)  # warm up: model loaded, frames flowing
        yield work, daemon, port
    finally:
        daemon.terminate()
        daemon.wait(timeout=10)
