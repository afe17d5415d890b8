# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash disable=SC2034  # the variables are used by the scripts that source it
# Where scripts/cross-arm64.sh keeps what it makes between runs, shared with scripts/package.sh.
# Override the place with $YOLO_EDGE_ARM64_CACHE.
arm64_cache=${YOLO_EDGE_ARM64_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/yolo-edge/arm64}
# Debian bookworm arm64 packages, extracted: the headers and libraries the build links against.
arm64_sysroot=$arm64_cache/sysroot
# A dpkg database of the sysroot's packages (extracting registers none), for dpkg-shlibdeps.
arm64_admindir=$arm64_cache/dpkg
# The CMake build (cmake/aarch64-linux-gnu.cmake) lives in its tree, beside the native build/: a
# build folder belongs to the tree that configured it, and its place relative to the sources is
# the same in every clone, so a compiler cache (ccache with CCACHE_BASEDIR at the tree: .ci/run)
# serves one clone's objects to the next. The sysroot is shared by every clone.
arm64_source=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
arm64_build_dir=$arm64_source/build-arm64
