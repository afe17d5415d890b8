# SPDX-License-Identifier: Apache-2.0
# Shared by scripts/soak.sh and the benchmark scripts (bench-daemon.sh, bench-int8.sh,
# bench-models.sh, field-report-run.sh): read their options, run yolo-edged on a config in a
# scratch folder (through scripts/lib/fixture_daemon.py) and read what it logged. Source it; it
# defines functions only.

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=${YOLO_EDGE_BUILD_DIR:-$here/build}
daemon_bin=$build_dir/bin/yolo-edged
cli_bin=$build_dir/bin/yolo-edge
fixtures=${YOLO_EDGE_FIXTURES:-$here/../shared/fixtures}

require_build() {
  if [ ! -x "$daemon_bin" ] || [ ! -x "$cli_bin" ]; then
    echo "$(basename "$0"): no build in $build_dir; run scripts/setup.sh first" >&2
    exit 2
  fi
  if [ ! -d "$fixtures/models" ]; then
    echo "$(basename "$0"): fixtures not found at $fixtures (clone ../shared beside the project or set YOLO_EDGE_FIXTURES)" >&2
    exit 2
  fi
}

# parse_options USAGE SPEC... -- ARGS...: sets a variable for each option in ARGS. A SPEC
# --name=variable is an option that takes a value (--rounds=rounds: "--rounds 5" sets rounds=5);
# --name=variable:VALUE is a flag that sets the variable to VALUE (--paced=realtime:true). Any
# other argument, or an option without its value, prints USAGE and exits 2.
parse_options() {
  local usage=$1
  shift
  local -A takes=() sets=()
  while [ "$1" != -- ]; do
    local name=${1%%=*} target=${1#*=}
    if [[ $target == *:* ]]; then sets[$name]=$target; else takes[$name]=$target; fi
    shift
  done
  shift
  while [ $# -gt 0 ]; do
    if [ -n "${takes[$1]:-}" ] && [ -n "${2:-}" ]; then
      printf -v "${takes[$1]}" '%s' "$2"
      shift 2
    elif [ -n "${sets[$1]:-}" ]; then
      printf -v "${sets[$1]%%:*}" '%s' "${sets[$1]#*:}"
      shift
    else
      echo "$usage" >&2
      exit 2
    fi
  done
}

# require_peer DIR: exits 2 unless DIR holds the ONNX Runtime peer (ort_peer.js).
# work_folder NAME: sets $work to a fresh folder under /tmp when it is empty (--work not given),
# or fails when it is not a folder; says where the work goes and how busy the machine is.
work_folder() {
  local name=$1
  if [ -z "$work" ]; then
    work=$(mktemp -d "/tmp/yolo-edge-$name.XXXXXX")
  elif [ ! -d "$work" ]; then
    echo "bench-$name: --work $work is not a folder" >&2
    exit 2
  fi
  echo "bench-$name: work in $work; $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
}

require_peer() {
  if [ ! -f "$1/ort_peer.js" ]; then
    echo "$(basename "$0" .sh): no ONNX Runtime peer in $1; make it with ../shared/bench/setup.sh $1" >&2
    exit 2
  fi
}

# cached_int8 MODEL: prints the INT8 file of fixture MODEL (e.g. yolo11n_320_fp32), made once with
# yolo-edge quantize (64 frames of the fixture video) and kept in /tmp/yolo-edge-bench-cache.
cached_int8() {
  local int8=/tmp/yolo-edge-bench-cache/$1.int8.onnx
  mkdir -p /tmp/yolo-edge-bench-cache
  if [ ! -f "$int8" ]; then
    echo "making $int8 (yolo-edge quantize, 64 frames)..." >&2
    "$cli_bin" quantize --model "$fixtures/models/$1.onnx" \
      --calib "$fixtures/video/birds_720p_10fps.mp4" --frames 64 --out "$int8" >/dev/null 2>&1 ||
      { echo "$(basename "$0"): yolo-edge quantize failed on $1" >&2; return 1; }
  fi
  echo "$int8"
}

# The daemon runs through scripts/lib/fixture_daemon.py, the one place that writes a fixture config,
# starts yolo-edged, waits for it and stops it (the Python benchmarks use it as a module).
fixture_daemon=$here/scripts/lib/fixture_daemon.py

# write_config FILE LOGDIR SOURCE_YAML MODEL_YAML [THREADS_YAML] [HTTP_YAML] [--interval-s S]: a
# config with 1 s intervals (or S); threads adaptive unless THREADS_YAML, HTTP off unless HTTP_YAML
# says otherwise (port 8080 may be taken).
write_config() {
  python3 "$fixture_daemon" config "$@"
}

# start_daemon CONFIG STATE_DIR OUTPUT: starts yolo-edged in the background; sets daemon_pid.
start_daemon() {
  python3 "$fixture_daemon" exec "$1" "$2" --build "$build_dir" >"$3" 2>&1 &
  daemon_pid=$!
}

# wait_for_lines LOGDIR N TIMEOUT_S: waits until the field log has N interval lines with frames.
wait_for_lines() {
  python3 "$fixture_daemon" wait-lines "$1" "$2" "$3" && return 0
  echo "$(basename "$0"): no $2 interval lines with frames in $1 after $3 s" >&2
  return 1
}

# stop_daemon: SIGTERM, then waits for the exit (SIGKILL after 10 s); once only.
stop_daemon() {
  [ -n "${daemon_pid:-}" ] || return 0
  python3 "$fixture_daemon" stop "$daemon_pid" || true
  wait "$daemon_pid" 2>/dev/null || true
  daemon_pid=
}

# thread_cpu PID: "name ticks" per thread (utime + stime, clock ticks).
thread_cpu() {
  local pid=$1 t
  for t in /proc/"$pid"/task/*; do
    # comm may hold spaces; stat's fields after the ')' are fixed.
    local name stat
    name=$(cat "$t/comm" 2>/dev/null) || continue
    stat=$(sed 's/.*) //' "$t/stat" 2>/dev/null) || continue
    set -- $stat
    echo "$name $((${12} + ${13}))"
  done
}
