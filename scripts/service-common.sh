# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash disable=SC2034  # the variables are used by the scripts that source it
# Sourced by scripts/install.sh and scripts/uninstall.sh: where the service keeps its files, and
# the option handling both scripts share. Not a program of its own.

service=yolo-edged
service_user=yolo-edge
config_dir=/etc/yolo-edge
config_file=$config_dir/yolo-edge.yaml
state_dir=/var/lib/yolo-edge
logs_dir=/var/log/yolo-edge
cache_dir=/var/cache/yolo-edge
# Written by cmake/InstallManifest.cmake (CMAKE_INSTALL_DATADIR is share).
manifest_in_prefix=share/yolo-edge/installed-files.txt

prefix=/usr/local
destdir=${DESTDIR:-}

die() {
  echo "$(basename "$0"): $*" >&2
  exit 1
}

usage_error() {
  echo "$(basename "$0"): $*" >&2
  echo "Run $(basename "$0") --help for the options." >&2
  exit 2
}

# take_value ARGS...: for "--opt VALUE" or "--opt=VALUE" at the start of ARGS, sets `value` and
# `shift_by` (how many arguments it used).
take_value() {
  if [[ $1 == *=* ]]; then
    value=${1#*=}
    shift_by=1
  elif [ $# -ge 2 ]; then
    value=$2
    shift_by=2
  else
    usage_error "$1 needs a value"
  fi
}

# Checks --prefix and --destdir once parsed. A real install changes the system and needs root;
# DESTDIR mode touches nothing outside DESTDIR and needs none.
settle_common_options() {
  [[ $prefix == /* ]] || usage_error "--prefix must be an absolute path, not '$prefix'"
  prefix=${prefix%/}
  [ -n "$prefix" ] || usage_error "--prefix / is not supported; use /usr or /usr/local"
  if [ -n "$destdir" ]; then
    destdir=$(realpath -m -- "$destdir")
    [ "$destdir" != / ] || usage_error "--destdir / is the real system: leave --destdir out"
  elif [ "$(id -u)" -ne 0 ]; then
    die "changing the system needs root: run sudo scripts/$(basename "$0") (or stage with" \
      "--destdir DIR)"
  fi
}

# Whether this is a real install on a machine booted with systemd (sd_booted's test).
manage_systemd() {
  [ -z "$destdir" ] && [ -d /run/systemd/system ]
}
