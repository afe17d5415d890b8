# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash disable=SC2016,SC2154
# (SC2016: conditions are shell text evaluated later, by wait_until; SC2154: the variables come
# from scripts/system-test.sh, which sources this file.)
# The kernel-device stories, in the emulated VM (tests/system/vm.sh): the vivid V4L2 camera at the
# default source.uri, its unplug, the vimc camera through libcamera (libcamerasrc), and GPIO on
# gpio-sim lines. Emulation makes inference seconds
# per frame: the stories use yolo11n at 320, one thread, and wait generously. Each builds on the
# ones before it, in the order vm_stories runs them.

readonly vm_config=/etc/yolo-edge/yolo-edge.yaml
readonly vm_model=/var/lib/yolo-edge/models/yolo11n.onnx

# apt install ./yolo-edge_*.deb (the dependencies are in the image already: apt under emulation
# takes minutes per hundred packages; the container's install story resolves them).
story_vm_install() {
  local out
  out=$(guest_sh "cd /mnt/packages && DEBIAN_FRONTEND=noninteractive apt install -y ./yolo-edge_*_amd64.deb 2>&1") ||
    fail "apt install failed: $(tail -n 20 <<<"$out")"
  printf '%s\n' "$out"
  expect_lacks "apt install" "$out" "Could not execute systemctl"
  expect_contains "apt install" "$out" "set model.path in $vm_config"
  expect_eq "the first start's exit status" "$(unit_prop ExecMainStatus)" 78
  expect_contains "the journal" "$(guest_run journalctl -u yolo-edged -o cat --no-pager)" \
    "model.path: is not set"
}

# The vivid camera at the default source.uri (/dev/video0): active only after READY=1, the STATUS=
# line in systemctl status, structured fields in journalctl -o json.
story_vm_camera() {
  guest_run modprobe vivid
  wait_until 20 "/dev/video0" 'guest_run test -c /dev/video0'
  note "$(guest_run v4l2-ctl -d /dev/video0 --info | head -n 6)"
  guest_run install -D -m 0640 -g yolo-edge /mnt/fixtures/models/yolo11n_320_fp32.onnx "$vm_model"
  expect_eq "source.uri (the default)" "$(guest_run grep -m1 '^  uri:' "$vm_config")" '  uri: "/dev/video0"'
  # A small camera mode: vivid draws each frame on the emulated CPU.
  set_config model.path "\"$vm_model\"" threads.mode fixed threads.count 1 logging.interval_s 5.0 \
    http.max_fps 1.0 source.width 320 source.height 240 source.fps 5.0
  vm_emulation_dropin
  guest_run runuser -u yolo-edge -- yolo-edge config --check "$vm_config"
  guest_run systemctl restart yolo-edged
  expect_eq "after restart" "$(unit_prop ActiveState)/$(unit_prop SubState)" active/running
  expect_ready_before_active
  status=$(guest_run systemctl status --no-pager yolo-edged || true)
  printf '%s\n' "$status"
  expect_contains "systemctl status" "$status" 'Status: "fp32 yolo11n 320x320'
  local fields
  fields=$(guest_run journalctl -u yolo-edged -o json --no-pager | jq -r 'select(.YOLO_EVENT?) | .YOLO_EVENT' | sort -u)
  expect_contains "YOLO_EVENT fields in journalctl -o json" "$fields" ready
  expect_contains "YOLO_EVENT fields in journalctl -o json" "$fields" source_opened
  wait_until 300 "frames from the camera" '[ "$(status_field .frames)" -gt 1 ]'
  expect_eq "NRestarts (no watchdog kill)" "$(unit_prop NRestarts)" 0
  note "source: $(status_field -c .source)"
}

# From the host through the forwarded loopback port.
story_vm_http() {
  local tmp
  tmp=$(mktemp -d)
  expect_contains "the page" "$(guest_curl -fsS --max-time 30 /)" "<title>"
  expect_eq "status .source.uri" "$(status_field .source.uri)" /dev/video0
  expect_contains "/metrics" "$(guest_curl -fsS --max-time 30 /metrics)" "yolo_edge_frames"
  # A snapshot waits 5 s for a fresh frame and answers 503 (Retry-After: 5) without one; emulated,
  # frames are further apart than that: retry as its Retry-After says.
  guest_curl -fsS --max-time 120 --retry 10 -o "$tmp/snapshot.jpg" /snapshot.jpg
  expect_eq "/snapshot.jpg starts with" "$(head -c 3 "$tmp/snapshot.jpg" | od -An -tx1 | tr -d ' ')" ffd8ff
  mkdir -p "$system_out/screenshots"
  cp "$tmp/snapshot.jpg" "$system_out/screenshots/vm-vivid-snapshot.jpg"
  stream_until 1 'Content-Type: image/jpeg' 40 "$tmp/stream" /stream.mjpg
  grep -aq 'Content-Type: image/jpeg' "$tmp/stream" || fail "/stream.mjpg sent no JPEG in 40 s"
  stream_until 1 '^data: {' 40 "$tmp/sse" /api/detections
  grep -q '^data: {' "$tmp/sse" || fail "/api/detections sent no event in 40 s"
  screenshot "$(guest_url /)" vm-page.png 1280,900 login
  rm -rf "$tmp"
}

# The camera unplugged while streaming, then rmmod vivid: the daemon stays up, says the camera is lost, is not killed by the
# watchdog, and reopens it by itself soon after modprobe vivid.
story_vm_unplug() {
  local pid restarts lost_before opened_before
  pid=$(unit_prop MainPID)
  restarts=$(unit_prop NRestarts)
  lost_before=$(field_event_count source_lost)
  opened_before=$(field_event_count source_opened)
  # The daemon holds /dev/video0 open, which pins the module: unbinding the device is the unplug
  # (as a USB camera pulled out), and rmmod succeeds once the daemon let go of the dead device.
  guest_sh 'echo vivid.0 >/sys/bus/platform/drivers/vivid/unbind'
  wait_until 60 "camera lost (status)" '[ "$(status_field .source.state)" = lost ]'
  wait_until 30 "rmmod vivid (the daemon closed the unplugged camera)" 'guest_run rmmod vivid'
  expect_contains "the STATUS= line" "$(unit_prop StatusText)" "lost"
  # A daemon waiting for its camera is not stuck: it goes on feeding the watchdog (the last ping
  # systemd saw moves on). It pings every half WatchdogSec, so that long and some more.
  local ping
  ping=$(unit_prop WatchdogTimestampMonotonic)
  wait_until $((vm_watchdog_s / 2 + 15)) "a watchdog ping while the camera is away" \
    '[ "$(unit_prop WatchdogTimestampMonotonic)" -gt '"$ping"' ]' \
    'echo "last ping at '"$ping"' us; status: $(unit_prop StatusText)"'
  expect_eq "MainPID while the camera is away" "$(unit_prop MainPID)" "$pid"
  expect_eq "NRestarts" "$(unit_prop NRestarts)" "$restarts"
  [ "$(field_event_count source_lost)" -gt "$lost_before" ] || fail "no source_lost event"
  guest_run modprobe vivid
  wait_until 15 "camera reopened after modprobe vivid (source_opened event)" \
    '[ "$(field_event_count source_opened)" -gt '"$opened_before"' ]'
  wait_until 120 "frames again" '[ "$(status_field .source.state)" != lost ]'
  expect_eq "MainPID" "$(unit_prop MainPID)" "$pid"
}

# gpio-sim lines: the chip belongs to group gpio (the package's udev rule); an alert line goes
# active while anything is seen (yolo11n at 320 calls the first frames of the traffic clip a
# train; its cars come later), the status LED blinks, a press on the button line switches
# precision.
story_vm_gpio() {
  guest_run modprobe gpio-sim
  guest_sh 'set -e
    chip=/sys/kernel/config/gpio-sim/yolo-edge-test
    mkdir -p $chip/bank0
    echo 8 >$chip/bank0/num_lines
    echo yolo-edge-sim >$chip/bank0/label
    echo 1 >$chip/live'
  # This chip's own names from configfs: other stories' chips (the libgpiod tests make and remove
  # their own) may come and go beside it.
  local chip_name dev sim
  chip_name=$(guest_run cat /sys/kernel/config/gpio-sim/yolo-edge-test/bank0/chip_name)
  dev=/dev/$chip_name
  sim=/sys/devices/platform/$(guest_run cat /sys/kernel/config/gpio-sim/yolo-edge-test/dev_name)/$chip_name
  # udev applies the rule when it has processed the add event; under emulation that takes seconds.
  guest_run udevadm settle --timeout=60 || true
  wait_until 30 "$dev owned by group gpio" '[ "$(guest_run stat -c %G:%a '"$dev"')" = gpio:660 ]' \
    'echo "$(guest_run stat -c %U:%G:%a '"$dev"'); udev rule: $(guest_run ls /usr/lib/udev/rules.d/ | grep yolo)"'

  # INT8 for the button, made natively on the host from the clip (emulated, it takes too long).
  local int8
  int8=$(int8_model)
  guest_copy_in "$int8" /root/yolo11n.int8.onnx
  guest_run install -D -m 0640 -g yolo-edge /root/yolo11n.int8.onnx /var/lib/yolo-edge/models/yolo11n.int8.onnx
  guest_run install -D -m 0640 -g yolo-edge /mnt/fixtures/video/traffic_720p_30fps.mp4 \
    /var/lib/yolo-edge/videos/traffic.mp4
  # On its own too (--only vm_install,vm_gpio): the model as vm_camera installs it.
  guest_run install -D -m 0640 -g yolo-edge /mnt/fixtures/models/yolo11n_320_fp32.onnx "$vm_model"
  vm_emulation_dropin
  set_config model.path "\"$vm_model\"" threads.mode fixed threads.count 1 http.max_fps 1.0 \
    source.uri '"/var/lib/yolo-edge/videos/traffic.mp4"' source.loop true source.realtime false \
    source.width 0 source.height 0 source.fps 0.0 \
    model.int8_path '"/var/lib/yolo-edge/models/yolo11n.int8.onnx"' \
    gpio.chip '"yolo-edge-sim"' \
    gpio.alerts '[{line: 0, classes: [], consecutive_frames: 1, hold_ms: 60000}]' \
    gpio.status_led '{line: 1}' gpio.precision_button '{line: 2, debounce_ms: 50}'
  guest_run runuser -u yolo-edge -- yolo-edge config --check "$vm_config"
  # A restart, not a reload: this story is GPIO's (the reload stories are the container's).
  guest_run systemctl restart yolo-edged
  wait_until 120 "the GPIO lines requested" \
    'status_field -e ".outputs.gpio | objects | (has(\"warning\") | not)"' \
    'status_field -c .outputs.gpio'
  note "gpio status: $(status_field -c .outputs.gpio)"
  wait_until 300 "alert line 0 active (an object seen)" "[ \"\$(guest_run cat $sim/sim_gpio0/value)\" = 1 ]" \
    'echo "NRestarts $(unit_prop NRestarts); status: $(status_field -c "{frames, source: .source.state, gpio: .outputs.gpio.lines[0]}"); last detections: $(last_interval | jq -c .detections)"'
  # The LED blinks while results come; before the second result the daemon cannot know the pace
  # of an emulated CPU's frames (one in 5-30 s), so it may be dark between the first two. Sampled
  # every 0.1 s in the guest until it has been seen both on and off, for at most 90 s.
  local blink
  blink=$(guest_sh "on=; off=; i=0
    while [ \$i -lt 900 ]; do
      case \$(cat $sim/sim_gpio1/value) in 0) off=1 ;; 1) on=1 ;; esac
      if [ -n \"\$on\" ] && [ -n \"\$off\" ]; then echo \$i; exit 0; fi
      sleep 0.1; i=\$((i + 1))
    done; echo never" | tail -n1)
  [ "$blink" != never ] || fail "the status LED did not blink in 90 s: $(status_field -c .outputs.gpio.lines[1])"
  note "status LED line 1 seen on and off within $blink samples 0.1 s apart"
  # Active low with the default pull-up: pulling the line down is a press.
  guest_run sh -c "echo pull-down >$sim/sim_gpio2/pull"
  sleep 1
  guest_run sh -c "echo pull-up >$sim/sim_gpio2/pull"
  wait_until 30 "precision_button event" '[ "$(field_event_count precision_button)" -ge 1 ]'
  wait_until 240 "INT8 after the press" '[ "$(status_field .model.precision)" = int8 ]'

}

# The README's form of a Pi camera's uri (the daemon adds videoconvert and its appsink). 480x360:
# libcamera's vimc handler takes only multiples of 6 (a sensor a third of the output, aligned to 2
# pixels) and adjusts other sizes, 640x480 to 636x480, which then fail to negotiate.
readonly vm_libcamera_uri='libcamerasrc ! video/x-raw,width=480,height=360,framerate=30/1'

# libcamerasrc 0.0.3 queues a request with libcamera before recording it in its own queue; a
# completion in between pops the empty queue and the daemon dies (SIGSEGV in libgstlibcamera.so)
# and is restarted. With vimc at its own rate (about 30 fps emulated) that came every few
# minutes; the image's vimc makes 5 fps (system_image_vimc_source). A crash is named as such, not
# only counted.
expect_no_libcamera_crash() {
  local crashes
  crashes=$(guest_run journalctl -k -b --no-pager -o cat | grep 'segfault.*libgstlibcamera' || true)
  [ -z "$crashes" ] || fail "libcamerasrc crashed the daemon: $crashes"
  expect_eq "NRestarts (no crash, no watchdog kill)" "$(unit_prop NRestarts)" 0
}

# A Pi camera module's path, without a Pi: libcamera -> libcamerasrc -> the daemon. vimc (the
# kernel's virtual media-controller camera, built for the image as gpio-sim is) is a sensor, a
# debayer and a scaler behind a media device, which libcamera's vimc pipeline handler finds,
# links and configures itself, as the Pi's handler does a CSI sensor and its ISP; the installed
# service (user yolo-edge, group video, the unit's sandbox) opens it through the same GStreamer
# element and pipeline form the README gives for a Pi camera. vivid (the stories before) stays
# loaded: libcamera has no handler for it.
story_vm_libcamera() {
  guest_run modprobe vimc
  # libcamera matches the media device once udev has made its nodes (video, subdevs, media).
  guest_run udevadm settle --timeout=60 || true
  local cameras
  wait_until 60 "cam --list names the vimc camera" 'guest_run cam --list 2>/dev/null | grep -q "platform/vimc"' \
    'guest_run cam --list 2>&1 | tail -n 5'
  cameras=$(guest_run cam --list 2>/dev/null)
  note "cam --list: $cameras"
  # The vimc nodes are the service's to open: group video (udev), allowed by the unit's DeviceAllow.
  note "$(guest_sh 'ls -l /dev/media* /dev/v4l-subdev* /dev/video*')"
  guest_run install -D -m 0640 -g yolo-edge /mnt/fixtures/models/yolo11n_320_fp32.onnx "$vm_model"
  vm_emulation_dropin
  set_config model.path "\"$vm_model\"" threads.mode fixed threads.count 1 logging.interval_s 5.0 \
    http.max_fps 1.0 source.uri "\"$vm_libcamera_uri\"" source.loop false source.realtime false \
    source.width 0 source.height 0 source.fps 0.0
  guest_run runuser -u yolo-edge -- yolo-edge config --check "$vm_config"
  guest_run systemctl restart yolo-edged
  expect_eq "after restart" "$(unit_prop ActiveState)/$(unit_prop SubState)" active/running
  expect_ready_before_active
  expect_contains "the STATUS= line" "$(unit_prop StatusText)" "fp32 yolo11n 320x320"
  expect_eq "status .source.uri" "$(status_field .source.uri)" "$vm_libcamera_uri"
  wait_until 120 "the libcamera source open" '[ "$(status_field .source.state)" = streaming ]' \
    'status_field -c .source'
  local description
  description=$(status_field .source.description)
  expect_contains "the source" "$description" "GStreamer pipeline"
  expect_contains "the source" "$description" "480x360"
  # Frames flow: inference's frame count rises by at least two after the source opened.
  local frames
  frames=$(status_field .frames)
  wait_until 300 "two more inference frames from the vimc camera" \
    '[ "$(status_field .frames)" -ge '"$((frames + 2))"' ]' 'status_field -c "{frames, source}"'
  expect_no_libcamera_crash
  # The live page's frame: a JPEG of the camera's size, through the forwarded port.
  local tmp
  tmp=$(mktemp -d)
  guest_curl -fsS --max-time 120 --retry 10 -o "$tmp/snapshot.jpg" /snapshot.jpg
  expect_eq "/snapshot.jpg starts with" "$(head -c 3 "$tmp/snapshot.jpg" | od -An -tx1 | tr -d ' ')" ffd8ff
  expect_eq "/snapshot.jpg's size" "$(jpeg_size "$tmp/snapshot.jpg")" 480x360
  mkdir -p "$system_out/screenshots"
  cp "$tmp/snapshot.jpg" "$system_out/screenshots/vm-libcamera-snapshot.jpg"
  rm -rf "$tmp"
  screenshot "$(guest_url /)" vm-libcamera-page.png 1280,900 login
  expect_no_libcamera_crash
  # What libcamera said while the service ran it, for the log (its warnings are not failures).
  note "libcamera in the journal: $(guest_run journalctl -u yolo-edged -b --no-pager -o cat |
    grep -iE 'libcamera|vimc|\[[0-9:.]+\] ?\[[0-9]+\]' | tail -n 15)"
}

# The project's libgpiod tests (tests/daemon/outputs/gpio/test_libgpiod.cpp) against the kernel's gpio-sim,
# for both libgpiod APIs: they skip on every machine without it. As root in the guest; each makes
# and removes its own simulated chips.
story_vm_libgpiod() {
  guest_run modprobe gpio-sim
  local test name out
  for test in test_libgpiod test_libgpiod_v2; do
    [ -x "$build_dir/bin/$test" ] || fail "no $build_dir/bin/$test: build it first"
    guest_copy_in "$build_dir/bin/$test" "/root/$test"
    guest_run chmod +x "/root/$test"
    out=$(guest_run "/root/$test" --gtest_filter='*OnGpioSim*' 2>&1) || fail "$test failed: $(tail -n 30 <<<"$out")"
    printf '%s\n' "$out" >"$system_out/vm-$test.log"
    name=$(grep -o '\[  PASSED  \] [0-9]* test' <<<"$out" || true)
    [ -n "$name" ] || fail "$test passed nothing"
    ! grep -q '\[  SKIPPED \]' <<<"$out" || fail "$test skipped on gpio-sim: $(grep -m3 'SKIP' <<<"$out")"
    note "$test on gpio-sim: $name(s), none skipped"
  done
}

# In the running guest, with camera and GPIO: exposure <= 2.5, nothing refused.
story_vm_security() {
  local out score denied
  out=$(guest_run systemd-analyze security --no-pager yolo-edged 2>&1 || true)
  score=$(sed -n 's/.*Overall exposure level for yolo-edged.service: \([0-9.]*\).*/\1/p' <<<"$out")
  [ -n "$score" ] || fail "no exposure level: $(tail -n 3 <<<"$out")"
  expect_le "exposure level" "$score" 2.5
  denied=$(guest_run journalctl -b --no-pager -o cat -u yolo-edged |
    grep -Ei 'operation not permitted|EPERM|seccomp|SIGSYS|read-only file system' || true)
  [ -z "$denied" ] || fail "refused by the hardening: $denied"
}

vm_stories() {
  story vm_install "apt install in the VM; first start names model.path"
  story vm_camera "vivid at /dev/video0: READY, STATUS=, journal fields"
  story vm_http "page, status, metrics, snapshot, stream via a forwarded loopback port"
  story vm_unplug "rmmod vivid: lost, not killed, reopened after modprobe"
  story vm_libcamera "vimc through libcamera: libcamerasrc pipeline, READY, frames, snapshot"
  story vm_libgpiod "the libgpiod v1 and v2 tests on gpio-sim, in the guest"
  story vm_gpio "gpio-sim: the chip to group gpio; alert line, LED, button"
  story vm_security "security <= 2.5 and nothing denied, in the running guest"
}
