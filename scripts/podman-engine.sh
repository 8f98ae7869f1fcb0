#!/usr/bin/env bash
# Starts (or stops) a rootful Podman API service whose Docker-compatible
# socket the container adapter's tests can run against:
#
#   export DOCKER_HOST="$(scripts/podman-engine.sh start DIR)"
#   go test ./internal/agentruntime/container/
#   scripts/podman-engine.sh stop DIR
#
# Podman must be installed (Debian: apt-get install podman) and the script run
# as root. DIR receives the service's configuration, image and container
# storage, socket and log; the system's own Podman configuration and storage
# are neither read nor touched. `stop` removes the service's containers and
# ends it; remove DIR afterwards to drop its images too.
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[[ $# -eq 2 && ( $1 == start || $1 == stop ) ]] || usage
command -v podman >/dev/null || { echo "podman is not on PATH: install it (Debian: apt-get install podman)" >&2; exit 1; }
mkdir -p "$2"
dir="$(cd "$2" && pwd)"
socket="$dir/podman.sock"
pid_file="$dir/service.pid"
export CONTAINERS_CONF="$dir/containers.conf" CONTAINERS_STORAGE_CONF="$dir/storage.conf"

write_config() {
  # Podman asks for 1048576 open files and processes per container unless
  # told otherwise, and lowers its own process limit to kernel.pid_max.
  # Without CAP_SYS_RESOURCE (as in many sandboxes) the OCI runtime cannot
  # raise a limit above the service's, so containers get the service's own.
  local nofile nproc pid_max
  nofile="$(ulimit -Hn)"
  nproc="$(ulimit -Hu)"
  pid_max="$(cat /proc/sys/kernel/pid_max)"
  [[ $nofile == unlimited ]] && nofile=1048576
  if [[ $nproc == unlimited ]] || ((nproc > pid_max)); then nproc=$pid_max; fi
  mkdir -p "$dir/tmp" "$dir/networks"
  cat >"$CONTAINERS_CONF" <<EOF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]

[engine]
# Neither needs systemd.
cgroup_manager = "cgroupfs"
events_logger = "file"
tmp_dir = "$dir/tmp"

[network]
network_config_dir = "$dir/networks"
EOF
  cat >"$CONTAINERS_STORAGE_CONF" <<EOF
[storage]
# vfs works on any filesystem, including overlay roots that refuse overlay mounts.
driver = "vfs"
graphroot = "$dir/storage"
runroot = "$dir/run"
EOF
}

running() { [[ -f $pid_file ]] && kill -0 "$(cat "$pid_file")" 2>/dev/null; }

start() {
  running && { echo "a Podman service already runs for $dir (pid $(cat "$pid_file")); stop it first" >&2; exit 1; }
  write_config
  rm -f "$socket"
  podman system service --time=0 "unix://$socket" >"$dir/service.log" 2>&1 &
  echo $! >"$pid_file"
  for _ in $(seq 1 60); do
    if podman --remote --url "unix://$socket" version >/dev/null 2>&1; then
      echo "unix://$socket"
      return
    fi
    running || break
    sleep 0.5
  done
  echo "the Podman service did not answer on $socket; the end of $dir/service.log:" >&2
  tail -n 20 "$dir/service.log" >&2
  exit 1
}

stop() {
  if ! running; then
    echo "no Podman service runs for $dir" >&2
    rm -f "$pid_file"
    return
  fi
  # Containers outlive the service (conmon watches them), so they go first,
  # and with them their network namespaces and firewall rules.
  podman rm --all --force --time 0 >/dev/null
  local pid
  pid="$(cat "$pid_file")"
  kill "$pid"
  for _ in $(seq 1 20); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "the Podman service (pid $pid) did not end on SIGTERM; killing it" >&2
    kill -KILL "$pid"
  fi
  rm -f "$pid_file" "$socket"
}

"$1"
