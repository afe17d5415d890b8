#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The daemon's goals (issue 10), measured side by side in one run on the fixture video:
#   1. pipeline overhead: the daemon's FPS on the unpaced video / the throughput `yolo-edge bench`
#      measures for the same model and precision, both at 1 inference thread (goal >= 0.90);
#   2. capture-to-result latency p50 - inference p50, paced video, 1 thread (goal <= 15 ms);
#   3. an FP32 -> INT8 swap: frames lost (goal 0) and the longest gap between two results around
#      it / the median gap (goal <= 2);
#   4. CPU of the daemon's own threads besides inference and frame decoding (goal < 5 % of a core);
#   5. peak RSS during the swap / steady RSS before it (goal <= 1.7);
#   6. events (issue 39): FPS with tracking, a zone, a line, snapshots (the default kinds, or
#      $EVENT_SNAPSHOTS, e.g. "[new, enter, leave, cross, loiter, end]") and clips of crossings and
#      loitering on / off, on the traffic clip unpaced at INT8, nobody watching (goal >= 0.97);
#   7. the live INT8 checks (issue 41): FPS with them on / off and the CPU their thread used, on the
#      traffic clip unpaced at INT8 with 1 inference thread, so the other core has the idle time
#      they run on (goals: ratio >= 0.98, <= 3 % of a core).
# The RSS growth goal is scripts/soak.sh 10.
#   scripts/bench-daemon.sh [--model NAME] [--int8 FILE] [--seconds S] [--events-only] [--checks-only]
# NAME is a fixture model (default yolo11n_320_fp32); without --int8 the INT8 file is made once
# with yolo-edge quantize (64 video frames) and kept in /tmp/yolo-edge-bench-cache.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/daemon-run.sh"

model=yolo11n_320_fp32
int8=""
seconds=30
events_only=false
checks_only=false
parse_options "usage: scripts/bench-daemon.sh [--model NAME] [--int8 FILE] [--seconds S] [--events-only] [--checks-only]" \
  --model=model --int8=int8 --seconds=seconds --events-only=events_only:true \
  --checks-only=checks_only:true -- "$@"
require_build
fp32=$fixtures/models/$model.onnx
video=$fixtures/video/birds_720p_10fps.mp4
if [ -z "$int8" ]; then int8=$(cached_int8 "$model") || exit 2; fi
work=$(mktemp -d /tmp/yolo-edge-bench.XXXXXX)
echo "bench-daemon: $model, $seconds s per daemon run, work in $work"
trap 'stop_daemon 2>/dev/null || true' EXIT

# bench_ms PRECISION FILE: mean latency of 100 runs at 1 thread.
bench_ms() {
  local args=(bench --model "$2" --threads 1 --runs 100)
  [ "$1" = int8 ] && args+=(--precision int8)
  "$cli_bin" "${args[@]}" 2>/dev/null | awk '$1 == "1" && NF >= 8 { print $7 }' | tail -1
}

# Interval lines after the first 5 s (warm-up), as JSON lines, to stdout.
steady_lines() {
  python3 -c '
import json, sys
t = 0.0
for l in open(sys.argv[1]):
    j = json.loads(l)
    if j.get("type") != "interval": continue
    t += j["duration_s"]
    if t > 5 and j["frames"] > 0: print(l, end="")' "$1"
}

# Frames per second of the interval lines after the first 5 s of a field log.
steady_fps() {
  steady_lines "$1" | python3 -c '
import json, sys
lines = [json.loads(l) for l in sys.stdin]
print(sum(l["frames"] for l in lines) / sum(l["duration_s"] for l in lines))'
}

# traffic_int8_config FILE LOGS THREADS: the traffic clip unpaced at INT8 with THREADS (the
# threads section's lines), for the on / off rounds of 6 and 7.
traffic=$fixtures/video/traffic_720p_30fps.mp4
traffic_int8_config() {
  write_config "$1" "$2" "  uri: $traffic
  loop: true
  realtime: false" "  path: $fp32
  int8_path: $int8
  precision: int8" "$3"
}

# 7. The INT8 checks: rounds interleaved (off, on, ...), the medians compared; the CPU of their
# thread (int8-checks) from /proc over the steady part of each run with them on.
declare -A checks_fps=([off]="" [on]="")
checks_cpu=""
for round in 1 2 3; do
  for mode in off on; do
    logs=$work/checks-$mode-$round
    traffic_int8_config "$work/checks.yaml" "$logs" "  mode: fixed
  count: 1"
    printf 'checks:\n  enabled: %s\n' "$([ $mode = on ] && echo true || echo false)" >>"$work/checks.yaml"
    start_daemon "$work/checks.yaml" "$work/checks-state" "$logs.out"
    wait_for_lines "$logs" 1 120
    sleep 5
    cpu_start=$(thread_cpu "$daemon_pid" | awk '$1 == "int8-checks" { print $2 }')
    sleep "$seconds"
    cpu_end=$(thread_cpu "$daemon_pid" | awk '$1 == "int8-checks" { print $2 }')
    stop_daemon
    fps=$(steady_fps "$logs/yolo-edge.jsonl")
    line="7. checks $mode, round $round: $(printf %.2f "$fps") fps"
    if [ "$mode" = on ]; then
      share=$(python3 -c "print(($cpu_end - $cpu_start) / $(getconf CLK_TCK) / $seconds * 100)")
      checks_cpu+="$share "
      line+=", the checks' thread $(printf %.2f "$share") % of a core"
    fi
    echo "$line"
    checks_fps[$mode]+="$fps "
  done
done
python3 - ${checks_fps[off]} -- ${checks_fps[on]} -- $checks_cpu <<'PY'
import statistics, sys
args = sys.argv[1:]
a = args.index("--")
b = args.index("--", a + 1)
off = statistics.median(map(float, args[:a]))
on = statistics.median(map(float, args[a + 1:b]))
cpu = statistics.median(map(float, args[b + 1:]))
print(f"7. INT8 checks: median {on:.2f} fps with them, {off:.2f} fps without: ratio {on / off:.3f} "
      f"(goal >= 0.98); their thread {cpu:.2f} % of a core (goal <= 3 %)")
PY
if [ "$checks_only" = true ]; then
  trap - EXIT
  exit 0
fi

# 6. Events: rounds interleaved (off, on, off, on, ...) so a drift of the machine's speed touches
# both alike; the medians compared.
events_yaml="tracking:
  enabled: true
zones:
  - {name: road, points: [[0.0, 0.45], [1.0, 0.45], [1.0, 1.0], [0.0, 1.0]], loiter_s: 5}
lines:
  - {name: near, from: [0.08, 0.55], to: [0.85, 0.55], in: below}
events:
  snapshots: ${EVENT_SNAPSHOTS:-[enter, cross, loiter]}
  clips: [cross, loiter]"
declare -A events_fps=([off]="" [on]="")
for round in 1 2 3; do
  for mode in off on; do
    logs=$work/events-$mode-$round
    traffic_int8_config "$work/events.yaml" "$logs" "  mode: adaptive"
    if [ "$mode" = on ]; then
      echo "$events_yaml" >>"$work/events.yaml"
    else
      printf 'tracking:\n  enabled: false\n' >>"$work/events.yaml"
    fi
    start_daemon "$work/events.yaml" "$work/events-state-$mode-$round" "$logs.out"
    wait_for_lines "$logs" 1 120
    sleep "$seconds"
    stop_daemon
    fps=$(steady_fps "$logs/yolo-edge.jsonl")
    stored=$(find "$work/events-state-$mode-$round" -name '*.jpg' -o -name '*.avi' | wc -l)
    echo "6. events $mode, round $round: $(printf %.2f "$fps") fps ($stored snapshot and clip files)"
    events_fps[$mode]+="$fps "
  done
done
python3 - ${events_fps[off]} -- ${events_fps[on]} <<'PY'
import statistics, sys
at = sys.argv.index("--")
off, on = map(float, sys.argv[1:at]), map(float, sys.argv[at + 1:])
off, on = statistics.median(off), statistics.median(on)
print(f"6. events: median {on:.2f} fps with tracking, zone, line, snapshots and clips on, "
      f"{off:.2f} fps off: ratio {on / off:.3f} (goal >= 0.97)")
PY
if [ "$events_only" = true ]; then
  trap - EXIT
  exit 0
fi

# 1. Overhead, per precision: bench, daemon, bench, daemon, bench; each daemon run is compared with
# the mean of the two benches around it, so a drift of the machine's speed shows as two ratios
# that disagree instead of one wrong one.
for precision in fp32 int8; do
  file=$fp32
  model_yaml="  path: $fp32"
  if [ "$precision" = int8 ]; then
    file=$int8
    model_yaml="  path: $fp32
  int8_path: $int8
  precision: int8"
  fi
  benches=("$(bench_ms "$precision" "$file")")
  for round in 1 2; do
    logs=$work/unpaced-$precision-$round
    write_config "$work/unpaced.yaml" "$logs" \
      "  uri: $video
  loop: true
  realtime: false" "$model_yaml" "  mode: fixed
  count: 1"
    start_daemon "$work/unpaced.yaml" "$work/state" "$logs.out"
    wait_for_lines "$logs" 1 120
    sleep "$seconds"
    stop_daemon
    benches+=("$(bench_ms "$precision" "$file")")
    steady_lines "$logs/yolo-edge.jsonl" | python3 -c '
import json, sys
lines = [json.loads(l) for l in sys.stdin]
frames = sum(l["frames"] for l in lines)
secs = sum(l["duration_s"] for l in lines)
before, after = float(sys.argv[3]), float(sys.argv[4])
fps, bench_fps = frames / secs, 1000 / ((before + after) / 2)
print(f"1. {sys.argv[1]} round {sys.argv[2]}: daemon {fps:.2f} fps unpaced, bench {bench_fps:.2f} /s "
      f"(mean latency {before:.2f} ms before, {after:.2f} ms after): ratio {fps / bench_fps:.3f} "
      f"(goal >= 0.90)")' "$precision" "$round" "${benches[-2]}" "${benches[-1]}"
  done
done

# 2-5. Paced video at 1 thread: latency and thread CPU, then a swap to INT8.
logs=$work/paced
paced_source="  uri: $video
  loop: true
  realtime: true"
one_thread="  mode: fixed
  count: 1"
write_config "$work/paced.yaml" "$logs" "$paced_source" "  path: $fp32" "$one_thread"
start_daemon "$work/paced.yaml" "$work/state" "$work/paced.out"
wait_for_lines "$logs" 1 120
sleep 5
cpu_start=$(thread_cpu "$daemon_pid")
sleep "$seconds"
cpu_end=$(thread_cpu "$daemon_pid")
python3 - "$cpu_start" "$cpu_end" "$seconds" "$(getconf CLK_TCK)" <<'PY'
import sys
def parse(text):
    out = {}
    for line in text.splitlines():
        name, ticks = line.rsplit(" ", 1)
        out[name] = out.get(name, 0) + int(ticks)
    return out
start, end = parse(sys.argv[1]), parse(sys.argv[2])
seconds, hz = float(sys.argv[3]), float(sys.argv[4])
# infer: the inference thread and its pool workers; capture: reading and decoding frames.
own = 0.0
for name in sorted(end):
    share = (end[name] - start.get(name, 0)) / hz / seconds * 100
    if name not in ("infer", "capture"):
        own += share
    print(f"   thread {name:<16} {share:6.2f} % of a core")
print(f"4. the daemon's own threads (all but infer and capture): {own:.2f} % of a core (goal < 5 %)")
PY

# The swap: steady RSS, peak RSS reset, then SIGHUP to INT8.
steady_rss=$(awk '/VmRSS/ { print $2 }' /proc/"$daemon_pid"/status)
echo 5 >/proc/"$daemon_pid"/clear_refs
write_config "$work/paced.yaml" "$logs" "$paced_source" "  path: $fp32
  int8_path: $int8
  precision: int8" "$one_thread"
kill -HUP "$daemon_pid"
for _ in $(seq 60); do
  grep -q '"event":"swap"' "$logs/yolo-edge.jsonl" && break
  sleep 1
done
sleep 10
peak_rss=$(awk '/VmHWM/ { print $2 }' /proc/"$daemon_pid"/status)
stop_daemon
trap - EXIT
python3 - "$logs/yolo-edge.jsonl" "$steady_rss" "$peak_rss" <<'PY'
import json, statistics, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
intervals = [l for l in lines if l.get("type") == "interval" and l["frames"] > 0]
fp32 = [l for l in intervals if l["precision"] == "fp32"][5:]
e2e = statistics.median(l["latency_ms"]["end_to_end"]["p50"] for l in fp32)
inf = statistics.median(l["latency_ms"]["inference"]["p50"] for l in fp32)
print(f"2. paced, 1 thread: capture-to-result p50 {e2e:.2f} ms, inference p50 {inf:.2f} ms: "
      f"difference {e2e - inf:.2f} ms (goal <= 15 ms)")
swap = next(l for l in lines if l.get("event") == "swap")
at = lines.index(swap)
# The line the swap closed (the last fp32 one) and the first INT8 line hold the gaps around it.
before = max(i for i, l in enumerate(lines[:at]) if l.get("type") == "interval")
after = min(i for i, l in enumerate(lines) if i > at and l.get("type") == "interval")
around = max(lines[i]["result_gap_ms"]["max"] for i in (before, after))
median_gap = statistics.median(l["result_gap_ms"]["p50"] for l in intervals if "result_gap_ms" in l)
print(f"3. swap fp32 -> int8: built in {swap['build_ms']:.0f} ms, frames lost {swap['frames_lost']} "
      f"(goal 0); longest gap around it {around:.1f} ms, median gap {median_gap:.1f} ms: "
      f"ratio {around / median_gap:.2f} (goal <= 2)")
steady, peak = int(sys.argv[2]) / 1024, int(sys.argv[3]) / 1024
print(f"5. RSS steady {steady:.1f} MB, peak during the swap {peak:.1f} MB: ratio {peak / steady:.2f} "
      f"(goal <= 1.7)")
PY
