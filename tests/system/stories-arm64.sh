# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash disable=SC2016,SC2154
# (SC2016: conditions are shell text evaluated later, by wait_until; SC2154: the variables come
# from scripts/system-test.sh, which sources this file.)
# The arm64 smoke test, in an emulated arm64 VM (tests/system/vm.sh with qemu-system-aarch64,
# -cpu cortex-a76: a Pi 5's cores): the arm64 package installed, READY with yolo11n at 320 on a
# file source, a reload to INT8, detections read from the status API. Emulation is slower still
# than the amd64 VM's: one story, few frames.

story_arm64_smoke() {
  local out int8
  out=$(guest_sh "cd /mnt/packages && DEBIAN_FRONTEND=noninteractive apt install -y ./yolo-edge_*_arm64.deb 2>&1") ||
    fail "apt install failed: $(tail -n 20 <<<"$out")"
  expect_eq "the architecture" "$(guest_run dpkg --print-architecture)" arm64
  expect_contains "the journal" "$(guest_run journalctl -u yolo-edged -o cat --no-pager)" \
    "model.path: is not set"

  guest_run install -D -m 0640 -g yolo-edge /mnt/fixtures/models/yolo11n_320_fp32.onnx \
    /var/lib/yolo-edge/models/yolo11n.onnx
  # The INT8 file made natively from the clip (quantizing under emulation takes too long); the
  # file is the same QDQ ONNX on any CPU.
  int8=$(int8_model)
  guest_copy_in "$int8" /root/yolo11n.int8.onnx
  guest_run install -m 0640 -g yolo-edge /root/yolo11n.int8.onnx /var/lib/yolo-edge/models/yolo11n.int8.onnx
  guest_run install -D -m 0640 -g yolo-edge /mnt/fixtures/video/traffic_720p_30fps.mp4 \
    /var/lib/yolo-edge/videos/traffic.mp4
  set_config model.path '"/var/lib/yolo-edge/models/yolo11n.onnx"' \
    model.int8_path '"/var/lib/yolo-edge/models/yolo11n.int8.onnx"' \
    source.uri '"/var/lib/yolo-edge/videos/traffic.mp4"' source.loop true source.realtime false \
    threads.mode fixed threads.count 2 http.max_fps 1.0
  guest_run runuser -u yolo-edge -- yolo-edge config --check /etc/yolo-edge/yolo-edge.yaml
  vm_emulation_dropin
  guest_run systemctl restart yolo-edged
  expect_eq "after restart" "$(unit_prop ActiveState)/$(unit_prop SubState)" active/running
  expect_ready_before_active
  wait_until 600 "frames at fp32" '[ "$(status_field .frames)" -gt 1 ]'
  local pid
  pid=$(unit_prop MainPID)
  set_config model.precision int8
  guest_run systemctl reload yolo-edged
  wait_until 900 "INT8 after the reload" '[ "$(status_field .model.precision)" = int8 ]'
  expect_eq "MainPID across the reload" "$(unit_prop MainPID)" "$pid"
  local frames
  frames=$(status_field .frames)
  wait_until 600 "frames at int8" '[ "$(status_field .frames)" -gt '"$frames"' ]'
  local detections
  detections=$(guest_curl -sS -N --max-time 120 /api/detections | grep -m1 '^data: {' | cut -c7-) || true
  [ -n "$detections" ] || fail "no detections event in 120 s"
  note "a detections event: $(head -c 400 <<<"$detections")"
  jq -e '.detections | length > 0' <<<"$detections" >/dev/null ||
    fail "no detection in the traffic clip's frame: $detections"
}

arm64_stories() {
  story arm64_smoke "arm64: install, READY with yolo11n 320, reload to INT8, detections"
}
