# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash disable=SC2016,SC2154
# (SC2016: conditions are shell text evaluated later, by wait_until; SC2154: the variables come
# from scripts/system-test.sh, which sources this file.)
# The guest as a systemd-nspawn container: the image's root under an overlay of this run's own
# (the image stays unchanged; the overlay outlives a reboot of the container), booted with systemd
# as PID 1 on the host kernel at native speed. No D-Bus or machined on the host: --register=no
# --keep-unit (../shared/docs/FACTS-vm.md). --private-network: the container has only its own
# loopback; the host reaches its port 8080 by entering its network namespace (guest_net), so
# nothing is published beyond this machine, nor can the container reach anything.
# Needs: $system_image (the image folder), $system_out, $system_deb_dir, $system_fixtures.

container_dir=""

# Mounts the overlay and boots the container; waits for systemd to finish starting.
container_start() {
  container_dir=$system_out/container
  if [ ! -d "$container_dir/merged" ] || ! mountpoint -q "$container_dir/merged"; then
    mkdir -p "$container_dir"/{upper,work,merged}
    mount -t overlay overlay \
      -o "lowerdir=$system_image/root,upperdir=$container_dir/upper,workdir=$container_dir/work" \
      "$container_dir/merged"
  fi
  container_boot
}

container_boot() {
  systemd-nspawn -D "$container_dir/merged" --boot --register=no --keep-unit \
    --private-network --machine=yolo-edge-test --console=passive \
    --timezone=off --resolv-conf=off \
    --bind-ro="$system_deb_dir:/mnt/packages" --bind-ro="$system_fixtures:/mnt/fixtures" \
    >>"$system_out/container-console.log" 2>&1 &
  # Kept in files: a story that reboots the container runs in a subshell of its own.
  echo $! >"$container_dir/nspawn.pid"
  # systemd in the container is the child of systemd-nspawn that runs /sbin/init.
  local i container_pid container_leader=""
  container_pid=$(cat "$container_dir/nspawn.pid")
  for i in $(seq 1 100); do
    local child
    for child in $(pgrep -P "$container_pid" 2>/dev/null); do
      if [ "$(cat "/proc/$child/comm" 2>/dev/null)" = systemd ]; then
        container_leader=$child
      fi
    done
    [ -z "$container_leader" ] || break
    kill -0 "$container_pid" 2>/dev/null || break
    sleep 0.2
  done
  [ -n "$container_leader" ] || {
    tail -n 20 "$system_out/container-console.log" >&2
    echo "systemd-nspawn did not start systemd (above)" >&2
    return 1
  }
  echo "$container_leader" >"$container_dir/leader.pid"
  local state=""
  for i in $(seq 1 120); do
    state=$(guest_run systemctl is-system-running 2>/dev/null || true)
    case $state in running | degraded) break ;; esac
    sleep 0.5
  done
  case $state in
    running | degraded) ;;
    *)
      echo "the container's systemd did not finish booting: $state" >&2
      return 1
      ;;
  esac
}

# Waits for systemd-nspawn to exit (after poweroff or reboot inside), at most $1 seconds.
container_wait_exit() {
  local i pid
  pid=$(cat "$container_dir/nspawn.pid")
  for i in $(seq 1 $(($1 * 5))); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.2
  done
  return 1
}

container_stop() {
  [ -f "$container_dir/nspawn.pid" ] || return 0
  if kill -0 "$(cat "$container_dir/nspawn.pid")" 2>/dev/null; then
    kill -RTMIN+4 "$(cat "$container_dir/leader.pid")" 2>/dev/null || true
    container_wait_exit 60 || kill "$(cat "$container_dir/nspawn.pid")" 2>/dev/null || true
    container_wait_exit 10 || true
  fi
  rm -f "$container_dir/nspawn.pid"
  umount "$container_dir/merged" 2>/dev/null || umount --lazy "$container_dir/merged" || true
}

# guest_run COMMAND...: runs COMMAND inside the container (all its namespaces and its root), as
# root, with a plain environment.
guest_run() {
  nsenter --target "$(cat "$container_dir/leader.pid")" --mount --uts --ipc --net --pid --root --wd -- \
    /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"
}

# guest_net COMMAND...: runs a host program in the container's network namespace only.
guest_net() {
  nsenter --target "$(cat "$container_dir/leader.pid")" --net -- "$@"
}

guest_url() {
  echo "http://127.0.0.1:8080$1"
}

# guest_copy_in HOST-FILE GUEST-FILE
guest_copy_in() {
  guest_run sh -c "cat >'$2'" <"$1"
}
