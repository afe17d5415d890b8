#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the programs for 64-bit Arm (Raspberry Pi 4/5 with a 64-bit OS) on an x86-64 Debian
# machine, with the tests of the folders whose code changes with the CPU (runtime, vision,
# config), and runs those under user-mode QEMU, as a Pi 5 (cortex-a76) and a Pi 4 (cortex-a72).
#
#   scripts/cross-arm64.sh [--build-only] [--cpu cortex-a76|cortex-a72]
#
# Then it makes the arm64 Debian package (scripts/package.sh) and checks it. With --build-only
# it only builds; with --cpu it runs only the tests as that CPU, and makes no package.
# The sysroot (Debian bookworm arm64 packages, the same -dev packages scripts/setup.sh installs)
# is cached in $YOLO_EDGE_ARM64_CACHE (default ~/.cache/yolo-edge/arm64) and the build is kept in
# build-arm64/, so a second run only rebuilds what changed. Without the host tools or without
# network to the Debian archive for a missing sysroot, it skips with a message; under CI
# (CI=true) that is a failure.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib/arm64-cache.sh
source "$here/scripts/lib/arm64-cache.sh"
cache=$arm64_cache
sysroot=$arm64_sysroot
build_dir=$arm64_build_dir
jobs=${YOLO_EDGE_JOBS:-2}
suite=bookworm
# Changing how the sysroot is made changes this, so a cached one is made again.
sysroot_recipe=2
# shellcheck source=scripts/lib/packages.sh
source "$here/scripts/lib/packages.sh"
sysroot_packages=(libc6-dev libstdc++-12-dev "${library_packages[@]}")
# The test folders built and run here: the kernels, the engine, the image code, the config
# (parsing numbers) and the tracker (floating-point geometry and its filter, timed on Arm by
# benchmarks/bench_tracking). The daemon's, the CLI's and the rest are the same code on any CPU, tested
# natively (their build alone took about 4 minutes of CI here).
test_areas=(runtime vision config tracking)

build_only=false
only_cpu=
while [ $# -gt 0 ]; do
  case $1 in
    --build-only) build_only=true ;;
    --cpu)
      case ${2:-} in
        cortex-a76 | cortex-a72) only_cpu=$2 ;;
        *) echo "cross-arm64.sh: --cpu needs cortex-a76 or cortex-a72, not '${2:-}'" >&2; exit 2 ;;
      esac
      shift
      ;;
    -h | --help)
      sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "cross-arm64.sh: unknown argument '$1' (see --help)" >&2
      exit 2
      ;;
  esac
  shift
done

# Not being able to run is a skip on a developer's machine and a failure in CI.
cannot_run() {
  if [ "${CI:-}" = true ]; then
    echo "cross-arm64.sh: FAILED: $1" >&2
    exit 1
  fi
  echo "cross-arm64.sh: SKIPPED the arm64 build and tests: $1" >&2
  exit 0
}

elapsed() { echo "$((SECONDS - $1)) s"; }

for tool in aarch64-linux-gnu-g++ qemu-aarch64-static mmdebstrap protoc; do
  command -v "$tool" >/dev/null 2>&1 ||
    cannot_run "$tool is not installed (scripts/setup.sh installs it)"
done

# The host's own apt sources: the same archive (and snapshot, if pinned) as the host packages.
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
  sources=/etc/apt/sources.list.d/debian.sources
else
  sources=/etc/apt/sources.list
fi

# First URI of the sources file, to probe the network before mmdebstrap fails at length.
archive_uri() {
  sed -n -e 's/^URIs:[[:space:]]*\([^[:space:]]*\).*/\1/p' \
    -e 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\{0,1\}\([^[:space:]]*\).*/\2/p' "$sources" |
    head -n 1
}

# Absolute symlinks in extracted packages point into the host: make them relative to the
# sysroot. Extracting runs no maintainer scripts, so the BLAS/LAPACK alternatives OpenCV links
# through are set here.
repair_sysroot() {
  local root=$1 link target
  while IFS= read -r -d '' link; do
    target=$(readlink "$link")
    ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$root$target")" "$link"
  done < <(find "$root" -type l -lname '/*' -print0)
  local libdir=$root/usr/lib/aarch64-linux-gnu
  ln -sfn blas/libblas.so.3 "$libdir/libblas.so.3"
  ln -sfn lapack/liblapack.so.3 "$libdir/liblapack.so.3"
}

# The sysroot is only extracted, so no dpkg database lists its packages; dpkg-shlibdeps (in
# scripts/package.sh) needs one to find which package holds a library and its shlibs and symbols
# files. This writes one in $2 from the .deb files in $1, paths prefixed with the sysroot where
# dpkg-shlibdeps finds the libraries.
describe_packages() {
  local debs=$1 admin=$2 deb name control part
  rm -rf "$admin"
  mkdir -p "$admin/info" "$admin/updates"
  printf 'amd64\narm64\n' >"$admin/arch"
  : >"$admin/status"
  control=$(mktemp -d)
  for deb in "$debs"/*.deb; do
    # Without an info/format file dpkg reads the database's first format: files named after
    # the package alone.
    name=$(dpkg-deb --field "$deb" Package)
    { dpkg-deb --field "$deb" && printf 'Status: install ok installed\n\n'; } >>"$admin/status"
    dpkg-deb --fsys-tarfile "$deb" | tar -t | sed -e "s|^\./|$sysroot/|" -e 's|/$||' \
      >"$admin/info/$name.list"
    rm -rf "${control:?}"/*
    dpkg-deb --control "$deb" "$control"
    for part in shlibs symbols; do
      if [ -f "$control/$part" ]; then cp "$control/$part" "$admin/info/$name.$part"; fi
    done
  done
  rm -rf "$control"
}

assemble_sysroot() {
  local stamp_text
  stamp_text=$(printf '%s\n' "$sysroot_recipe" "$suite" "${sysroot_packages[@]}" && cat "$sources")
  if [ -f "$cache/sysroot.stamp" ] && [ "$(cat "$cache/sysroot.stamp")" = "$stamp_text" ]; then
    echo "cross-arm64.sh: sysroot $sysroot is up to date"
    return
  fi
  local uri
  uri=$(archive_uri)
  if ! timeout 30 /usr/lib/apt/apt-helper download-file "$uri/dists/$suite/Release" \
    "$cache/probe-Release" >/dev/null 2>&1; then
    cannot_run "no sysroot in $cache yet and the Debian archive $uri is unreachable (it needs network once)"
  fi
  rm -f "$cache/probe-Release"
  local start=$SECONDS
  echo "cross-arm64.sh: assembling the arm64 sysroot in $sysroot (${#sysroot_packages[@]} packages and their dependencies)"
  rm -rf "$sysroot.new" "$sysroot"
  mmdebstrap --quiet --variant=extract --architectures=arm64 --skip=cleanup/apt/cache \
    --include="$(IFS=,; echo "${sysroot_packages[*]}")" "$suite" "$sysroot.new" "$sources"
  repair_sysroot "$sysroot.new"
  mv "$sysroot.new" "$sysroot"
  describe_packages "$sysroot/var/cache/apt/archives" "$arm64_admindir"
  rm -f "$sysroot"/var/cache/apt/archives/*.deb
  printf '%s\n' "$stamp_text" >"$cache/sysroot.stamp"
  echo "cross-arm64.sh: sysroot took $(elapsed "$start") ($(du -sh "$sysroot" | cut -f1))"
}

mkdir -p "$cache"
total_start=$SECONDS
assemble_sysroot

start=$SECONDS
# A compiler launcher (ccache: .ci/run) is taken from the environment on every run, not only when
# the cached build folder was first configured.
nice -n 5 cmake -S "$here" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_TOOLCHAIN_FILE="$here/cmake/aarch64-linux-gnu.cmake" -DYOLO_EDGE_SYSROOT="$sysroot" \
  -DYOLO_EDGE_TEST_AREAS="$(IFS=';'; echo "${test_areas[*]}")" \
  -DCMAKE_C_COMPILER_LAUNCHER="${CMAKE_C_COMPILER_LAUNCHER:-}" \
  -DCMAKE_CXX_COMPILER_LAUNCHER="${CMAKE_CXX_COMPILER_LAUNCHER:-}" \
  >"$cache/configure.log" || { cat "$cache/configure.log" >&2; exit 1; }
nice -n 5 cmake --build "$build_dir" --parallel "$jobs"
echo "cross-arm64.sh: arm64 build took $(elapsed "$start")"
if $build_only; then
  echo "cross-arm64.sh: built $build_dir (tests not run: --build-only)"
  exit 0
fi

# One CTest run as a Pi 5 (cortex-a76, with the dot-product instructions XNNPACK's fastest int8
# kernels use): the test folders built, but for what is labelled emulation_slow.
# The tests whose code changes with the CPU (XNNPACK's int8 operators, our NEON kernels, the INT8
# engine on a real model: label arm_cpu) are also listed as NAME.cortex-a72 and run as a Pi 4
# in the same run (tests/CMakeLists.txt). None of these start the CLI or the daemon (the cli and
# daemon suites do; they are not run here), so no arm64 program needs a host wrapper that runs it
# under QEMU.
areas="^($(IFS='|'; echo "${test_areas[*]}"))"
case $only_cpu in
  cortex-a76) selection=(-L "$areas" -LE 'emulation_slow|cortex-a72') ;;
  cortex-a72) selection=(-L cortex-a72) ;;
  *) selection=(-L "$areas" -LE emulation_slow) ;;
esac
as=${only_cpu:-cortex-a76 and cortex-a72}

failed=()
start=$SECONDS
echo "cross-arm64.sh: tests under qemu-aarch64-static as $as: ctest ${selection[*]}"
if ! QEMU_CPU=${only_cpu:-cortex-a76} ASAN_OPTIONS=detect_leaks=0 nice -n 5 \
  ctest --test-dir "$build_dir" --output-on-failure --parallel "$jobs" "${selection[@]}" \
  </dev/null; then
  failed+=("tests as $as (ctest ${selection[*]})")
fi
echo "cross-arm64.sh: tests took $(elapsed "$start")"
# The arm64 Debian package (not with --cpu, which only tests), checked by lintian (in package.sh)
# and by the native build's package test, which unpacks it into a scratch root.
if [ -z "$only_cpu" ]; then
  start=$SECONDS
  deb=$("$here/scripts/package.sh" --arch arm64 | tail -n 1)
  native_test=${YOLO_EDGE_BUILD_DIR:-$here/build}/bin/test_package
  if [ -x "$native_test" ]; then
    YOLO_EDGE_ARM64_DEB=$deb "$native_test" --gtest_filter='Package.Arm64*' --gtest_brief=1 ||
      failed+=("the package test of $deb")
  else
    echo "cross-arm64.sh: $native_test is not built, so $deb was not unpacked and checked" >&2
    [ "${CI:-}" != true ] || failed+=("the package test (not built)")
  fi
  echo "cross-arm64.sh: packaging took $(elapsed "$start"): $deb"
fi

echo "cross-arm64.sh: everything took $(elapsed "$total_start")"
if [ ${#failed[@]} -gt 0 ]; then
  printf 'cross-arm64.sh: failed: %s\n' "${failed[@]}" >&2
  exit 1
fi
