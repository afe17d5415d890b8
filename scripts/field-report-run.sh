#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A real field log and its report (issue 13): yolo-edged on the fixture video, switched between
# FP32 and INT8 and between thread modes with SIGHUP, then `yolo-edge report` on its log.
#   scripts/field-report-run.sh [--minutes M] [--interval S] [--int8 FILE] [--video FILE]
#                               [--drift-after MIN] [--floor F] [--paced] [--out DIR]
# Seven phases of M/7 minutes each (default M 12): auto adaptive (FP32 and INT8 timed side by side
# on the video's frames, then the choice runs), fp32 adaptive, int8 adaptive, int8 fixed 1,
# fp32 fixed 1, fp32 efficiency, int8 efficiency. The video runs as fast as inference goes
# unless --paced (its own 10 fps). Without --int8 the INT8 file is made once with yolo-edge
# quantize (64 video frames) and kept in /tmp/yolo-edge-bench-cache. The video is the bird clip
# unless --video (the traffic clip gives the live INT8 checks boxes to judge; the birds give
# few). The INT8 checks run with the daemon's defaults; --drift-after MIN sets
# checks.drift_after_min and --floor F model.auto_min_map50 (the agreement's floor), so a short
# run can show an int8_drift event. The log and the report go to DIR (default a new folder under
# /tmp).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/daemon-run.sh"

minutes=12
interval=10
int8=""
realtime=false
out=""
video=""
drift_after=""
floor=""
parse_options "usage: scripts/field-report-run.sh [--minutes M] [--interval S] [--int8 FILE] [--video FILE] [--drift-after MIN] [--floor F] [--paced] [--out DIR]" \
  --minutes=minutes --interval=interval --int8=int8 --video=video --drift-after=drift_after \
  --floor=floor --paced=realtime:true --out=out -- "$@"
require_build
model=yolo11n_320_fp32
fp32=$fixtures/models/$model.onnx
[ -n "$video" ] || video=$fixtures/video/birds_720p_10fps.mp4
if [ -z "$int8" ]; then int8=$(cached_int8 "$model") || exit 2; fi
[ -n "$out" ] || out=$(mktemp -d /tmp/yolo-edge-field-report.XXXXXX)
mkdir -p "$out"
logs=$out/logs
config=$out/yolo-edge.yaml
phases=(
  "auto|  mode: adaptive"
  "fp32|  mode: adaptive"
  "int8|  mode: adaptive"
  "int8|  mode: fixed
  count: 1"
  "fp32|  mode: fixed
  count: 1"
  "fp32|  mode: efficiency"
  "int8|  mode: efficiency"
)
phase_s=$(awk -v m="$minutes" -v n="${#phases[@]}" 'BEGIN { printf "%d", m * 60 / n }')
trap 'stop_daemon 2>/dev/null || true' EXIT

# phase PRECISION THREADS_YAML: the config of one phase (written whole, then renamed over the
# one the daemon reads).
phase() {
  write_config "$config.next" "$logs" "  uri: $video
  loop: true
  realtime: $realtime" "  path: $fp32
  int8_path: $int8
  precision: $1${floor:+
  auto_min_map50: $floor}" "$2" '  listen: ""' --interval-s "$interval"
  if [ -n "$drift_after" ]; then
    printf 'checks:\n  drift_after_min: %s\n' "$drift_after" >>"$config.next"
  fi
  mv "$config.next" "$config"
}

echo "field-report-run: $model on $(basename "$video"), ${#phases[@]} phases of $phase_s s, field log every $interval s, in $out"
for i in "${!phases[@]}"; do
  precision=${phases[$i]%%|*}
  threads=${phases[$i]#*|}
  phase "$precision" "$threads"
  if [ "$i" -eq 0 ]; then
    start_daemon "$config" "$out/state" "$out/daemon.out"
  else
    kill -HUP "$daemon_pid"
  fi
  echo "  phase $((i + 1))/${#phases[@]}: $precision, $(echo "$threads" | tr -s ' \n' ' ')"
  sleep "$phase_s"
done
stop_daemon
trap - EXIT
"$cli_bin" report "$logs" --out "$out/report"
