#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One command from a fresh Debian bookworm / Raspberry Pi OS machine to a built yolo-edge:
# installs every Debian package needed to build, test and run, then configures and builds into
# build/. Safe to run again: installed packages are skipped and the build is incremental.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${YOLO_EDGE_BUILD_DIR:-$here/build}
build_type=${YOLO_EDGE_BUILD_TYPE:-Release}

# shellcheck source=scripts/lib/packages.sh
source "$here/scripts/lib/packages.sh"
packages=("${library_packages[@]}" "${host_packages[@]}" "${package_tools[@]}")
if [ "$(dpkg --print-architecture)" = amd64 ]; then
  packages+=("${cross_packages[@]}")
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "setup.sh: installing packages needs root; run as root or install sudo" >&2
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup.sh: installing ${missing[*]}"
  "${as_root[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}"
else
  echo "setup.sh: all ${#packages[@]} Debian packages already installed"
fi

jobs=$(nproc 2>/dev/null || echo 2)
cmake -S "$here" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="$build_type"
cmake --build "$build_dir" --parallel "$jobs"

echo
echo "setup.sh: built $build_dir/bin/yolo-edge and $build_dir/bin/yolo-edged"
echo "Run the tests with:  scripts/test.sh"
