#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs yolo-edge as a systemd service: builds yolo-edged and yolo-edge (in scripts/setup.sh's
# build folder), installs them, the unit, the udev rule for /dev/gpiochip* and the default config
# through CMake's install rules (cmake/Install.cmake), puts the config in /etc/yolo-edge without ever overwriting an edited
# one, creates the yolo-edge system user, and enables and starts yolo-edged. Running it again
# upgrades in place. Run it as root (sudo); it builds as the owner of the build folder. With
# --destdir DIR (or $DESTDIR) everything lands below DIR and nothing else is touched: no user is
# created and systemctl is not run.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/service-common.sh
source "$here/scripts/service-common.sh"

usage() {
  cat <<EOF
usage: scripts/install.sh [options]
Builds yolo-edge and installs it as the systemd service $service.

  --prefix DIR     programs in DIR/bin, default config in DIR/share/yolo-edge (default
                   $prefix); the unit's ExecStart follows it
  --destdir DIR    stage everything below DIR (also \$DESTDIR): no user, no systemctl
  --model FILE     copy this ONNX model to $state_dir/models and set model.path to
                   it (an edited config is left alone: you are told what to set)
  --no-start       enable the service but do not start or restart it
  --no-build       install what the build folder already holds (build it first as yourself)
  --build-dir DIR  the CMake build to install from (default \$YOLO_EDGE_BUILD_DIR or build/,
                   as scripts/setup.sh)
  -h, --help       this text
EOF
}

build_dir=${YOLO_EDGE_BUILD_DIR:-$here/build}
model=""
start=1
build=1
while [ $# -gt 0 ]; do
  case $1 in
    --prefix | --prefix=*) take_value "$@"; prefix=$value ;;
    --destdir | --destdir=*) take_value "$@"; destdir=$value ;;
    --model | --model=*) take_value "$@"; model=$value ;;
    --build-dir | --build-dir=*) take_value "$@"; build_dir=$value ;;
    --no-start) start=0; shift_by=1 ;;
    --no-build) build=0; shift_by=1 ;;
    -h | --help) usage; exit 0 ;;
    *) usage_error "unknown option '$1'" ;;
  esac
  shift "$shift_by"
done
settle_common_options
if [ -n "$model" ]; then
  if [ ! -f "$model" ] || [ ! -r "$model" ]; then
    usage_error "--model $model: no such readable file"
  fi
  model=$(realpath -- "$model")
fi
root=$destdir
bin_dir=$prefix/bin

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# What to tell the user at the end, one line each.
notes=()

# Builds as the owner of the build folder (or of the source tree for a new one), so that
# `sudo scripts/install.sh` leaves no root-owned files in a user's build.
build_programs() {
  if [ "$build" -eq 0 ]; then
    if [ ! -x "$build_dir/bin/yolo-edged" ] || [ ! -x "$build_dir/bin/yolo-edge" ]; then
      die "--no-build: $build_dir/bin has no yolo-edged and yolo-edge; build them first" \
        "(scripts/setup.sh, or cmake --build $build_dir --target yolo-edged yolo-edge)"
    fi
    return
  fi
  local as_builder=() owner
  owner=$(stat -c %U "$([ -d "$build_dir" ] && echo "$build_dir" || echo "$here")")
  if [ "$(id -u)" -eq 0 ] && [ "$owner" != root ]; then
    as_builder=(runuser -u "$owner" --)
  fi
  if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    "${as_builder[@]}" cmake -S "$here" -B "$build_dir" -G Ninja \
      -DCMAKE_BUILD_TYPE="${YOLO_EDGE_BUILD_TYPE:-Release}" ||
      die "configuring $build_dir failed (above); scripts/setup.sh installs the packages it needs"
  fi
  "${as_builder[@]}" cmake --build "$build_dir" --target yolo-edged yolo-edge ||
    die "building yolo-edged and yolo-edge in $build_dir failed (above)"
}

# The system user the unit runs as, and the groups the unit names: systemd refuses to start a
# unit whose SupplementaryGroups= names a missing group, and plain Debian has no gpio group.
create_user() {
  local group
  for group in video gpio; do
    if ! getent group "$group" >/dev/null; then
      groupadd --system "$group"
      notes+=("created the system group $group (the unit names it; it was missing)")
    fi
  done
  if ! getent passwd "$service_user" >/dev/null; then
    useradd --system --user-group --home-dir "$state_dir" --no-create-home \
      --shell /usr/sbin/nologin --comment "yolo-edge detection daemon" "$service_user"
    notes+=("created the system user $service_user")
  fi
  usermod --append --groups video,gpio "$service_user"
}

# The udev rule cmake installed (/etc/udev/rules.d/60-yolo-edge-gpio.rules, or under /usr/lib
# for --prefix /usr) gives /dev/gpiochip* to group gpio; plain Debian leaves them root-only. Chips
# present now get it at once rather than at the next boot.
# udevd may have read the rule as cmake installed it, before create_user made group gpio: it then
# drops GROUP= and keeps that reading, since a reload re-reads only rules whose files or folders
# changed (the package's postinst does the same). Touching the rule makes it read it again.
apply_udev_rule() {
  if [ -S /run/udev/control ] && command -v udevadm >/dev/null 2>&1; then
    local rule
    for rule in /usr/lib/udev/rules.d/60-yolo-edge-gpio.rules \
      /etc/udev/rules.d/60-yolo-edge-gpio.rules; do
      if [ -e "$rule" ]; then touch "$rule" "${rule%/*}"; fi
    done
    udevadm control --reload-rules
    udevadm trigger --subsystem-match=gpio --action=change
    notes+=("/dev/gpiochip* belong to group gpio (udev rule 60-yolo-edge-gpio.rules)")
  fi
}

# The awk pattern that finds model.path: the first "  path:" line in the top-level model: section.
# shellcheck disable=SC2016  # awk's $1, not the shell's
model_path_awk='/^[^[:space:]#]/ { section = $1 } section == "model:" && /^  path: / && !done'

# Prints the YAML text after "path: " of model.path in the config file $1 (empty without one).
model_path_of() {
  awk "$model_path_awk"' { print substr($0, 9); done = 1 }' "$1"
}

# Sets model.path in the config file $1 to the YAML text $2; fails when it has no model.path.
set_model_path() {
  MODEL_PATH=$2 awk "$model_path_awk"' { print "  path: " ENVIRON["MODEL_PATH"]; done = 1; next }
      { print }
      END { if (!done) exit 3 }' "$1" >"$1.new" || die "$1: found no model.path line to set"
  mv "$1.new" "$1"
}

# $1 as a double-quoted YAML string.
yaml_quoted() {
  local text=${1//\\/\\\\}
  printf '"%s"' "${text//\"/\\\"}"
}

# Copies --model into the state folder and sets installed_model to where the daemon finds it.
install_model() {
  local models=$state_dir/models owner=()
  manage_ownership && owner=(-o "$service_user" -g "$service_user")
  installed_model=$models/$(basename "$model")
  install -d -m 0750 "${owner[@]}" "$root$state_dir" "$root$models"
  if [ "$model" != "$(realpath -m -- "$root$installed_model")" ]; then
    install -m 0640 "${owner[@]}" "$model" "$root$installed_model"
  fi
}

# Ownership is only set on a real install: in DESTDIR mode the user may not exist.
manage_ownership() {
  [ -z "$destdir" ]
}

# Puts the default config in /etc/yolo-edge: a new file when there is none, an upgrade when the
# file is still the default a previous install put there, else the new default beside it as
# .dist, the user's file untouched. model.path is the one line install.sh manages: --model sets
# it, otherwise the installed file's value is carried over, and it is left out of the comparison.
install_config() {
  local default=$root$prefix/share/yolo-edge/yolo-edge.yaml previous_default=$1
  local target=$root$config_file new=$work/yolo-edge.yaml mode=(-m 0640) current=""
  cp "$default" "$new"
  [ ! -f "$target" ] || current=$(model_path_of "$target")
  if [ -n "$current" ] && [ -f "$previous_default" ]; then
    set_model_path "$previous_default" "$current"
  fi
  if [ -n "$installed_model" ]; then
    set_model_path "$new" "$(yaml_quoted "$installed_model")"
  elif [ -n "$current" ]; then
    set_model_path "$new" "$current"
  fi
  manage_ownership && mode+=(-o root -g "$service_user")
  install -d -m 0755 "$root$config_dir"
  if [ ! -e "$target" ]; then
    install "${mode[@]}" "$new" "$target"
    config_state=new
  elif cmp -s "$target" "$new"; then
    config_state=same
  elif [ -f "$previous_default" ] && cmp -s "$target" "$previous_default"; then
    install "${mode[@]}" "$new" "$target"
    config_state=upgraded
  else
    install "${mode[@]}" "$new" "$target.dist"
    config_state=kept
    return
  fi
  rm -f "$target.dist"
}

# Validates the installed config as the service user would read it; prints why it is not valid.
config_is_valid() {
  runuser -u "$service_user" -- "$bin_dir/yolo-edge" config --check \
    "$config_file" >/dev/null
}

build_programs

# The default an earlier install left, to tell an unedited config from an edited one.
previous_default=$work/previous-default.yaml
if [ -f "$root$prefix/share/yolo-edge/yolo-edge.yaml" ]; then
  cp "$root$prefix/share/yolo-edge/yolo-edge.yaml" "$previous_default"
fi

echo "install.sh: installing into ${destdir:-/} with prefix $prefix"
if [ -n "$destdir" ]; then
  DESTDIR=$destdir cmake --install "$build_dir" --prefix "$prefix"
else
  env --unset=DESTDIR cmake --install "$build_dir" --prefix "$prefix"
fi

manage_ownership && create_user
manage_ownership && apply_udev_rule
installed_model=""
[ -z "$model" ] || install_model
install_config "$previous_default"

case $config_state in
  new) notes+=("installed the default config as $config_file") ;;
  same) notes+=("$config_file is already the current default") ;;
  upgraded) notes+=("replaced $config_file (you had not edited it) with the new default") ;;
  kept)
    notes+=("kept your edited $config_file; the new default is beside it as $config_file.dist")
    notes+=("compare them: diff -u $config_file $config_file.dist")
    ;;
esac
if [ -n "$installed_model" ]; then
  notes+=("copied the model to $installed_model")
  [ "$config_state" != kept ] ||
    notes+=("your config was kept: set model.path: \"$installed_model\" in it yourself")
fi

check_command="sudo -u $service_user $bin_dir/yolo-edge config --check $config_file"
if [ -n "$destdir" ]; then
  status=staged
  notes+=("staged below $destdir only: no user created, systemctl not run")
elif config_is_valid; then
  status=valid
else
  status=invalid
  notes+=("$config_file is not valid yet (the message above says why): not started")
fi
if manage_systemd; then
  was_active=$(systemctl is-active "$service" || true)
  systemctl daemon-reload
  systemctl enable --quiet "$service"
  notes+=("enabled $service: it starts at boot")
  if [ "$status" = valid ] && [ "$start" -eq 1 ]; then
    if ! systemctl restart "$service"; then
      systemctl --no-pager --lines=20 status "$service" || true
      die "installed, but $service failed to start (above); see: journalctl -u $service"
    fi
    status=started
    notes+=("started $service: $(systemctl show -P StatusText "$service")")
  elif [ "$was_active" = active ]; then
    notes+=("$service still runs the previous version until: sudo systemctl restart $service")
  fi
elif [ -z "$destdir" ]; then
  notes+=("systemd is not running here: the service was neither enabled nor started")
fi

echo
echo "install.sh: done"
for note in "${notes[@]}"; do
  echo "  - $note"
done
echo
case $status in
  staged)
    echo "On the target system: create the user (useradd --system --user-group $service_user," \
      "in groups video and gpio), then: systemctl daemon-reload; systemctl enable --now $service"
    ;;
  invalid)
    echo "Next:"
    echo "  1. sudoedit $config_file"
    echo "     model.path must name an ONNX model the service can read: keep models in"
    echo "     $state_dir/models (the service cannot read /home), or run install.sh"
    echo "     again with --model FILE."
    echo "  2. Check it:  $check_command"
    echo "  3. Start it:  sudo systemctl restart $service"
    ;;
  valid) echo "Start it:  sudo systemctl restart $service" ;;
  started)
    echo "Status: systemctl status $service    Messages: journalctl -u $service -f"
    echo "After editing $config_file, check it:  $check_command"
    echo "then apply it without stopping the stream:  sudo systemctl reload $service"
    ;;
esac
echo "Field logs: $logs_dir"
