# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash disable=SC2016,SC2154
# (SC2016: conditions are shell text evaluated later, by wait_until; SC2154: the variables come
# from scripts/system-test.sh, which sources this file.)
# The systemd stories, in the nspawn container at native speed (tests/system/container.sh): the
# package installed as a user installs it and driven as the README says, on the fixture traffic
# clip as its camera (no kernel camera on the host kernel; the VM stories have one). Each story
# builds on the ones before it, in the order container_stories runs them.

readonly config_file=/etc/yolo-edge/yolo-edge.yaml
readonly model_path=/var/lib/yolo-edge/models/yolo11n.onnx

# README, "Install the Debian package": apt resolves the dependencies from the image's local
# repository (the container has no network); the first start fails naming model.path.
story_install() {
  local out resolved
  # What apt resolves for the package on the system as it was before its dependencies were
  # installed (tests/system's image installs them ahead: scripts/lib/system-image.sh).
  resolved=$(guest_sh 'cd /mnt/packages && apt-get install --simulate -o Dir::State::status=/var/local/yolo-edge-repo/dpkg-status-before ./yolo-edge_*.deb 2>&1') ||
    fail "apt cannot resolve the package from the local repository: $(tail -n 20 <<<"$resolved")"
  note "apt resolves $(grep -c '^Inst ' <<<"$resolved") packages from the local repository"
  expect_contains "the resolution" "$resolved" "Inst libopencv-videoio406"
  expect_contains "the resolution" "$resolved" "Inst python3-matplotlib"
  out=$(guest_sh 'cd /mnt/packages && DEBIAN_FRONTEND=noninteractive apt install -y ./yolo-edge_*.deb 2>&1') ||
    fail "apt install failed: $(printf '%s' "$out" | tail -n 20)"
  printf '%s\n' "$out"
  expect_lacks "apt install" "$out" "Could not execute systemctl"
  expect_lacks "apt install" "$out" "Conflict with earlier configuration"
  expect_contains "apt install" "$out" "set model.path in $config_file"
  expect_eq "the package" "$(guest_run dpkg-query -W -f '${Status}' yolo-edge)" "install ok installed"
  local groups
  groups=$(guest_run id -nG yolo-edge)
  expect_contains "yolo-edge's groups" "$groups" video
  expect_contains "yolo-edge's groups" "$groups" gpio
  expect_eq "the unit" "$(guest_run systemctl is-enabled yolo-edged)" enabled
  expect_eq "the config's owner and mode" "$(guest_run stat -c '%U:%G %a' $config_file)" "root:yolo-edge 640"
  expect_eq "the udev rule for /dev/gpiochip*" \
    "$(guest_run cat /usr/lib/udev/rules.d/60-yolo-edge-gpio.rules | grep -v '^#')" \
    'SUBSYSTEM=="gpio", KERNEL=="gpiochip*", GROUP="gpio", MODE="0660"'
  expect_eq "the first start's result" "$(unit_prop Result)" exit-code
  expect_eq "the first start's exit status (EX_CONFIG: not restarted)" "$(unit_prop ExecMainStatus)" 78
  expect_contains "the journal" "$(guest_run journalctl -u yolo-edged -o cat --no-pager)" \
    "model.path: is not set"
}

# README: the model and a video installed with its commands, model.path set, the config checked as
# the service user, then restarted: active only once the daemon said READY=1, with its status line.
story_configure() {
  guest_sh "install -D -m 0640 -g yolo-edge /mnt/fixtures/models/yolo11n_320_fp32.onnx $model_path"
  guest_sh 'install -D -m 0640 -g yolo-edge /mnt/fixtures/video/traffic_720p_30fps.mp4 /var/lib/yolo-edge/videos/traffic.mp4'
  set_config model.path "\"$model_path\"" source.uri '"/var/lib/yolo-edge/videos/traffic.mp4"' \
    source.loop true logging.interval_s 2.0
  guest_run runuser -u yolo-edge -- yolo-edge config --check $config_file
  guest_run systemctl restart yolo-edged
  expect_eq "after restart" "$(unit_prop ActiveState)/$(unit_prop SubState)" active/running
  local status_text
  status_text=$(unit_prop StatusText)
  expect_contains "the STATUS= line" "$status_text" "fp32 yolo11n 320x320"
  expect_contains "systemctl status" "$(guest_run systemctl status --no-pager yolo-edged || true)" \
    "Status: \"fp32 yolo11n"
  # Type=notify: systemd entered active when READY=1 came, after the daemon said it was ready.
  expect_ready_before_active
  wait_until 30 "frames counted by the status API" '[ "$(status_field .frames)" -gt 0 ]'
}

# The live count of line near's crossings (in); "none" until the daemon answers with the line
# (its counts appear with the first frame's result).
near_in() {
  guest_curl -fsS --max-time 10 /api/counts |
    jq -r '[.places[] | select(.name == "near") | .all.in] | if length == 0 then "none" else add end' \
      2>/dev/null || echo none
}

# Issue 39: a counting line added to the installed config counts the clip's vehicles; the counts
# and the events are kept in the state folder across a restart and go on from there.
story_events() {
  local line counts first events last_id second
  line='  - {name: near, from: [0.08, 0.55], to: [0.85, 0.55], in: below, classes: [car, truck, bus, motorcycle]}'
  guest_sh "sed -i 's/^lines: \\[\\]\$/lines:\\n$line/' $config_file"
  expect_contains "the config" "$(guest_run cat $config_file)" "name: near"
  guest_run runuser -u yolo-edge -- yolo-edge config --check $config_file
  guest_run systemctl reload yolo-edged
  # The clip loops every 11 s with 11 vehicles crossing; counts are written at stop. The live
  # counts (/api/counts) say when there are enough to restart: no fixed wait.
  wait_until 25 "line near counted 10 vehicles (/api/counts)" '[ "$(near_in)" -ge 10 ]' \
    'guest_curl -sS --max-time 10 /api/counts'
  guest_run systemctl restart yolo-edged
  counts=$(guest_run cat /var/lib/yolo-edge/counts.json) || fail "no counts.json in the state folder"
  first=$(jq '[.places[] | select(.name == "near") | .total[].in] | add // 0' <<<"$counts")
  note "line near when restarted: $first in"
  [ "$first" -ge 10 ] || fail "line near counted $first vehicles in 25 s of the looping clip: $counts"
  events=$(guest_run cat /var/lib/yolo-edge/events.json) || fail "no events.json in the state folder"
  last_id=$(jq .last_id <<<"$events")
  expect_eq "cross events kept" "$(jq '[.events[] | select(.type == "cross")] | length' <<<"$events")" "$first"
  wait_until 60 "yolo-edged running after the restart" unit_is_running
  # Restarted from the counts kept, not from 0: then one more crossing is enough to go on.
  wait_until 30 "line near in the live counts after the restart" '[ "$(near_in)" != none ]'
  local restored
  restored=$(near_in)
  [ "$restored" -ge "$first" ] || fail "line near restarted at $restored, not from the $first kept"
  wait_until 15 "line near counting on from $first (/api/counts)" '[ "$(near_in)" -gt '"$first"' ]' \
    'guest_curl -sS --max-time 10 /api/counts'
  guest_run systemctl restart yolo-edged
  counts=$(guest_run cat /var/lib/yolo-edge/counts.json)
  second=$(jq '[.places[] | select(.name == "near") | .total[].in] | add // 0' <<<"$counts")
  note "after a restart and one more crossing: $second in"
  [ "$second" -gt "$first" ] || fail "the counts did not go on from $first after the restart: $counts"
  [ "$(guest_run cat /var/lib/yolo-edge/events.json | jq '.events[-1].id')" -gt "$last_id" ] ||
    fail "event ids did not go on from $last_id"
  wait_until 60 "yolo-edged running again" unit_is_running
}

# The daemon's journal entries carry structured fields (journalctl -o json).
story_journal_fields() {
  local fields
  fields=$(guest_run journalctl -u yolo-edged -o json --no-pager |
    jq -r 'select(.SYSLOG_IDENTIFIER == "yolo-edged") | keys[]' | sort -u)
  printf '%s\n' "$fields"
  expect_contains "the daemon's journal fields" "$fields" PRIORITY
  printf '%s\n' "$fields" | grep -v '^_\|^__\|^MESSAGE$\|^PRIORITY$\|^SYSLOG_\|^CODE_\|^INVOCATION_ID$' |
    grep -q . || fail "no field of the daemon's own beside MESSAGE and PRIORITY"
}

# Page, status, metrics, snapshot, MJPEG and SSE from the host; Chromium's screenshots kept.
story_http() {
  local page status metrics tmp
  tmp=$(mktemp -d)
  # Without the password: the login, nothing else (http.auth: password is the default).
  expect_eq "the page without a login" \
    "$(guest_curl_anonymous -sS -o "$tmp/login.html" -w '%{http_code}' --max-time 10 /)" 401
  expect_contains "the page without a login" "$(cat "$tmp/login.html")" 'type="password"'
  for path in /api/status /stream.mjpg /snapshot.jpg /api/detections; do
    expect_eq "$path without a login" \
      "$(guest_curl_anonymous -sS -o /dev/null -w '%{http_code}' --max-time 10 "$path")" 401
  done
  expect_contains "the journal" "$(guest_run journalctl -u yolo-edged -o cat --no-pager)" \
    "yolo-edge config --show-credential"
  screenshot "$(guest_url /)" container-login-phone.png 390,844
  page=$(guest_curl -fsS --max-time 10 /)
  expect_contains "the page" "$page" "<title>"
  status=$(api_status)
  expect_eq "status .state" "$(jq -r .state <<<"$status")" running
  expect_eq "status .model.precision" "$(jq -r .model.precision <<<"$status")" fp32
  metrics=$(guest_curl -fsS --max-time 10 /metrics)
  expect_contains "/metrics" "$metrics" "yolo_edge_build_info"
  guest_curl -fsS --max-time 10 -o "$tmp/snapshot.jpg" /snapshot.jpg
  expect_eq "/snapshot.jpg starts with" "$(head -c 3 "$tmp/snapshot.jpg" | od -An -tx1 | tr -d ' ')" ffd8ff
  cp "$tmp/snapshot.jpg" "$system_out/screenshots/container-snapshot.jpg" 2>/dev/null ||
    { mkdir -p "$system_out/screenshots" && cp "$tmp/snapshot.jpg" "$system_out/screenshots/container-snapshot.jpg"; }
  stream_until 2 'Content-Type: image/jpeg' 6 "$tmp/stream" /stream.mjpg
  local parts
  parts=$(grep -ac 'Content-Type: image/jpeg' "$tmp/stream" || true)
  [ "$parts" -ge 2 ] || fail "/stream.mjpg gave $parts JPEG parts in 6 s"
  note "/stream.mjpg: $parts JPEG parts within 6 s"
  stream_until 1 '^data: {' 6 "$tmp/sse" /api/detections
  grep -q '^data: {' "$tmp/sse" || fail "/api/detections sent no event in 6 s: $(head -c 300 "$tmp/sse")"
  note "/api/detections: $(grep -c '^data: ' "$tmp/sse") events within 6 s"
  screenshot "$(guest_url /)" container-page.png 1280,900 login
  screenshot "$(guest_url /)" container-page-phone.png 390,1200 login
  rm -rf "$tmp"
}

# Issue 28: reload 10 times, SIGTERM, restart, with OpenBLAS as libblas.so.3 and with the
# reference BLAS: MainPID unchanged across reloads, a stop event for every stop, no other death.
blas_signals() {
  local blas=$1 dir=/usr/lib/x86_64-linux-gnu library
  case $blas in
    openblas)
      guest_sh 'dpkg-query -W -f "\${Status}" libopenblas0-pthread 2>/dev/null | grep -q "ok installed" ||
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q libopenblas0-pthread'
      ;;
  esac
  # BLAS and LAPACK both: OpenBLAS as liblapack.so.3 alone starts its threads too.
  for library in blas lapack; do
    local path=$dir/$library/lib$library.so.3
    [ "$blas" = reference ] || path=$dir/openblas-pthread/lib$library.so.3
    guest_run update-alternatives --set "lib$library.so.3-x86_64-linux-gnu" "$path"
    expect_eq "lib$library.so.3" "$(guest_run readlink -f "$dir/lib$library.so.3")" \
      "$(guest_run readlink -f "$path")"
  done
  local since
  since=$(guest_run date +%s)
  # Each story starts the service three times; two of them back to back on a quick machine reach
  # systemd's start limit (5 in 10 s), which a person restarting it by hand never does.
  guest_run systemctl reset-failed yolo-edged
  guest_run systemctl restart yolo-edged
  local pid stops_before configs_before i
  pid=$(unit_prop MainPID)
  local mapped
  mapped=$(guest_run grep -o '/[^ ]*openblas[^ ]*' "/proc/$pid/maps" | sort -u || true)
  if [ "$blas" = openblas ]; then
    [ -n "$mapped" ] || fail "the daemon maps no OpenBLAS"
  else
    [ -z "$mapped" ] || fail "the daemon maps OpenBLAS still: $mapped"
  fi
  note "OpenBLAS mapped by the daemon: ${mapped:-none}"
  stops_before=$(field_event_count stop)
  configs_before=$(field_event_count config)
  for i in $(seq 1 10); do
    guest_run systemctl reload yolo-edged
    wait_until 30 "reload $i answered (a config event, or the daemon gone)" \
      '[ "$(field_event_count config)" -ge '"$((configs_before + i))"' ] || [ "$(unit_prop MainPID)" != '"$pid"' ]'
    [ "$(unit_prop MainPID)" = "$pid" ] ||
      fail "reload $i: the daemon (PID $pid) is gone: $(guest_run journalctl -u yolo-edged --no-pager -o cat -n 4 | tr '\n' ' ')"
    wait_until 30 "running after reload $i" unit_is_running
  done
  note "10 reloads, MainPID $pid throughout"
  guest_run kill -TERM "$pid"
  wait_until 15 "stopped by SIGTERM" '[ "$(unit_prop ActiveState)" != active ] || [ "$(unit_prop MainPID)" != '"$pid"' ]'
  expect_eq "after SIGTERM: the unit's result" "$(unit_prop Result)" success
  guest_run systemctl start yolo-edged
  pid=$(unit_prop MainPID)
  guest_run systemctl restart yolo-edged
  [ "$(unit_prop MainPID)" != "$pid" ] || fail "restart kept MainPID $pid"
  expect_eq "stop events" "$(field_event_count stop)" "$((stops_before + 2))"
  expect_eq "NRestarts (deaths systemd restarted)" "$(unit_prop NRestarts)" 0
  local deaths
  deaths=$(guest_run journalctl -u yolo-edged --no-pager -o cat --since "@$since" |
    grep -E 'code=(killed|dumped)|Main process exited, code=exited, status=[1-9]' || true)
  [ -z "$deaths" ] || fail "unexpected deaths: $deaths"
}

story_signals_openblas() {
  blas_signals openblas
}

story_signals_refblas() {
  blas_signals reference
}

# Issue 24: precision by reload with quantize: auto (the INT8 file made from the camera's own
# frames, then swapped in); an invalid reload keeps the old config and names line and column.
story_reload_precision() {
  local pid frames int8
  guest_run systemctl reset-failed yolo-edged
  guest_run systemctl restart yolo-edged
  pid=$(unit_prop MainPID)
  # Inference on one core leaves the other to the quantizer (nice 10): with adaptive threads on
  # both it got what they left and took 175-283 s (docs/system-tests.md).
  set_config model.precision int8 model.quantize auto model.calibration_frames 8 threads.max 1
  guest_run runuser -u yolo-edge -- yolo-edge config --check $config_file
  frames=$(status_field .frames)
  guest_run systemctl reload yolo-edged
  # Done when INT8 runs, or when making it failed (the status says so: no use waiting).
  wait_until 600 "INT8 swapped in, or its failure" \
    '[ "$(status_field .model.precision)" = int8 ] || status_field ".model.pending // empty" | grep -q failed' \
    'echo "status: $(status_field -c .model)"; echo "the quantizer:"; guest_sh "ps -o pid,ni,time,args -u yolo-edge | grep -i quantiz || true"'
  [ "$(status_field .model.precision)" = int8 ] || fail "INT8 was not made: $(status_field .model.pending)"
  expect_eq "MainPID across the reload and the swap" "$(unit_prop MainPID)" "$pid"
  local swap
  swap=$(field_events swap | jq -c 'select(.to_precision == "int8")' | tail -n1)
  note "swap: $swap"
  expect_eq "frames lost in the swap" "$(jq -r .frames_lost <<<"$swap")" 0
  int8=$(jq -r .to_path <<<"$swap")
  guest_run test -s "$int8" || fail "no INT8 file at $int8"
  note "INT8 file: $(guest_run ls -l "$int8")"
  frames=$(status_field .frames)
  wait_until 30 "frames rising at int8" '[ "$(status_field .frames)" -gt '"$frames"' ]'

  local line
  line=$(guest_run grep -n '^  conf:' $config_file | cut -d: -f1)
  set_config detect.conf 7
  guest_run systemctl reload yolo-edged
  wait_until 30 "invalid config refused (config_rejected event)" \
    '[ "$(field_event_count config_rejected)" -ge 1 ]'
  expect_eq "MainPID after the refused reload" "$(unit_prop MainPID)" "$pid"
  expect_eq "the unit" "$(unit_prop ActiveState)" active
  expect_contains "systemctl status" "$(guest_run systemctl status --no-pager -n 20 yolo-edged || true)" \
    "$config_file:$line:"
  expect_eq "precision still" "$(status_field .model.precision)" int8
  set_config detect.conf 0.25 threads.max 0
  guest_run systemctl reload yolo-edged
}

# The watchdog kills a stopped daemon (SIGSTOP) and systemd restarts it within WatchdogSec + 10 s;
# SIGKILL is restarted within RestartSec + 5 s; NRestarts counts both.
story_watchdog() {
  local pid restarts
  unit_is_running || guest_run systemctl restart yolo-edged
  pid=$(unit_prop MainPID)
  restarts=$(unit_prop NRestarts)
  guest_run kill -STOP "$pid"
  wait_until 40 "restarted after SIGSTOP (watchdog)" \
    '[ "$(unit_prop MainPID)" != '"$pid"' ] && [ "$(unit_prop MainPID)" != 0 ] && unit_is_running'
  expect_contains "the journal" "$(guest_run journalctl -u yolo-edged --no-pager -o cat -n 30)" \
    "Watchdog timeout"
  expect_eq "NRestarts" "$(unit_prop NRestarts)" "$((restarts + 1))"
  pid=$(unit_prop MainPID)
  guest_run kill -KILL "$pid"
  wait_until 10 "restarted after SIGKILL" \
    '[ "$(unit_prop MainPID)" != '"$pid"' ] && [ "$(unit_prop MainPID)" != 0 ] && unit_is_running'
  expect_eq "NRestarts" "$(unit_prop NRestarts)" "$((restarts + 2))"
}

# Field logs in /var/log/yolo-edge, readable as JSON lines, and yolo-edge report on them.
story_field_logs() {
  local log events
  log=$(guest_run cat /var/log/yolo-edge/yolo-edge.jsonl)
  jq -e . >/dev/null <<<"$log" || fail "the field log is not JSON lines"
  events=$(jq -r 'select(.type == "event") | .event' <<<"$log" | sort | uniq -c)
  printf '%s\n' "$events"
  local e
  # (The swap event is reload_precision's to check.)
  for e in start ready stop config; do
    grep -qw "$e" <<<"$events" || fail "no $e event in the field log"
  done
  [ "$(jq -c 'select(.type == "interval" and .frames > 0)' <<<"$log" | grep -c .)" -ge 3 ] ||
    fail "fewer than 3 interval lines with frames"
  guest_run rm -rf /tmp/report
  guest_run yolo-edge report /var/log/yolo-edge --out /tmp/report
  guest_run test -s /tmp/report/report.md
  mkdir -p "$system_out/report"
  guest_run tar -C /tmp/report -cf - . | tar -C "$system_out/report" -xf -
  note "report: $(ls "$system_out/report" | tr '\n' ' ')"
  grep -q fp32 "$system_out/report/report.md" || fail "the report does not mention fp32"
}

# systemd-analyze security in the running system <= 2.5, and nothing the hardening refused: a
# refused system call or capability (EPERM, "Operation not permitted"), a read-only file system,
# seccomp. A file's own mode ("Permission denied") is not the hardening's doing.
story_security() {
  local out score
  out=$(guest_run systemd-analyze security --no-pager yolo-edged 2>&1 || true)
  score=$(sed -n 's/.*Overall exposure level for yolo-edged.service: \([0-9.]*\).*/\1/p' <<<"$out")
  [ -n "$score" ] || fail "no exposure level: $(tail -n 3 <<<"$out")"
  expect_le "exposure level" "$score" 2.5
  local denied
  denied=$(guest_run journalctl -b --no-pager -o cat -u yolo-edged |
    grep -Ei 'operation not permitted|EPERM|seccomp|SIGSYS|read-only file system' || true)
  [ -z "$denied" ] || fail "refused by the hardening: $denied"
  note "no denial in the unit's journal"
}

# A reboot brings the service back with READY; sysusers is quiet about the package's lines.
story_reboot() {
  guest_run systemctl reboot || true
  container_wait_exit 60 || fail "the container did not go down for the reboot"
  container_boot || fail "the container did not boot again"
  wait_until 60 "yolo-edged running after the reboot" unit_is_running
  expect_contains "the STATUS= line" "$(unit_prop StatusText)" "yolo11n"
  expect_lacks "this boot's journal" "$(guest_run journalctl -b --no-pager -o cat)" \
    "Conflict with earlier configuration"
  expect_eq "ready events" "$(field_event_count ready | awk '$1 >= 1 { print "yes" }')" yes
}

# apt remove keeps config, models and logs; purge removes them and the user.
story_remove_purge() {
  guest_sh 'DEBIAN_FRONTEND=noninteractive apt-get remove -y yolo-edge'
  expect_eq "the service after remove" "$(unit_prop ActiveState)" inactive
  ! guest_run test -e /usr/lib/systemd/system/yolo-edged.service || fail "apt remove left the unit file"
  local kept
  for kept in $config_file $model_path /var/log/yolo-edge/yolo-edge.jsonl; do
    guest_run test -e "$kept" || fail "apt remove deleted $kept"
  done
  note "apt remove kept the config, the model and the field log"
  guest_sh 'DEBIAN_FRONTEND=noninteractive apt-get purge -y yolo-edge'
  local gone
  for gone in /etc/yolo-edge /var/lib/yolo-edge /var/log/yolo-edge /var/cache/yolo-edge; do
    ! guest_run test -e "$gone" || fail "apt purge left $gone"
  done
  ! guest_run getent passwd yolo-edge >/dev/null || fail "apt purge left the user yolo-edge"
  ! guest_run getent group yolo-edge >/dev/null || fail "apt purge left the group yolo-edge"
  note "apt purge removed config, state, logs, cache and the user"
}

container_stories() {
  story install "apt install: user, groups, unit enabled, first start names model.path"
  story configure "README's commands: model, config check, restart to READY"
  story events "a counting line counts the clip; counts and events survive a restart"
  story journal_fields "structured fields in journalctl -o json"
  story http "page, status, metrics, snapshot, MJPEG, SSE from the host; screenshot"
  story signals_openblas "OpenBLAS: 10 reloads, SIGTERM, restart (issue 28)"
  story signals_refblas "reference BLAS: 10 reloads, SIGTERM, restart"
  story reload_precision "reload to INT8 with quantize: auto; invalid reload refused"
  story watchdog "SIGSTOP: watchdog restart; SIGKILL: restart"
  story field_logs "field logs and yolo-edge report"
  story security "systemd-analyze security <= 2.5, nothing denied"
  story reboot "reboot: back with READY, sysusers quiet"
  story remove_purge "apt remove keeps config/models/logs; purge removes them and the user"
}
