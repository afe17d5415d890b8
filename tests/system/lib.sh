# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash disable=SC2016,SC2154
# (SC2016: conditions are shell text evaluated later, by wait_until; SC2154: the variables come
# from scripts/system-test.sh, which sources this file.)
# What every system story uses: the story runner (one verdict per story), checks that say what
# was wrong, waiting with a deadline, and the guest, whichever it is (tests/system/container.sh,
# vm.sh and arm64.sh each define guest_run, guest_copy_in, guest_curl and guest_boot). Sourced by
# scripts/system-test.sh, which sets $system_out (where logs and screenshots go).

stories_passed=0
stories_failed=0
stories_skipped=0
failed_stories=()

# story NAME TEXT: runs story_NAME in a subshell that stops at the first failed check, with its
# output in $system_out/NAME.log; prints one line with the verdict and the time it took. A story
# skips by exiting 77 (skip "reason"). With $story_filter (NAME,NAME...) set, other stories are
# left out.
story() {
  local name=$1 text=$2 start status log
  [ -z "${story_filter:-}" ] || [[ ",$story_filter," == *",$name,"* ]] || return 0
  log=$system_out/$name.log
  start=$(date +%s)
  printf '%-8s %-24s %s\n' "..." "$name" "$text"
  (
    set -eEuo pipefail
    trap 'fail "command failed (status $?): $BASH_COMMAND (line $LINENO)"' ERR
    "story_$name"
  ) >"$log" 2>&1 && status=0 || status=$?
  local took=$(($(date +%s) - start))
  case $status in
    0)
      stories_passed=$((stories_passed + 1))
      printf '%-8s %-24s %ss\n' "PASS" "$name" "$took"
      ;;
    77)
      stories_skipped=$((stories_skipped + 1))
      printf '%-8s %-24s %s\n' "SKIP" "$name" "$(sed -n 's/^SKIP: //p' "$log" | tail -n1)"
      ;;
    *)
      stories_failed=$((stories_failed + 1))
      failed_stories+=("$name")
      printf '%-8s %-24s %ss: %s\n' "FAIL" "$name" "$took" \
        "$(sed -n 's/^FAIL: //p' "$log" | head -n1)"
      printf '         (log: %s)\n' "$log"
      ;;
  esac
}

# The closing line: "system: N passed, N failed, N skipped".
stories_summary() {
  echo "system: $stories_passed passed, $stories_failed failed, $stories_skipped skipped"
  [ "$stories_failed" -eq 0 ]
}

note() {
  echo "--- $*"
}

fail() {
  echo "FAIL: $*"
  # Ends the story's subshell whatever the caller's nesting.
  trap - ERR
  exit 1
}

skip() {
  echo "SKIP: $*"
  exit 77
}

# expect_eq WHAT ACTUAL EXPECTED
expect_eq() {
  [ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"
  note "$1: $2"
}

# expect_contains WHAT TEXT PART
expect_contains() {
  case $2 in
    *"$3"*) note "$1 says '$3'" ;;
    *) fail "$1 does not say '$3': $(printf '%s' "$2" | tail -c 600)" ;;
  esac
}

# expect_lacks WHAT TEXT PART
expect_lacks() {
  case $2 in
    *"$3"*) fail "$1 says '$3': $(printf '%s' "$2" | grep -F -- "$3" | head -n3)" ;;
    *) note "$1 does not say '$3'" ;;
  esac
}

# expect_le WHAT VALUE LIMIT (numbers, decimals allowed)
expect_le() {
  awk -v v="$2" -v l="$3" 'BEGIN { exit !(v + 0 <= l + 0) }' || fail "$1: $2, more than $3"
  note "$1: $2 (at most $3)"
}

# wait_until SECONDS WHAT CONDITION [EXPLAIN]: evaluates the shell text CONDITION (it may call the
# functions here) every half second until it succeeds; fails the story naming WHAT when SECONDS
# pass, with what the shell text EXPLAIN prints. Prints how long it took.
wait_until() {
  local limit=$1 what=$2 condition=$3 explain=${4:-} start now
  start=$(date +%s.%N)
  while true; do
    if eval "$condition" >/dev/null 2>&1; then
      now=$(date +%s.%N)
      note "$what after $(awk -v a="$start" -v b="$now" 'BEGIN { printf "%.1f", b - a }') s"
      return 0
    fi
    now=$(date +%s.%N)
    if awk -v a="$start" -v b="$now" -v l="$limit" 'BEGIN { exit !(b - a > l) }'; then
      fail "$what: not within $limit s${explain:+; $(eval "$explain" 2>&1 | tr '\n' ' ')}"
    fi
    sleep 0.5
  done
}

# guest_sh SCRIPT: runs SCRIPT with sh in the guest; its output goes to the story's log too.
guest_sh() {
  guest_run sh -c "$1"
}

# unit_prop PROPERTY: the yolo-edged unit's property, as `systemctl show -P` prints it.
unit_prop() {
  guest_run systemctl show -P "$1" yolo-edged
}

unit_is_running() {
  [ "$(guest_run systemctl show -P SubState yolo-edged)" = running ]
}

# Type=notify as systemd saw it: the unit became active no earlier after its start than the
# daemon took to say READY=1 (the ready event's startup_s, measured by the daemon from its start).
expect_ready_before_active() {
  local startup_s exec_at active_at
  startup_s=$(guest_run journalctl -u yolo-edged -o json --no-pager |
    jq -r 'select(.YOLO_EVENT? == "ready") | .YOLO_STARTUP_S' | tail -n1)
  [ -n "$startup_s" ] || fail "no ready event in the journal"
  exec_at=$(unit_prop ExecMainStartTimestampMonotonic)
  active_at=$(unit_prop ActiveEnterTimestampMonotonic)
  awk -v s="$startup_s" -v e="$exec_at" -v a="$active_at" 'BEGIN { exit !((a - e) / 1e6 >= s - 0.005) }' ||
    fail "active $(((active_at - exec_at) / 1000)) ms after the start, before READY ($startup_s s)"
  note "READY after ${startup_s} s; active $(((active_at - exec_at) / 1000)) ms after the start"
}

# The live view's password, as the README says to get it (`sudo yolo-edge config
# --show-credential`), kept for the part's run once read (each guest makes its own; run_part's
# $part names the guest); empty before the daemon has made it.
guest_credential() {
  local cache=$system_out/.http-password-${part:-guest}
  if [ ! -s "$cache" ]; then
    guest_run yolo-edge config --show-credential 2>/dev/null >"$cache" || rm -f "$cache"
  fi
  cat "$cache" 2>/dev/null || true
}

# guest_curl_anonymous CURL-OPTIONS... PATH: curl on the daemon's port from the host (guest_net,
# guest_url: the transport's), with no credential.
guest_curl_anonymous() {
  local args=("$@") last=$(($# - 1))
  args[last]=$(guest_url "${args[last]}")
  guest_net curl "${args[@]}"
}

# guest_curl CURL-OPTIONS... PATH: the same, logged in as a script is (the password as a bearer
# token; the page's login is the http story's).
guest_curl() {
  local password
  password=$(guest_credential)
  if [ -n "$password" ]; then
    guest_curl_anonymous -H "Authorization: Bearer $password" "$@"
  else
    guest_curl_anonymous "$@"
  fi
}

# stream_until COUNT PATTERN SECONDS FILE CURL-OPTIONS... PATH: guest_curl into FILE until it
# holds COUNT lines matching PATTERN (grep -a) or SECONDS pass, whichever comes first. A stream
# (MJPEG, SSE) never ends by itself: waiting out the whole window after it had said what the
# story asks cost 6-40 s each time.
stream_until() {
  local count=$1 pattern=$2 seconds=$3 file=$4 pid
  shift 4
  : >"$file"
  # (|| true: curl ended by the kill below is no failed command of the story's.)
  { guest_curl -sS -N --max-time "$seconds" -o "$file" "$@" || true; } &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    [ "$(grep -ac -- "$pattern" "$file" || true)" -lt "$count" ] || break
    sleep 0.2
  done
  # curl is the child of the subshell that runs the function in the background.
  pkill -P "$pid" 2>/dev/null || true
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# The daemon's status JSON, from the guest's HTTP port.
api_status() {
  guest_curl -fsS --max-time 20 "/api/status"
}

# status_field [JQ-OPTIONS] FILTER: one value of the status JSON.
status_field() {
  api_status | jq -r "$@"
}

# Field-log events named $1 (one JSON object a line), from /var/log/yolo-edge.
field_events() {
  guest_sh "cat /var/log/yolo-edge/yolo-edge.jsonl 2>/dev/null" |
    jq -c --arg e "$1" 'select(.type == "event" and .event == $e)'
}

field_event_count() {
  field_events "$1" | grep -c . || true
}

# The field log's newest interval line with frames.
last_interval() {
  guest_sh "cat /var/log/yolo-edge/yolo-edge.jsonl 2>/dev/null" |
    jq -c 'select(.type == "interval" and .frames > 0)' | tail -n1
}

# jpeg_size FILE: WIDTHxHEIGHT from the JPEG's frame header (SOFn).
jpeg_size() {
  python3 - "$1" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
i = 2
while i + 9 < len(data) and data[i] == 0xFF:
    marker, length = data[i + 1], struct.unpack(">H", data[i + 2:i + 4])[0]
    if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
        height, width = struct.unpack(">HH", data[i + 5:i + 9])
        print(f"{width}x{height}")
        break
    i += 2 + length
PY
}

# set_config SECTION.KEY VALUE...: sets keys of the installed config in place, as an
# administrator's editor would (the file keeps its owner and mode); VALUE is YAML text.
set_config() {
  local text
  text=$(guest_run cat /etc/yolo-edge/yolo-edge.yaml)
  text=$(printf '%s\n' "$text" | python3 -c '
import re, sys
lines = sys.stdin.read().split("\n")
args = sys.argv[1:]
for key, value in zip(args[0::2], args[1::2]):
    section, name = key.split(".", 1)
    inside = False
    for i, line in enumerate(lines):
        if re.match(r"^[^\s#]", line):
            inside = line.startswith(section + ":")
        elif inside and re.match(r"^  " + re.escape(name) + r":", line):
            lines[i] = "  " + name + ": " + value
            break
    else:
        sys.exit("the config has no " + key)
print("\n".join(lines), end="")
' "$@") || fail "set_config $*"
  printf '%s\n' "$text" | guest_run sh -c 'cat >/etc/yolo-edge/yolo-edge.yaml'
}

# screenshot URL FILE [WIDTH,HEIGHT] [login]: headless Chromium (Debian's chromium, flags as in
# the machine notes) renders URL into FILE under $system_out/screenshots, in the network namespace
# guest_net runs in. With "login", it first logs in at URL's /login with the password, as a person
# typing it into the form would (a page of the test's own submits it), and URL is the page it is
# sent to afterwards.
screenshot() {
  local url=$1 file=$system_out/screenshots/$2 size=${3:-1280,900} login=${4:-} profile target
  mkdir -p "$system_out/screenshots"
  command -v chromium >/dev/null || {
    note "no chromium here: no screenshot of $url"
    return 0
  }
  profile=$(mktemp -d)
  target=$url
  if [ "$login" = login ]; then
    printf '<!doctype html><form id=f method=post action="%s"><input name=password value="%s"></form><script>document.getElementById("f").submit()</script>\n' \
      "${url%/}/login" "$(guest_credential)" >"$profile/login.html"
    target=file://$profile/login.html
  fi
  guest_net timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-quic \
    --no-first-run --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --hide-scrollbars --window-size="$size" \
    --virtual-time-budget=8000 --screenshot="$file" "$target" >/dev/null 2>&1 || true
  rm -rf "$profile"
  [ -s "$file" ] || fail "chromium made no screenshot of $url"
  note "screenshot of $url: $file"
}
