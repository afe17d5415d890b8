# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# The Debian bookworm system the system tests (tests/system) install the package into, made with
# mmdebstrap and cached between runs like the arm64 sysroot (scripts/lib/arm64-cache.sh). Sourced
# by scripts/system-test.sh. One image per architecture, in $system_cache/ARCH:
#   root/      the file system, booted by systemd-nspawn (read-only: each run adds an overlay)
#   disk.img   the same as a raw ext4 image (no partition table: root=/dev/vda) for QEMU
#   vmlinuz, initrd.img   Debian's kernel and initramfs from root/, for QEMU's -kernel/-initrd
#   id_ed25519 the key root logs in with over the guest's forwarded ssh port
#   key        what the image was made from; a different one makes it again
# The image holds the package's dependencies (Depends, Recommends, and libopenblas0-pthread for
# the BLAS stories) as a local apt repository, /var/local/yolo-edge-repo, and apt knows no other
# source: `apt install ./yolo-edge_*.deb` resolves them as a user's apt would, with no network.
# They are installed in the image already (system_image_customize says why); the install stories
# resolve the package against the system as it was before them too.
# Override the place with $YOLO_EDGE_SYSTEM_CACHE.
system_cache=${YOLO_EDGE_SYSTEM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/yolo-edge/system}

# The system every image starts from: systemd as PID 1, udev and kmod for the kernel devices,
# networkd for the guest's one address, ssh for the host to drive it, and the tools the stories
# run inside (curl, v4l-utils, gpiod; libcamera-tools' `cam --list` says what libcamera sees, and
# gstreamer1.0-tools' gst-launch-1.0 runs a pipeline alone when the daemon cannot open it). The
# libcamera stack itself (gstreamer1.0-libcamera, libcamera-ipa) comes with the package's
# Recommends, as it does on a user's system.
system_image_packages=(
  systemd systemd-sysv udev dbus kmod iproute2 procps
  initramfs-tools
  openssh-server curl v4l-utils gpiod libcamera-tools gstreamer1.0-tools
)

# The host's own apt sources: the same archive (and snapshot, if pinned) as the host packages.
system_apt_sources() {
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    echo /etc/apt/sources.list.d/debian.sources
  else
    echo /etc/apt/sources.list
  fi
}

# The kernel package of an architecture.
system_kernel_package() {
  case $1 in
    amd64) echo linux-image-amd64 ;;
    arm64) echo linux-image-arm64 ;;
  esac
}

# system_image_key ARCH DEB: what an image is made from, as one line: this file, the package's
# dependencies and the kernel apt would install now. A new kernel in the archive makes a new
# image, so the gpio-sim module always matches the headers the host can install.
system_image_key() {
  local arch=$1 deb=$2
  {
    sha256sum "${BASH_SOURCE[0]}" | cut -d' ' -f1
    echo "$arch"
    dpkg-deb -f "$deb" Depends Recommends
  } | sha256sum | cut -c1-16
}

system_image_dir() {
  echo "$system_cache/$1"
}

# system_image_ready ARCH DEB: whether the cached image was made for these dependencies.
system_image_ready() {
  local dir
  dir=$(system_image_dir "$1")
  [ -f "$dir/key" ] && [ -f "$dir/disk.img" ] && [ -d "$dir/root" ] &&
    [ "$(cat "$dir/key")" = "$(system_image_key "$1" "$2")" ]
}

# system_image_remove DIR: removes an image folder, unmounting first what a build that was killed
# left mounted in it (its chroot's /proc, /sys, /dev): rm would otherwise reach into the host's.
system_image_remove() {
  local dir=$1 mounted
  for mounted in $(awk -v d="$dir/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r); do
    umount --lazy "$mounted" || return 1
  done
  rm -rf --one-file-system "$dir"
}

# system_image_build ARCH DEB: makes the image for ARCH with DEB's dependencies in its repository.
# Needs root, network to the Debian archive, mmdebstrap and (for amd64) the kernel headers of the
# image's kernel on this host, which it installs to build gpio-sim and vimc.
system_image_build() {
  local arch=$1 deb=$2 dir tmp kernel
  dir=$(system_image_dir "$arch")
  tmp=$dir.new
  kernel=$(system_kernel_package "$arch")
  # Each step's failure ends the build: it runs as a condition (`|| {...}`), where errexit is off.
  system_image_remove "$tmp" || return 1
  mkdir -p "$tmp" || return 1
  ssh-keygen -q -t ed25519 -N '' -C yolo-edge-system-tests -f "$tmp/id_ed25519" || return 1
  cp "$deb" "$tmp/package.deb" || return 1

  local extra=()
  [ "$arch" = "$(dpkg --print-architecture)" ] || extra=(--architectures="$arch")
  echo "system image ($arch): mmdebstrap bookworm with ${#system_image_packages[@]} packages and the kernel"
  # The host's own sources: the same archive and snapshot as the rest of the build.
  # No documentation, manual pages or translations (nothing reads them in a test; a third less to
  # unpack), no fsync per file (the image is written once, then copied).
  mmdebstrap --variant=apt --skip=cleanup/apt/lists "${extra[@]}" \
    --dpkgopt=force-unsafe-io --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/info/*' \
    --include="$(
      IFS=,
      echo "${system_image_packages[*]},$kernel"
    )" \
    --customize-hook="bash '${BASH_SOURCE[0]}' --customize \"\$1\" '$tmp/package.deb'" \
    bookworm "$tmp/root" "$(system_apt_sources)" || return 1
  echo "system image ($arch): $(grep -c '^Package:' "$tmp/root/var/local/yolo-edge-repo/Packages") packages in the local repository"
  system_image_configure "$tmp" "$arch" || return 1
  [ "$arch" != amd64 ] || system_image_modules "$tmp/root" || return 1
  system_image_disk "$tmp" || return 1
  system_image_key "$arch" "$deb" >"$tmp/key" || return 1
  rm -f "$tmp/package.deb"
  system_image_remove "$dir" || return 1
  mv "$tmp" "$dir"
}

# mmdebstrap's customize hook (this file run with --customize ROOT DEB): what `apt install DEB`
# needs, with Recommends as apt installs them by default and libopenblas0-pthread for the BLAS
# stories, downloaded into the local repository /var/local/yolo-edge-repo; then the same
# dependencies installed, but not DEB itself: apt and dpkg under emulation take many minutes for
# what they do here in one, and each story run would pay it. The install stories still resolve
# DEB against the system as it was before (its dpkg status is kept beside the repository).
system_image_customize() {
  local root=$1 deb=$2 repo=$1/var/local/yolo-edge-repo
  mkdir -p "$repo"
  cp "$root/var/lib/dpkg/status" "$repo/dpkg-status-before"
  cp "$deb" "$root/tmp/yolo-edge.deb"
  chroot "$root" apt-get install --download-only -y -q --install-recommends \
    /tmp/yolo-edge.deb libopenblas0-pthread libblas3 >/dev/null
  cp -l "$root"/var/cache/apt/archives/*.deb "$repo/"
  (cd "$repo" && dpkg-scanpackages --multiversion . /dev/null >Packages 2>/dev/null)
  DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get satisfy -y -q \
    "$(dpkg-deb -f "$deb" Depends), $(dpkg-deb -f "$deb" Recommends)" >/dev/null
  rm -f "$root/tmp/yolo-edge.deb" "$root"/var/cache/apt/archives/*.deb
}

# system_chroot ROOT COMMAND...: runs COMMAND in ROOT with /dev, /proc and /sys mounted, as
# mmdebstrap's hooks have them (maintainer scripts need /dev/null).
system_chroot() {
  local root=$1 status=0 fs
  shift
  for fs in dev proc sys; do
    mount --bind "/$fs" "$root/$fs"
  done
  chroot "$root" "$@" || status=$?
  for fs in sys proc dev; do
    umount --lazy "$root/$fs"
  done
  return "$status"
}

# The guest as the stories expect it: the local repository as apt's only source, one static
# address and no default route (QEMU forwards only the host's loopback ports to it), root's ssh
# key, a serial console, no waiting for a network that is not there.
system_image_configure() {
  local tmp=$1 root=$1/root
  rm -f "$root"/etc/apt/sources.list "$root"/etc/apt/sources.list.d/*
  # The guest's dpkg syncs as a user's does; only the image build skipped it.
  sed -i '/force-unsafe-io/d' "$root"/etc/dpkg/dpkg.cfg.d/* 2>/dev/null || true
  echo "deb [trusted=yes] file:/var/local/yolo-edge-repo ./" >"$root/etc/apt/sources.list.d/yolo-edge-repo.list"
  rm -rf "$root"/var/lib/apt/lists/*
  system_chroot "$root" apt-get update -q >/dev/null
  echo yolo-edge-test >"$root/etc/hostname"
  printf '127.0.0.1 localhost\n127.0.1.1 yolo-edge-test\n' >"$root/etc/hosts"
  printf '/dev/vda / ext4 defaults 0 1\n' >"$root/etc/fstab"
  mkdir -p "$root/etc/systemd/network"
  printf '[Match]\nName=eth0\n\n[Network]\nAddress=10.0.2.15/24\nLinkLocalAddressing=no\nIPv6AcceptRA=no\n' \
    >"$root/etc/systemd/network/10-guest.network"
  chroot "$root" systemctl enable --quiet systemd-networkd
  chroot "$root" systemctl mask --quiet systemd-networkd-wait-online.service apt-daily.timer \
    apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer man-db.timer
  install -d -m 0700 "$root/root/.ssh"
  install -m 0600 "$tmp/id_ed25519.pub" "$root/root/.ssh/authorized_keys"
  # The journal keeps every boot, for the reboot story.
  mkdir -p "$root/var/log/journal"
  : >"$root/etc/machine-id"
}

# The kernel modules the VM stories need and Debian's kernel lacks, built out of tree from
# linux-source-6.1 of the guest kernel's exact version, against its headers, into
# /lib/modules/KVER/updates (see ../shared/docs/FACTS-vm.md): gpio-sim for GPIO lines, vimc for a
# camera that libcamera opens. Each is built once per kernel and kept in $system_cache: an image
# made again for new dependencies reuses them.
system_image_modules() {
  local root=$1 kver version
  kver=$(basename "$(ls -d "$root"/lib/modules/*-amd64 | head -n1)")
  version=$(chroot "$root" dpkg-query -W -f '${Version}' "linux-image-$kver")
  if ! dpkg-query -W -f '${Status}' "linux-headers-$kver" "linux-source-6.1" 2>/dev/null |
    grep -c 'install ok installed' | grep -qx 2 ||
    [ "$(dpkg-query -W -f '${Version}' linux-source-6.1)" != "$version" ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      "linux-headers-$kver" "linux-source-6.1=$version" >/dev/null
  fi
  system_image_module gpio-sim "$kver" "$version" "$root" system_image_gpio_sim_source || return 1
  system_image_module vimc "$kver" "$version" "$root" system_image_vimc_source || return 1
  system_chroot "$root" depmod "$kver"
}

# system_image_module NAME KVER VERSION ROOT PREPARE: NAME.ko into ROOT's updates folder, from the
# cache or built: PREPARE SRC puts the module's sources and a Kbuild into the folder SRC.
system_image_module() {
  local name=$1 kver=$2 version=$3 root=$4 prepare=$5 built src recipe
  # The cached file names its recipe too: a changed PREPARE builds it again.
  recipe=$(declare -f "$prepare" | sha256sum | cut -c1-8)
  built=$system_cache/$name-$kver-$version-$recipe.ko
  echo "system image (amd64): $name for $kver ($version)"
  if [ ! -f "$built" ]; then
    src=$(mktemp -d)
    "$prepare" "$src" "$version" || return 1
    make -s -C "/usr/src/linux-headers-$kver" M="$src" modules >"$src/build.log" 2>&1 || {
      cat "$src/build.log" >&2
      return 1
    }
    cp "$src/$name.ko" "$built.new" && mv "$built.new" "$built"
    rm -rf "$src"
  fi
  install -D -m 0644 "$built" "$root/lib/modules/$kver/updates/$name.ko"
}

# gpio-sim: Debian builds its kernels without CONFIG_GPIO_SIM and CONFIG_IRQ_SIM, so the kernel's
# own drivers/gpio/gpio-sim.c and kernel/irq/irq_sim.c become one module.
system_image_gpio_sim_source() {
  local src=$1 version=$2
  tar -xaf /usr/src/linux-source-6.1.tar.xz -C "$src" --strip-components=1 \
    linux-source-6.1/drivers/gpio/gpio-sim.c linux-source-6.1/drivers/gpio/gpiolib.h \
    linux-source-6.1/kernel/irq/irq_sim.c || return 1
  # The module is named gpio-sim, as the kernel's own would be: `modprobe gpio-sim` loads it.
  cp "$src/drivers/gpio/gpio-sim.c" "$src/gpio-sim-main.c"
  cp "$src/drivers/gpio/gpiolib.h" "$src/gpiolib.h"
  # irq_to_desc() is not exported to modules in 6.1: deliver the interrupt through the exported
  # generic_handle_irq(), which runs the same handle_simple_irq the domain set for it.
  sed 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' \
    "$src/kernel/irq/irq_sim.c" >"$src/irq_sim.c"
  grep -q 'generic_handle_irq(irqnum)' "$src/irq_sim.c" || {
    echo "irq_sim.c of $version changed: the irq_to_desc() call to replace is not there" >&2
    return 1
  }
  printf 'obj-m := gpio-sim.o\ngpio-sim-y := gpio-sim-main.o irq_sim.o\n' >"$src/Kbuild"
}

# vimc, the kernel's virtual media-controller camera (sensor, debayer, scaler, capture), which
# libcamera's vimc pipeline handler drives as it drives a Pi's camera: Debian's config has
# `# CONFIG_VIDEO_VIMC is not set` but everything it selects (V4L2 TPG, media controller, subdev
# API, videobuf2). Its own Makefile, with the module always built.
system_image_vimc_source() {
  local src=$1 dir=linux-source-6.1/drivers/media/test-drivers/vimc
  tar -xaf /usr/src/linux-source-6.1.tar.xz -C "$src" --strip-components=5 "$dir" || return 1
  # shellcheck disable=SC2016  # make's $(...), not the shell's
  grep -q '^obj-$(CONFIG_VIDEO_VIMC) += vimc.o$' "$src/Makefile" || {
    echo "$dir/Makefile changed: no 'obj-\$(CONFIG_VIDEO_VIMC) += vimc.o'" >&2
    return 1
  }
  # shellcheck disable=SC2016  # make's $(...), not the shell's
  sed 's/^obj-$(CONFIG_VIDEO_VIMC) += vimc.o$/obj-m += vimc.o/' "$src/Makefile" >"$src/Kbuild"
  # vimc makes a frame every 1/60 s; here every 1/5 s. Each frame is drawn, debayered and scaled
  # on the emulated CPU, beside the daemon's inference; and Debian's libcamerasrc 0.0.3 has a race
  # that the emulated machine's stalls turned into a crash every few minutes at vimc's own rate,
  # none in 5 minutes at 5 fps (docs/system-tests.md, "What the stories found"). vm_camera's
  # vivid runs at 5 fps too.
  sed -i 's|schedule_timeout(HZ / 60);|schedule_timeout(HZ / 5);|' "$src/vimc-streamer.c"
  grep -q 'schedule_timeout(HZ / 5);' "$src/vimc-streamer.c" || {
    echo "$dir/vimc-streamer.c changed: no 'schedule_timeout(HZ / 60)' to slow down" >&2
    return 1
  }
}

# disk.img for QEMU: root/ as ext4, the kernel and initramfs beside it.
system_image_disk() {
  local tmp=$1 size_mb
  cp -L "$tmp/root/vmlinuz" "$tmp/vmlinuz"
  cp -L "$tmp/root/initrd.img" "$tmp/initrd.img"
  size_mb=$(($(du -sm "$tmp/root" | cut -f1) * 13 / 10 + 1024))
  mkfs.ext4 -q -L yolo-edge-test -d "$tmp/root" "$tmp/disk.img" "${size_mb}M"
}

if [ "${BASH_SOURCE[0]}" = "$0" ] && [ "${1:-}" = --customize ]; then
  set -euo pipefail
  system_image_customize "$2" "$3"
fi
