#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Undoes scripts/install.sh: stops and disables yolo-edged, removes the files the install listed
# in PREFIX/share/yolo-edge/installed-files.txt (programs, unit, udev rule, default config). The config in
# /etc/yolo-edge, the field logs and the state (models, calibration frames) stay unless --purge,
# which also removes them, the cache and the yolo-edge user. --destdir DIR (or $DESTDIR) works
# below DIR only, as install.sh does.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/service-common.sh
source "$here/scripts/service-common.sh"

usage() {
  cat <<EOF
usage: scripts/uninstall.sh [options]
Stops and removes the $service service installed by scripts/install.sh.

  --prefix DIR   the prefix given to install.sh (default $prefix)
  --destdir DIR  work below DIR (also \$DESTDIR): no user removed, no systemctl
  --purge        also remove $config_dir, $logs_dir, $state_dir,
                 $cache_dir and the $service_user user
  -h, --help     this text
EOF
}

purge=0
while [ $# -gt 0 ]; do
  case $1 in
    --prefix | --prefix=*) take_value "$@"; prefix=$value ;;
    --destdir | --destdir=*) take_value "$@"; destdir=$value ;;
    --purge) purge=1; shift_by=1 ;;
    -h | --help) usage; exit 0 ;;
    *) usage_error "unknown option '$1'" ;;
  esac
  shift "$shift_by"
done
settle_common_options
root=$destdir
manifest=$root$prefix/$manifest_in_prefix

if manage_systemd && systemctl cat "$service" >/dev/null 2>&1; then
  systemctl disable --now "$service"
fi

removed=0
if [ -f "$manifest" ]; then
  mapfile -t files <"$manifest"
  for file in "${files[@]}"; do
    [[ $file == /* ]] || die "$manifest: '$file' is not an absolute path; not removing anything"
  done
  for file in "${files[@]}"; do
    if [ -e "$root$file" ] || [ -L "$root$file" ]; then
      rm -f "$root$file"
      echo "removed $root$file"
      removed=$((removed + 1))
    fi
  done
  rmdir --ignore-fail-on-non-empty "$(dirname "$manifest")"
else
  echo "uninstall.sh: no $manifest: nothing installed with prefix $prefix" \
    "(give the --prefix install.sh was given)"
fi

if manage_systemd; then
  systemctl daemon-reload
  systemctl reset-failed "$service" 2>/dev/null || true
fi
# The GPIO rule is gone with the installed files: udev forgets it now.
if [ -z "$destdir" ] && [ -S /run/udev/control ] && command -v udevadm >/dev/null 2>&1; then
  udevadm control --reload-rules || true
fi

kept=()
for dir in "$config_dir" "$logs_dir" "$state_dir" "$cache_dir"; do
  [ -e "$root$dir" ] || continue
  if [ "$purge" -eq 1 ]; then
    rm -rf "$root$dir"
    echo "removed $root$dir"
  else
    kept+=("$root$dir")
  fi
done
if [ "$purge" -eq 1 ] && [ -z "$destdir" ] && getent passwd "$service_user" >/dev/null; then
  userdel "$service_user"
  echo "removed the user $service_user"
  if getent group "$service_user" >/dev/null; then
    groupdel "$service_user"
  fi
fi

echo
echo "uninstall.sh: removed $removed installed files"
if [ ${#kept[@]} -gt 0 ]; then
  echo "Kept (config, field logs, state): ${kept[*]}"
  echo "Remove them and the $service_user user with: scripts/uninstall.sh --purge"
fi
