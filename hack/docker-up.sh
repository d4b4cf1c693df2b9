#!/usr/bin/env bash
# Makes a Docker Engine available on this machine, idempotently: installs Debian's
# docker.io when dockerd is missing (root + apt), then starts dockerd in the
# background unless an engine already answers. No image is ever pulled by Capstan:
# every image is built locally.
set -euo pipefail

log=${DOCKERD_LOG:-/var/log/capstan-dockerd.log}

engine_up() { docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }

if engine_up; then
  echo "docker-up: engine $(docker version --format '{{.Server.Version}}') is running"
  if [ "$(docker info --format '{{.LiveRestoreEnabled}}' 2>/dev/null)" != true ]; then
    echo "docker-up: note: this engine runs without --live-restore: restarting it restarts every node container," \
      "and a multi-control-plane cluster does not survive that (addresses and published ports change)"
  fi
  exit 0
fi
if ! command -v dockerd >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then
    echo "docker-up: dockerd is not installed and installing docker.io needs root" >&2
    exit 1
  fi
  echo "docker-up: installing docker.io"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null
fi
echo "docker-up: starting dockerd --live-restore (log: $log)"
# --live-restore keeps containers running while the daemon itself restarts (an upgrade, a
# crash): node containers are machines, and a daemon restart must not reboot every node of
# every cluster at once (their addresses and published ports would change).
# setsid: the engine outlives whatever started it. A test that restarts dockerd (make chaos) runs
# under `timeout`, which kills its whole process group when it ends; the engine must not go too.
setsid nohup dockerd --live-restore >"$log" 2>&1 < /dev/null &
for _ in $(seq 1 120); do
  if engine_up; then
    echo "docker-up: engine $(docker version --format '{{.Server.Version}}') is running (pid $(cat /var/run/docker.pid 2>/dev/null))"
    exit 0
  fi
  sleep 0.5
done
echo "docker-up: dockerd did not answer within 60s; end of $log:" >&2
tail -20 "$log" >&2
exit 1
