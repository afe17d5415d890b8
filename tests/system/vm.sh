# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash disable=SC2016,SC2154
# (SC2016: conditions are shell text evaluated later, by wait_until; SC2154: the variables come
# from scripts/system-test.sh, which sources this file.)
# The guest as a QEMU virtual machine with Debian's own kernel, for what the host kernel cannot
# give a container: the vivid and vimc cameras and gpio-sim lines. /dev/kvm here boots only
# paravirtual guest kernels, so QEMU emulates (TCG): boot in about 20 s, inference a few hundred
# times slower than native (../shared/docs/FACTS-vm.md). The disk is a copy-on-write overlay of
# the cached image, so the image stays unchanged and the overlay outlives a reboot of the guest.
# Files: 9p shares, read-only for the guest. Networking: QEMU's user network with restrict=on (the guest has no route off the machine) and
# two forwards bound to the host's loopback only: ssh (how the host drives the guest) and the
# daemon's port 8080.
# Needs: $system_image, $system_out, $system_deb_dir, $system_fixtures.

vm_pid=""
vm_ssh_master=""
vm_ssh_dir=""
vm_share=""
vm_ssh_port=""
vm_http_port=""
vm_arch=""

# The unit's timings are a Raspberry Pi's. Emulated on a shared 2-core machine, one inference of
# yolo11n takes 3-20 s (30-60 s with AVX emulated), and the daemon rightly stops feeding the
# watchdog while no inference finishes (10 s + 5 frame times), so systemd could kill it for
# being slow, not stuck. This drop-in, the emulated guest's only change to the unit, gives the
# engine time: start timeout 600 s, watchdog 120 s. The container's watchdog story checks the
# shipped WatchdogSec=30s; the VM's stories check that the pings go on (WatchdogTimestamp) and
# that NRestarts stays 0.
readonly vm_watchdog_s=120
vm_emulation_dropin() {
  guest_sh "mkdir -p /etc/systemd/system/yolo-edged.service.d &&
    printf '[Service]\nTimeoutStartSec=600s\nWatchdogSec=${vm_watchdog_s}s\n' \
      >/etc/systemd/system/yolo-edged.service.d/emulation.conf && systemctl daemon-reload"
}

# int8_model: prints the path of a static INT8 yolo11n made natively from the traffic clip
# (quantizing under emulation takes too long; the QDQ file is the same on any CPU), made once and
# kept in the image cache beside the images.
int8_model() {
  local model=$system_fixtures/models/yolo11n_320_fp32.onnx int8
  int8=$system_cache/yolo11n-$(sha256sum "$model" | cut -c1-12).int8.onnx
  if [ ! -s "$int8" ]; then
    "$build_dir/bin/yolo-edge" quantize --model "$model" \
      --calib "$system_fixtures/video/traffic_720p_30fps.mp4" --frames 8 --out "$int8.new" >&2 &&
      mv "$int8.new" "$int8"
  fi
  echo "$int8"
}

# A free TCP port on the host's loopback.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# vm_start ARCH: boots the image's kernel on an overlay of its disk; waits until ssh answers and
# systemd finished booting.
vm_start() {
  vm_arch=$1
  local disk=$system_out/vm-disk.qcow2 qemu
  vm_share=$system_out/vm-share
  mkdir -p "$vm_share"
  qemu-img create -q -f qcow2 -b "$system_image/disk.img" -F raw "$disk"
  vm_ssh_port=$(free_port)
  vm_http_port=$(free_port)
  local net="user,id=net0,restrict=on,hostfwd=tcp:127.0.0.1:$vm_ssh_port-:22,hostfwd=tcp:127.0.0.1:$vm_http_port-:8080"
  case $vm_arch in
    amd64)
      # A CPU without AVX: TCG emulates AVX and AVX2 far slower than SSE (one yolo11n 320
      # detection under qemu-x86_64: 88 s of CPU with -cpu max, 9 s with Nehalem), and XNNPACK
      # picks its kernels by what the CPU says it has. Debian's amd64 baseline needs none of them.
      qemu=(qemu-system-x86_64 -machine q35 -accel tcg,thread=multi -cpu Nehalem
        -append "root=/dev/vda rw console=ttyS0 net.ifnames=0 quiet")
      ;;
    arm64)
      qemu=(qemu-system-aarch64 -machine virt -accel tcg,thread=multi -cpu cortex-a76
        -append "root=/dev/vda rw console=ttyAMA0 net.ifnames=0 quiet")
      ;;
  esac
  "${qemu[@]}" -smp 2 -m "${YOLO_EDGE_VM_MEMORY_MB:-3072}" -nographic -no-user-config \
    -kernel "$system_image/vmlinuz" -initrd "$system_image/initrd.img" \
    -drive "file=$disk,if=virtio,format=qcow2,cache=unsafe" \
    -netdev "$net" -device virtio-net-pci,netdev=net0 \
    -virtfs "local,path=$system_fixtures,mount_tag=fixtures,security_model=none,readonly=on" \
    -virtfs "local,path=$system_deb_dir,mount_tag=packages,security_model=none,readonly=on" \
    -virtfs "local,path=$vm_share,mount_tag=share,security_model=none,readonly=on" \
    -serial "file:$system_out/vm-console.log" -monitor none -display none \
    </dev/null >"$system_out/vm-qemu.log" 2>&1 &
  vm_pid=$!
  vm_wait_boot 300 || return 1
  vm_ssh_master_start
  vm_mount_shares
}

# One ssh connection for the whole run, which every guest_run shares: a new connection costs the
# emulated CPU its key exchange, 3-5 s each while the guest is busy (0.3 s through the master),
# and the stories run hundreds of commands, polls included. Should the master go, ssh connects
# on its own as before.
vm_ssh_master_start() {
  vm_ssh_dir=$(mktemp -d "${TMPDIR:-/tmp}/yolo-edge-ssh.XXXXXX")
  # shellcheck disable=SC2046  # the options are words
  ssh $(vm_ssh_options) -o ControlMaster=yes -o ControlPersist=no -N root@127.0.0.1 \
    </dev/null >/dev/null 2>>"$system_out/vm-ssh-master.log" &
  vm_ssh_master=$!
  local i
  for i in $(seq 1 100); do
    [ -S "$vm_ssh_dir/master" ] && return 0
    kill -0 "$vm_ssh_master" 2>/dev/null || break
    sleep 0.2
  done
  echo "no ssh master connection (each command connects on its own): $(tail -n 3 "$system_out/vm-ssh-master.log" 2>/dev/null)" >&2
}

vm_ssh_master_stop() {
  [ -n "$vm_ssh_master" ] || return 0
  kill "$vm_ssh_master" 2>/dev/null || true
  wait "$vm_ssh_master" 2>/dev/null || true
  rm -rf "$vm_ssh_dir"
  vm_ssh_master=""
}

# The host's files reach the guest through 9p shares, at the paths the container has them:
# /mnt/fixtures, /mnt/packages, and /mnt/share for what a story puts there (guest_copy_in).
# Copying through ssh would cost the emulated CPU its encryption.
vm_mount_shares() {
  guest_sh 'for tag in fixtures packages share; do
    mkdir -p /mnt/$tag && mount -t 9p -o trans=virtio,version=9p2000.L,ro $tag /mnt/$tag || exit 1
  done'
}

# Waits until ssh answers and systemd finished booting, at most $1 seconds.
vm_wait_boot() {
  local deadline=$(($(date +%s) + $1)) state=""
  while [ "$(date +%s)" -lt "$deadline" ]; do
    kill -0 "$vm_pid" 2>/dev/null || {
      echo "QEMU exited: $(tail -n 5 "$system_out/vm-qemu.log")" >&2
      return 1
    }
    state=$(guest_run systemctl is-system-running 2>/dev/null || true)
    case $state in running | degraded) return 0 ;; esac
    sleep 2
  done
  echo "the VM did not finish booting in $1 s (state: ${state:-no ssh})" >&2
  return 1
}

vm_stop() {
  [ -n "$vm_pid" ] || return 0
  if kill -0 "$vm_pid" 2>/dev/null; then
    guest_run systemctl poweroff >/dev/null 2>&1 || true
    local i
    for i in $(seq 1 60); do
      kill -0 "$vm_pid" 2>/dev/null || break
      sleep 1
    done
    kill "$vm_pid" 2>/dev/null || true
  fi
  wait "$vm_pid" 2>/dev/null || true
  vm_pid=""
  vm_ssh_master_stop
}

vm_ssh_options() {
  echo -i "$system_image/id_ed25519" -p "$vm_ssh_port" -o StrictHostKeyChecking=no \
    -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o BatchMode=yes -o ConnectTimeout=10 \
    -o ServerAliveInterval=15 ${vm_ssh_dir:+-o ControlPath=$vm_ssh_dir/master}
}

# guest_run COMMAND...: runs COMMAND in the VM as root (over ssh; arguments quoted for its shell).
guest_run() {
  local quoted
  quoted=$(printf '%q ' "$@")
  # shellcheck disable=SC2046  # the options are words
  ssh $(vm_ssh_options) root@127.0.0.1 "$quoted"
}

# guest_copy_in HOST-FILE GUEST-FILE: through the share.
guest_copy_in() {
  cp "$1" "$vm_share/$(basename "$2")"
  guest_run cp "/mnt/share/$(basename "$2")" "$2"
}

# Host programs reach the guest's port through the forward: no namespace to enter.
guest_net() {
  "$@"
}

guest_url() {
  echo "http://127.0.0.1:$vm_http_port$1"
}

