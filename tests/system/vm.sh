# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# The guest as a QEMU virtual machine with Debian's own kernel, for what the host kernel cannot
# give a container: the vivid camera and gpio-sim lines. /dev/kvm here boots only paravirtual
# guest kernels, so QEMU emulates (TCG): boot in about 20 s, inference a few hundred times slower
# than native (../shared/docs/FACTS-vm.md). The disk is a copy-on-write overlay of the cached
# image, so the image stays unchanged and the overlay outlives a reboot of the guest.
# Networking: QEMU's user network with restrict=on (the guest has no route off the machine) and
# two forwards bound to the host's loopback only: ssh (how the host drives the guest) and the
# daemon's port 8080.
# Needs: $system_image, $system_out, $system_deb_dir, $system_fixtures.

vm_pid=""
vm_ssh_port=""
vm_http_port=""
vm_arch=""

# A free TCP port on the host's loopback.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# vm_start ARCH: boots the image's kernel on an overlay of its disk; waits until ssh answers and
# systemd finished booting.
vm_start() {
  vm_arch=$1
  local disk=$system_out/vm-disk.qcow2 qemu accel
  qemu-img create -q -f qcow2 -b "$system_image/disk.img" -F raw "$disk"
  vm_ssh_port=$(free_port)
  vm_http_port=$(free_port)
  local net="user,id=net0,restrict=on,hostfwd=tcp:127.0.0.1:$vm_ssh_port-:22,hostfwd=tcp:127.0.0.1:$vm_http_port-:8080"
  case $vm_arch in
    amd64)
      qemu=(qemu-system-x86_64 -machine q35 -accel tcg,thread=multi -cpu max
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
    -serial "file:$system_out/vm-console.log" -monitor none -display none \
    </dev/null >"$system_out/vm-qemu.log" 2>&1 &
  vm_pid=$!
  vm_wait_boot 300
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
}

vm_ssh_options() {
  echo -i "$system_image/id_ed25519" -p "$vm_ssh_port" -o StrictHostKeyChecking=no \
    -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o BatchMode=yes -o ConnectTimeout=10 \
    -o ServerAliveInterval=15
}

# guest_run COMMAND...: runs COMMAND in the VM as root (over ssh; arguments quoted for its shell).
guest_run() {
  local quoted
  quoted=$(printf '%q ' "$@")
  # shellcheck disable=SC2046  # the options are words
  ssh $(vm_ssh_options) root@127.0.0.1 "$quoted"
}

# guest_copy_in HOST-FILE GUEST-FILE
guest_copy_in() {
  guest_run sh -c "cat >'$2'" <"$1"
}

# Host programs reach the guest's port through the forward: no namespace to enter.
guest_net() {
  "$@"
}

guest_url() {
  echo "http://127.0.0.1:$vm_http_port$1"
}

guest_curl() {
  local args=("$@") last=$(($# - 1))
  args[last]=$(guest_url "${args[last]}")
  curl "${args[@]}"
}
