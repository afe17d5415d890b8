#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The system tests (tests/system): the Debian package of this build installed with
# `apt install ./yolo-edge_*.deb` into a fresh Debian bookworm system that has no network (its
# dependencies come from a local repository inside the image), then the user stories, each with
# its own verdict:
#   --container  systemd stories in a systemd-nspawn container (systemd as PID 1, native speed)
#   --vm         kernel-device stories in a QEMU amd64 VM (TCG): vivid camera, unplug, vimc
#                through libcamera, gpio-sim
#   --arm64      the arm64 smoke test in a QEMU arm64 VM (TCG, cortex-a76); needs the arm64
#                package (scripts/cross-arm64.sh --build-only makes its build)
# Without a part named, --container and --vm run. The image is made with mmdebstrap and cached
# (scripts/lib/system-image.sh); it is made again only when the package's dependencies change.
#
#   scripts/system-test.sh [--container] [--vm] [--arm64] [--out DIR] [--build-dir DIR]
#                          [--only STORY[,STORY...]]
#
# Needs root (mounts, nspawn, modules for the image) and, on the first run, network to the Debian
# archive. Where systemd-nspawn, QEMU or root are missing it says so in one line and skips.
# Logs, screenshots and the report land in DIR (default BUILD/system-tests); the last line is
# "system: N passed, N failed, N skipped".
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${YOLO_EDGE_BUILD_DIR:-$here/build}
parts=()
only=""
system_out=""

while [ $# -gt 0 ]; do
  case $1 in
    --container | --vm | --arm64) parts+=("${1#--}") ;;
    --out) system_out=${2:?--out needs a directory}; shift ;;
    --build-dir) build_dir=${2:?--build-dir needs a directory}; shift ;;
    --only) only=${2:?--only needs story names}; shift ;;
    -h | --help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "system-test.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ ${#parts[@]} -gt 0 ] || parts=(container vm)
system_out=${system_out:-$build_dir/system-tests}

# shellcheck source=scripts/lib/system-image.sh
source "$here/scripts/lib/system-image.sh"
# shellcheck source=tests/system/lib.sh
source "$here/tests/system/lib.sh"
# With --only, story (tests/system/lib.sh) runs only the stories named.
story_filter=$only

# One line and exit 0: the tests cannot run on this machine.
skip_all() {
  echo "system tests skipped: $*"
  exit 0
}

[ "$(id -u)" -eq 0 ] || skip_all "they need root (mounts, systemd-nspawn, QEMU's image); run as root"
[ "$(dpkg --print-architecture 2>/dev/null)" = amd64 ] ||
  skip_all "they run on an amd64 Debian host (dpkg says $(dpkg --print-architecture 2>/dev/null || echo none))"
for tool in mmdebstrap dpkg-scanpackages mkfs.ext4 jq curl; do
  command -v "$tool" >/dev/null && continue
  # CI installs them (.ci/run): there, one missing is a failure, not a skip.
  [ "${CI:-}" != true ] || { echo "system tests FAILED: $tool is not installed" >&2; exit 1; }
  skip_all "$tool is not installed"
done

system_fixtures=${YOLO_EDGE_FIXTURES:-$here/../shared/fixtures}
[ -d "$system_fixtures/models" ] || skip_all "no fixtures at $system_fixtures (models and videos)"
system_fixtures=$(cd "$system_fixtures" && pwd)

rm -rf "$system_out"
mkdir -p "$system_out"
system_deb_dir=$system_out/packages

# The package, as scripts/package.sh makes it (lintian is package.sh's own test's business).
make_package() {
  local arch=$1 args=(--no-lintian --out "$system_deb_dir")
  [ "$arch" = amd64 ] && args+=(--build-dir "$build_dir") || args+=(--arch arm64)
  "$here/scripts/package.sh" "${args[@]}" | tail -n1
}

# The image for ARCH with the package's dependencies, made or taken from the cache.
ensure_image() {
  local arch=$1 deb=$2
  if system_image_ready "$arch" "$deb"; then
    echo "system: image ($arch) from the cache, $(system_image_dir "$arch")"
  else
    local start
    start=$(date +%s)
    system_image_build "$arch" "$deb" >"$system_out/image-$arch.log" 2>&1 || {
      tail -n 30 "$system_out/image-$arch.log"
      echo "system: making the image failed (above; all of it in $system_out/image-$arch.log)"
      return 1
    }
    echo "system: made the image ($arch) in $(($(date +%s) - start)) s"
  fi
  system_image=$(system_image_dir "$arch")
}

# in_guest PART START STOP STORIES: boots the guest (START is shell text), runs its stories and
# stops it, also when the run is interrupted.
in_guest() {
  local part=$1 start=$2 stop=$3 stories=$4
  eval "$start" || {
    # A guest half up (QEMU running, shares not mounted) is stopped all the same.
    "$stop"
    echo "system ($part): the guest did not boot (its console and logs: $system_out)"
    stories_failed=$((stories_failed + 1))
    return 0
  }
  trap "$stop" EXIT
  "$stories"
  "$stop"
  trap - EXIT
}

# needs PART PROGRAM PACKAGE: whether PROGRAM is here; says in one line what to install if not.
# Under CI (CI=true), which installs them (.ci/run), a missing one fails instead of skipping.
needs() {
  command -v "$2" >/dev/null && return 0
  if [ "${CI:-}" = true ]; then
    echo "system ($1): FAILED: $2 is not installed (apt-get install $3)" >&2
    exit 1
  fi
  echo "system ($1): skipped: $2 is not installed (apt-get install $3)"
  return 1
}

run_part() {
  local part=$1 start
  start=$(date +%s)
  case $part in
    container)
      needs container systemd-nspawn systemd-container || return 0
      # shellcheck source=tests/system/container.sh
      source "$here/tests/system/container.sh"
      # shellcheck source=tests/system/stories-container.sh
      source "$here/tests/system/stories-container.sh"
      in_guest container container_start container_stop container_stories
      ;;
    vm)
      needs vm qemu-system-x86_64 qemu-system-x86 || return 0
      # shellcheck source=tests/system/vm.sh
      source "$here/tests/system/vm.sh"
      # shellcheck source=tests/system/stories-vm.sh
      source "$here/tests/system/stories-vm.sh"
      in_guest vm "vm_start amd64" vm_stop vm_stories
      ;;
    arm64)
      needs arm64 qemu-system-aarch64 qemu-system-arm || return 0
      local deb_arm64
      deb_arm64=$(make_package arm64 2>"$system_out/package-arm64.log") || {
        echo "system (arm64): skipped: no arm64 package ($(tail -n1 "$system_out/package-arm64.log"))"
        return 0
      }
      arm64_binfmt || { echo "system (arm64): skipped: no binfmt_misc to run arm64 programs for mmdebstrap"; return 0; }
      ensure_image arm64 "$deb_arm64" || { stories_failed=$((stories_failed + 1)); return 0; }
      # shellcheck source=tests/system/vm.sh
      source "$here/tests/system/vm.sh"
      # shellcheck source=tests/system/stories-arm64.sh
      source "$here/tests/system/stories-arm64.sh"
      in_guest arm64 "vm_start arm64" vm_stop arm64_stories
      ;;
  esac
  echo "system: the $part stories took $(($(date +%s) - start)) s"
}

# mmdebstrap runs the arm64 image's maintainer scripts through qemu-user-static, which needs the
# kernel's binfmt_misc to start arm64 programs (not mounted here by default).
arm64_binfmt() {
  [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] && return 0
  [ -f /usr/lib/binfmt.d/qemu-aarch64.conf ] || return 1
  mountpoint -q /proc/sys/fs/binfmt_misc ||
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || return 1
  /usr/lib/systemd/systemd-binfmt /usr/lib/binfmt.d/qemu-aarch64.conf
}

package_start=$(date +%s)
deb=$(make_package amd64)
[ -f "$deb" ] || { echo "system: scripts/package.sh made no package"; exit 1; }
echo "system: scripts/package.sh made $(basename "$deb") in $(($(date +%s) - package_start)) s"
ensure_image amd64 "$deb"
for part in "${parts[@]}"; do
  run_part "$part"
done
stories_summary
