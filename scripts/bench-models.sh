#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Models as users bring them (issue 23): the goals, each measured side by side in one run.
#   1. FP16 YOLOv5n: our detections against ONNX Runtime's on the photos (same class, IoU >= 0.9,
#      score within 0.02), and its time against the same network in FP32 (goal <= 1.05x);
#   2. the KITTI dynamic-INT8 YOLOv8n quantized on the traffic video's first half: its detections
#      against the dynamic file's, run as written, on the second half (goal mAP50 >= 0.9), and its
#      time against ONNX Runtime running the dynamic file (goal >= 2x faster);
#   3. the dynamic-axes model on the 1280x720 traffic video: the daemon's inference p50 at
#      model.imgsz auto over 640x640, daemon runs alternated (goal <= 0.65), and the detections at
#      auto against 640 on the photos and on the video (boxes in source pixels).
#   scripts/bench-models.sh [--peer DIR] [--seconds S] [--rounds N]
# DIR holds the ONNX Runtime peer (default ~/.cache/ort-peer; ../shared/bench/setup.sh DIR makes
# it). The INT8 file of goal 2 is made once and kept in /tmp/yolo-edge-bench-cache.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/daemon-run.sh"

peer_dir=$HOME/.cache/ort-peer
seconds=20
rounds=3
parse_options "usage: scripts/bench-models.sh [--peer DIR] [--seconds S] [--rounds N]" \
  --peer=peer_dir --seconds=seconds --rounds=rounds -- "$@"
require_build
require_peer "$peer_dir"
for tool in fp32_twin ort_agreement; do
  if [ ! -x "$build_dir/bin/$tool" ]; then
    echo "bench-models: no $build_dir/bin/$tool; cmake --build $build_dir --target $tool" >&2
    exit 2
  fi
done
models=$fixtures/models
traffic=$fixtures/video/traffic_720p_30fps.mp4
work=$(mktemp -d /tmp/yolo-edge-models.XXXXXX)
cache=/tmp/yolo-edge-bench-cache
mkdir -p "$cache"
trap 'stop_daemon 2>/dev/null || true' EXIT
echo "bench-models: work in $work"

echo
echo "== 1. FP16 YOLOv5n"
fp16=$models/yolov5n_640_fp16.onnx
twin=$work/yolov5n_640_fp32twin.onnx
"$build_dir/bin/fp32_twin" "$fp16" "$twin"
"$build_dir/bin/ort_agreement" "$fp16" "$peer_dir" "$fixtures"/images/*.jpg 2>/dev/null || true
"$cli_bin" bench --model "$fp16" --baseline "$twin" --threads 1,2 --runs 30 --rounds "$rounds" \
  --warmup 3 2>/dev/null

echo
echo "== 2. KITTI dynamic INT8, quantized on the traffic video's first half (167 frames)"
dynamic=$models/yolov8n_kitti3_int8dyn.onnx
int8=$cache/yolov8n_kitti3.int8.onnx
if [ ! -f "$int8" ]; then
  "$cli_bin" quantize --model "$dynamic" --calib "$traffic" --frames 167 --out "$int8" \
    --report "$cache/yolov8n_kitti3.int8.json"
fi
"$cli_bin" compare --a "$dynamic" --b "$int8" --video "$traffic" --skip 167 2>/dev/null
"$cli_bin" bench --model "$int8" --peer "$peer_dir/ort_peer.js" --peer-model "$dynamic" \
  --threads 1,2 --runs 30 --rounds "$rounds" --warmup 3 2>/dev/null

echo
echo "== 3. Dynamic axes on a 1280x720 source: imgsz auto against 640x640"
dynaxes=$models/yolov8n_carperson_dynaxes_int8dyn.onnx
"$cli_bin" compare --a "$dynaxes" --b "$dynaxes" --imgsz 640 --imgsz-b auto \
  --images "$fixtures/images" 2>/dev/null
"$cli_bin" compare --a "$dynaxes" --b "$dynaxes" --imgsz 640 --imgsz-b auto \
  --video "$traffic" --skip 167 2>/dev/null | head -6
# The daemon on the unpaced video at 1 thread, auto and 640 alternated; the inference p50 of each
# run's interval lines after a 5 s warm-up.
for round in $(seq "$rounds"); do
  for size in auto 640; do
    logs=$work/daemon-$size-$round
    write_config "$work/daemon.yaml" "$logs" "  uri: $traffic
  loop: true
  realtime: false" "  path: $dynaxes
  imgsz: $size" "  mode: fixed
  count: 1"
    start_daemon "$work/daemon.yaml" "$work/state" "$logs.out"
    wait_for_lines "$logs" 1 120
    sleep "$seconds"
    stop_daemon
  done
done
python3 - "$work" "$rounds" <<'PY'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
def p50(size, r):
    t, values, inputs = 0.0, [], set()
    for line in open(f"{work}/daemon-{size}-{r}/yolo-edge.jsonl"):
        j = json.loads(line)
        if j.get("type") != "interval":
            continue
        t += j["duration_s"]
        if t > 5 and j["frames"] > 0:
            values.append(j["latency_ms"]["inference"]["p50"])
            inputs.add(tuple(j["input"]))
    return statistics.median(values), inputs
ratios = []
for r in range(1, rounds + 1):
    (a, ia), (b, ib) = p50("auto", r), p50("640", r)
    ratios.append(a / b)
    print(f"round {r}: daemon inference p50 at auto {a:.1f} ms (input {sorted(ia)}), "
          f"at 640 {b:.1f} ms (input {sorted(ib)}): ratio {a / b:.3f}")
print(f"auto / 640: median {statistics.median(ratios):.3f}, min {min(ratios):.3f}, "
      f"max {max(ratios):.3f} (goal <= 0.65)")
PY
