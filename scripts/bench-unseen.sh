#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The quantizer on scenes it was not tuned on (issue 41, item 4): for each fixture clip (the
# motorway traffic clip and the top-down crowd clip) and each model (yolov8n 640, yolo11n 320,
# yolo26n 640):
#   1. counts the clip's frames (ffprobe, decoding them);
#   2. quantizes the FP32 model with the defaults on the first half only
#      (quantize --from-first N/2 --frames F);
#   3. judges the INT8 file against FP32 on the frames after it (compare --skip N/2 --floor:
#      FP32 against itself under an invisible +-1 grey level change is the closest INT8 can be);
#   4. prints per model and clip: INT8's mAP50 over the judged classes (>= 10 FP32 boxes), its box
#      AP50, FP32's floor of both, the gap, the goals (mAP50 >= floor - 0.02, box AP50 >= 0.98),
#      and the class table with the box counts beside every AP50;
#   5. with --speed, INT8 / FP32 at 1 thread (bench --baseline, interleaved rounds; goal <= 0.35,
#      <= 0.40 for yolo26n) on each file quantized.
#   scripts/bench-unseen.sh [--models M,M] [--clips traffic,crowd] [--frames F] [--judge N]
#                           [--speed] [--rounds N] [--runs N] [--work DIR]
# --judge N compares only the first N frames of each clip's second half (0, the default: all of
# it). Files and reports go to a fresh folder under /tmp, printed first; --work DIR reuses one:
# each step whose output is there is skipped (delete MODEL.CLIP.compare.json to judge again).
# Heavy: run it with nice on a shared machine.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/daemon-run.sh"

models=yolov8n_640,yolo11n_320,yolo26n_640
clips=traffic,crowd
frames=64
judge=0
speed=0
rounds=3
runs=20
work=
usage="usage: scripts/bench-unseen.sh [--models M,M] [--clips traffic,crowd] [--frames F] [--judge N] [--speed] [--rounds N] [--runs N] [--work DIR]"
parse_options "$usage" --models=models --clips=clips --frames=frames --judge=judge \
  --speed=speed:1 --rounds=rounds --runs=runs --work=work -- "$@"
# The CLI only (require_build also wants the daemon).
if [ ! -x "$cli_bin" ]; then
  echo "bench-unseen: no $cli_bin; build the yolo-edge target first" >&2
  exit 2
fi
if [ ! -d "$fixtures/models" ]; then
  echo "bench-unseen: fixtures not found at $fixtures (clone ../shared beside the project or set YOLO_EDGE_FIXTURES)" >&2
  exit 2
fi
if ! command -v ffprobe >/dev/null; then
  echo "bench-unseen: ffprobe not found (it counts the clips' frames): apt-get install ffmpeg" >&2
  exit 2
fi

clip_file() {
  case $1 in
    traffic) echo "$fixtures/video/traffic_720p_30fps.mp4" ;;
    crowd) echo "$fixtures/video/crowd_480p_25fps.mp4" ;;
    *)
      echo "bench-unseen: unknown clip '$1' (traffic, crowd)" >&2
      exit 2
      ;;
  esac
}

work_folder unseen

# run_once OUT COMMAND...: COMMAND's standard output into OUT and its messages into OUT.err,
# unless OUT is there.
run_once() {
  local out=$1
  shift
  [ -s "$out" ] && return
  "$@" >"$out.part" 2>"$out.err"
  mv "$out.part" "$out"
}

for clip in ${clips//,/ }; do
  video=$(clip_file "$clip")
  if [ ! -f "$video" ]; then
    echo "bench-unseen: $video not found (update ../shared)" >&2
    exit 2
  fi
  # Decoded, not the header's claim: the halves must be the frames that exist.
  total=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames \
    -of csv=p=0 "$video")
  half=$((total / 2))
  echo "$total $half" >"$work/$clip.frames"
  for model in ${models//,/ }; do
    fp32=$fixtures/models/${model}_fp32.onnx
    int8=$work/$model.$clip.int8.onnx
    echo
    echo "== $model on $clip: $total frames, calibrate on the first $half ($frames of them), judge the other $((total - half))"
    if [ ! -f "$int8" ]; then
      start=$(date +%s.%N)
      if ! "$cli_bin" quantize --model "$fp32" --calib "$video" --from-first "$half" \
        --frames "$frames" --out "$int8" --report "${int8%.onnx}.json" >"${int8%.onnx}.log" 2>&1; then
        echo "bench-unseen: quantize $model on $clip failed:" >&2
        tail -5 "${int8%.onnx}.log" >&2
        exit 1
      fi
      end=$(date +%s.%N)
      python3 -c "print(round($end - $start, 1))" >"$int8.seconds"
    fi
    echo "quantize: $(cat "$int8.seconds" 2>/dev/null || echo '?') s"
    # What stays FP32 and why, the channel spreads.
    grep -E '^(channel spread|kept FP32)' "${int8%.onnx}.log" | awk '!seen[$0]++' || true
    judge_args=()
    [ "$judge" -gt 0 ] && judge_args=(--frames "$judge")
    run_once "$work/$model.$clip.compare.json" "$cli_bin" compare --a "$fp32" --b "$int8" \
      --video "$video" --skip "$half" "${judge_args[@]}" --floor --json
    if [ "$speed" = 1 ]; then
      run_once "$work/$model.$clip.bench.json" "$cli_bin" bench --model "$int8" --precision int8 \
        --baseline "$fp32" --threads 1 --runs "$runs" --rounds "$rounds" --warmup 3 --json
    fi
  done
done

echo
python3 - "$work" "$models" "$clips" "$frames" "$speed" <<'PY'
import json, os, sys
work, models, clips = sys.argv[1], sys.argv[2].split(","), sys.argv[3].split(",")
frames, speed = sys.argv[4], sys.argv[5] == "1"

def load(name):
    with open(os.path.join(work, name)) as f:
        return json.load(f)

def fmt(x):
    return "-" if x is None else f"{x:.3f}"

speed_goal = {"yolo26n_640": 0.40}
verdicts, tables = [], []
print(f"| clip (second half) | model | INT8 mAP50 (judged) / box AP50 | FP32's floor: mAP50 (judged) / box AP50 "
      f"| gap (mAP50 - floor) | judged classes (FP32 boxes) | too few to judge |"
      f"{' INT8/FP32 1 t |' if speed else ''}")
print(f"| --- | --- | --- | --- | --- | --- | --- |{' --- |' if speed else ''}")
for clip in clips:
    total, half = (int(x) for x in open(os.path.join(work, clip + ".frames")).read().split())
    for m in models:
        c = load(f"{m}.{clip}.compare.json")
        floor = c.get("floor") or {}
        mine, fl = c["map50_judged"], floor.get("map50_judged")
        gap = None if mine is None or fl is None else mine - fl
        judged = [k for k in c["classes"] if k["a"] >= c["min_boxes"]]
        judged_text = ", ".join(f"{k['label']} {k['a']}" for k in judged)
        ratio = None
        if speed:
            r = load(f"{m}.{clip}.bench.json")["results"][0]
            ratio = r["best_round_p50_ms"] / r["baseline"]["best_round_p50_ms"]
        print(f"| {clip} ({c['frames']} of {total - half}) | {m} | {fmt(mine)} / {fmt(c['box_ap50'])} "
              f"| {fmt(fl)} / {fmt(floor.get('box_ap50'))} | {'-' if gap is None else f'{gap:+.3f}'} "
              f"| {judged_text} | {c['too_few_boxes'] or '-'} |"
              f"{f' {ratio:.3f} |' if speed else ''}")
        ok_map = mine is not None and fl is not None and mine >= fl - 0.02
        ok_box = (c["box_ap50"] or 0) >= 0.98
        verdicts.append(f"{m} on {clip}: mAP50 (judged) >= floor - 0.02: {'met' if ok_map else 'NOT met'}; "
                        f"box AP50 >= 0.98: {'met' if ok_box else 'NOT met'}"
                        + (f"; INT8/FP32 1 thread <= {speed_goal.get(m, 0.35):.2f}: "
                           f"{'met' if ratio <= speed_goal.get(m, 0.35) else 'NOT met'}" if speed else ""))
        rows = [f"{m} on {clip}: FP32 boxes (A) >= {c['count_conf']}, INT8 boxes (B) >= {c['count_conf']}, "
                f"matched, AP50, FP32's floor AP50 (* judged: >= {c['min_boxes']} of A's boxes)",
                f"  {'class':<16} {'A':>6} {'B':>6} {'matched':>8} {'AP50':>7} {'floor':>7}"]
        for k in sorted(c["classes"], key=lambda k: -k["a"]):
            if k["a"] == 0 and k["b"] == 0:
                continue
            mark = "*" if k["a"] >= c["min_boxes"] else " "
            rows.append(f"{mark} {k['label']:<16} {k['a']:>6} {k['b']:>6} {k['matched']:>8} "
                        f"{fmt(k['ap50']):>7} {fmt(k.get('floor_ap50')):>7}")
        tables.append("\n".join(rows))
print()
print("\n\n".join(tables))
print()
print(f"calibration: --frames {frames} spread over the first half (--from-first); judged with compare --skip --floor")
print("\n".join(verdicts))
PY
