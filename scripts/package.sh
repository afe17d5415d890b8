#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Makes the Debian package yolo-edge_VERSION_ARCH.deb from a build: the two programs, the systemd
# unit, the default config as a conffile in /etc/yolo-edge, the plot script, man pages made from
# --help, dependencies from dpkg-shlibdeps and the maintainer scripts in packaging/deb/. Then runs
# lintian on it, which must report no errors.
#
#   scripts/package.sh [--arch amd64|arm64] [--build-dir DIR] [--out DIR] [--no-lintian]
#
# The native architecture packages scripts/setup.sh's build (build/ or $YOLO_EDGE_BUILD_DIR);
# arm64 on an x86-64 machine packages scripts/cross-arm64.sh's build (run that first). The
# package lands in DIR (default: BUILD/packages); its path is the last line printed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
host_arch=$(dpkg --print-architecture)
arch=$host_arch
build_dir=""
out=""
lintian=1

die() {
  echo "package.sh: $*" >&2
  exit 1
}

while [ $# -gt 0 ]; do
  case $1 in
    --arch) arch=${2:?--arch needs amd64 or arm64}; shift ;;
    --build-dir) build_dir=${2:?--build-dir needs a directory}; shift ;;
    --out) out=${2:?--out needs a directory}; shift ;;
    --no-lintian) lintian=0 ;;
    -h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "package.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done

# How to run and inspect the programs of the package's architecture on this machine.
run=()
strip_tool="strip"
if [ "$arch" = "$host_arch" ]; then
  build_dir=${build_dir:-${YOLO_EDGE_BUILD_DIR:-$here/build}}
elif [ "$arch" = arm64 ] && [ "$host_arch" = amd64 ]; then
  # shellcheck source=scripts/lib/arm64-cache.sh
  source "$here/scripts/lib/arm64-cache.sh"
  build_dir=${build_dir:-$arm64_build_dir}
  [ -f "$arm64_admindir/status" ] ||
    die "no dpkg database of the arm64 sysroot in $arm64_admindir: run scripts/cross-arm64.sh"
  run=(qemu-aarch64-static -L "$arm64_sysroot")
  strip_tool=aarch64-linux-gnu-strip
else
  die "cannot package $arch on a $host_arch machine (amd64 builds amd64 and arm64; a Pi builds arm64)"
fi
out=${out:-$build_dir/packages}
[ -f "$build_dir/CMakeCache.txt" ] ||
  die "no build in $build_dir: run scripts/setup.sh (or scripts/cross-arm64.sh --build-only for arm64)"
for tool in dpkg-deb dpkg-shlibdeps fakeroot help2man; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is not installed (scripts/setup.sh installs it)"
done

version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build_dir/CMakeCache.txt")
[ -n "$version" ] || die "$build_dir/CMakeCache.txt has no CMAKE_PROJECT_VERSION"
maintainer_name=${DEBFULLNAME:-$(git -C "$here" config user.name || true)}
maintainer_email=${DEBEMAIL:-$(git -C "$here" config user.email || true)}
if [ -z "$maintainer_name" ] || [ -z "$maintainer_email" ]; then
  die "no maintainer: set DEBFULLNAME and DEBEMAIL (or git's user.name and user.email)"
fi

cmake --build "$build_dir" --target yolo-edged yolo-edge >/dev/null
for program in yolo-edged yolo-edge; do
  [ "$(head -c 4 "$build_dir/bin/$program" | od -An -c | tr -d ' ')" = '177ELF' ] ||
    die "$build_dir/bin/$program is not a program: build it again"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# dpkg-shlibdeps expects the files where debhelper stages them: debian/PACKAGE.
root=$work/debian/yolo-edge

# The files: CMake's install rules (cmake/Install.cmake) under /usr, then moved where Debian
# wants them. dpkg lists the files, so the uninstall manifest is not shipped.
DESTDIR=$root cmake --install "$build_dir" --prefix /usr >/dev/null
install -d "$root/etc/yolo-edge"
mv "$root/usr/share/yolo-edge/yolo-edge.yaml" "$root/etc/yolo-edge/yolo-edge.yaml"
rm "$root/usr/share/yolo-edge/installed-files.txt"
install -m 0755 "$here/scripts/field-report.py" "$root/usr/share/yolo-edge/field-report.py"
install -D -m 0644 "$here/packaging/deb/sysusers.conf" "$root/usr/lib/sysusers.d/yolo-edge.conf"
for program in yolo-edged yolo-edge; do
  "$strip_tool" --remove-section=.comment --remove-section=.note --strip-unneeded \
    "$root/usr/bin/$program"
done

# Man pages from each program's --help and --version, as the target CPU runs them.
install -d "$root/usr/share/man/man1"
for program in yolo-edged yolo-edge; do
  wrapper=$work/$program
  printf '#!/bin/sh\nexec %s "%s" "$@"\n' "${run[*]}" "$root/usr/bin/$program" >"$wrapper"
  chmod +x "$wrapper"
  help2man --no-info --no-discard-stderr --version-option=--version \
    --name="$([ $program = yolo-edged ] && echo "YOLO detection service" || echo "YOLO model and field-log tool")" \
    "$wrapper" | gzip -9n >"$root/usr/share/man/man1/$program.1.gz"
done

doc=$root/usr/share/doc/yolo-edge
install -d "$doc"
install -m 0644 "$here/packaging/deb/copyright" "$doc/copyright"
date=$(date -R -d "@$(git -C "$here" log -1 --format=%ct 2>/dev/null || date +%s)")
printf 'yolo-edge (%s) unstable; urgency=medium\n\n  * Built from %s.\n\n -- %s <%s>  %s\n' \
  "$version" "$(git -C "$here" describe --always --dirty 2>/dev/null || echo 'a source tree')" \
  "$maintainer_name" "$maintainer_email" "$date" | gzip -9n >"$doc/changelog.gz"

# Dependencies: dpkg-shlibdeps reads the shlibs/symbols files of the packages that hold each
# library. For arm64 those packages are the sysroot's, described by scripts/cross-arm64.sh.
# dpkg-shlibdeps finds the package's root by its DEBIAN folder.
install -d "$root/DEBIAN"
printf 'Source: yolo-edge\n\nPackage: yolo-edge\nArchitecture: any\n' >"$work/debian/control"
shlibdeps_args=()
if [ ${#run[@]} -gt 0 ]; then
  shlibdeps_args=(--admindir="$arm64_admindir" "-l$arm64_sysroot/usr/lib/aarch64-linux-gnu"
    "-l$arm64_sysroot/lib/aarch64-linux-gnu")
fi
depends=$(cd "$work" && dpkg-shlibdeps -O "${shlibdeps_args[@]}" \
  debian/yolo-edge/usr/bin/yolo-edged debian/yolo-edge/usr/bin/yolo-edge |
  sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || die "dpkg-shlibdeps found no dependencies"

for script in postinst prerm postrm; do
  install -m 0755 "$here/packaging/deb/$script" "$root/DEBIAN/$script"
done
echo /etc/yolo-edge/yolo-edge.yaml >"$root/DEBIAN/conffiles"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" \
  -e "s|@DEPENDS@|$depends|" -e "s|@MAINTAINER@|$maintainer_name <$maintainer_email>|" \
  "$here/packaging/deb/control.in" >"$root/DEBIAN/control"
(cd "$root" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z | xargs -0 md5sum) \
  >"$root/DEBIAN/md5sums"

mkdir -p "$out"
deb=$out/yolo-edge_${version}_$arch.deb
fakeroot dpkg-deb --build -Zxz --root-owner-group "$root" "$deb" >/dev/null
if [ "$lintian" -eq 1 ]; then
  # Errors fail; packaging/deb/README.md lists what lintian still reports, and why.
  lintian --fail-on error "$deb" ||
    die "lintian reports errors in $deb (above)"
fi
echo "$deb"
