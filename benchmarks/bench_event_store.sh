#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The event store's disk goal (issue 39): an hour of events (every 2 s: snapshot, crop and a
# 10 s clip at 5 fps, 720p) at compressed time on a 64 MB filesystem, then kill -9 during writing
# and a restart that must find nothing half-written. Root only (it mounts). Prints figures.
#   benchmarks/bench_event_store.sh BUILD_DIR [tmpfs|ext4] [MINUTES]
set -euo pipefail

build=${1:?usage: bench_event_store.sh BUILD_DIR [tmpfs|ext4] [MINUTES]}
kind=${2:-tmpfs}
minutes=${3:-60}
bench=$build/bin/bench_event_store
mnt=$(mktemp -d /tmp/yolo-edge-bench-store.XXXXXX)
image=""
ballast=24

cleanup() {
  umount "$mnt" 2>/dev/null || true
  [[ -n $image ]] && rm -f "$image"
  rmdir "$mnt"
}
trap cleanup EXIT

if [[ $kind == ext4 ]]; then
  image=$(mktemp /tmp/yolo-edge-bench-store.XXXXXX.img)
  truncate -s 64M "$image"
  mkfs.ext4 -q "$image"
  mount -o loop "$image" "$mnt"
  # ext4 keeps some of the 64 MB for itself: a smaller ballast still meets the floor.
  ballast=10
else
  mount -t tmpfs -o size=64m tmpfs "$mnt"
fi
echo "== on $kind, 64 MB ($(df -h --output=size,avail "$mnt" | tail -1 | xargs))"

"$bench" encode
"$bench" run "$mnt/state" --minutes "$minutes" --ballast-mb "$ballast" 2>/dev/null

echo "== kill -9 during writing, then a restart"
rm -rf "$mnt/state"
for round in 1 2 3 4 5; do
  "$bench" run "$mnt/state" --minutes "$minutes" --ballast-mb 0 >/dev/null 2>&1 &
  pid=$!
  # Killed at a different moment each round, while it writes.
  sleep "$(awk -v r="$round" 'BEGIN { srand(r); printf "%.2f", 1 + rand() * 3 }')"
  kill -9 "$pid"
  wait "$pid" 2>/dev/null || true
  echo -n "round $round: "
  "$bench" check "$mnt/state"
done
