#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the whole test suite (GoogleTest through CTest) on the build made by scripts/setup.sh.
# Tests that need ../shared/fixtures skip with a message when it is absent.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${YOLO_EDGE_BUILD_DIR:-$here/build}

if [ ! -f "$build_dir/CTestTestfile.cmake" ]; then
  echo "test.sh: no build in $build_dir; run scripts/setup.sh first" >&2
  exit 1
fi
"$here/scripts/check-spdx.sh"
cmake --build "$build_dir" --parallel "$(nproc 2>/dev/null || echo 2)"
exec ctest --test-dir "$build_dir" --output-on-failure --parallel "$(nproc 2>/dev/null || echo 2)" "$@"
