#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs yolo-edged for MINUTES on the fixture video, looping and unpaced (as fast as it goes), and
# prints what a long run shows: resident memory after warm-up and at the end, FPS, dropped frames.
#   scripts/soak.sh MINUTES [--model NAME] [--paced]
# NAME is a fixture model (default yolo11n_320_fp32). The field log stays in the printed folder.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/daemon-run.sh"

usage() {
  echo "usage: scripts/soak.sh MINUTES [--model NAME] [--paced]" >&2
  exit 2
}
[ $# -ge 1 ] || usage
minutes=$1
shift
[[ "$minutes" =~ ^[0-9]+$ ]] && [ "$minutes" -ge 1 ] || usage
model=yolo11n_320_fp32
realtime=false
parse_options "usage: scripts/soak.sh MINUTES [--model NAME] [--paced]" \
  --model=model --paced=realtime:true -- "$@"
require_build

work=$(mktemp -d /tmp/yolo-edge-soak.XXXXXX)
write_config "$work/soak.yaml" "$work/logs" \
  "  uri: $fixtures/video/birds_720p_10fps.mp4
  loop: true
  realtime: $realtime" \
  "  path: $fixtures/models/$model.onnx"
start_daemon "$work/soak.yaml" "$work/state" "$work/yolo-edged.out"
trap 'stop_daemon' EXIT
wait_for_lines "$work/logs" 1 120
echo "soak: $model for $minutes min (pid $daemon_pid, logs in $work/logs)"
sleep $((minutes * 60))
stop_daemon
trap - EXIT

python3 - "$work/logs/yolo-edge.jsonl" "$minutes" <<'PY'
import json, sys
path, minutes = sys.argv[1], int(sys.argv[2])
lines = [json.loads(l) for l in open(path) if l.strip()]
intervals = [l for l in lines if l.get("type") == "interval" and "rss_bytes" in l]
t, series = 0.0, []
for l in intervals:
    t += l["duration_s"]
    series.append((t, l["rss_bytes"] / 1e6, l["frames"], l["dropped"]))
# Warm-up: a tenth of the run, at least 60 s (pools, decoder buffers, allocator arenas).
warm = max(60.0, t / 10)
after = [s for s in series if s[0] >= warm]
if not after:
    sys.exit(f"soak: the run ({t:.0f} s) was shorter than its warm-up ({warm:.0f} s)")
frames = sum(s[2] for s in series)
dropped = sum(s[3] for s in series)
start, end, peak = after[0][1], after[-1][1], max(s[1] for s in after)
print(f"duration        {t:.0f} s ({len(intervals)} interval lines)")
print(f"frames          {frames} ({frames / t:.2f} fps), dropped {dropped}")
print(f"rss after warm-up ({warm:.0f} s)  {start:.2f} MB")
print(f"rss at the end  {end:.2f} MB (peak after warm-up {peak:.2f} MB)")
print(f"rss growth      {end - start:+.2f} MB (peak {peak - start:+.2f} MB)")
events = [l for l in lines if l.get("type") == "event" and l.get("level") in ("warning", "error")]
for e in events:
    print(f"  {e['level']}: {e['message']}")
PY
