#!/usr/bin/env bash
# Starts (up) or stops (down) the three provider managers against the local
# management plane, as three background processes of their own binaries; PIDs live in
# .capstan/managers/, logs in .capstan/logs/<provider>.log. up is idempotent: a manager
# whose recorded PID still runs the same binary is left alone; one whose binary was rebuilt
# is restarted. Each manager gets its own loopback ports; down stops by PID only.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=.capstan/managers
logs=.capstan/logs
kubeconfig=${KUBECONFIG_MGMT:-$PWD/.capstan/mgmt/kubeconfig}
# name  metrics-port  health-port
managers=("core 18080 18081" "bootstrap-kubeadm 18082 18083" "infrastructure-docker 18084 18085")
# Extra flags per manager, e.g. BOOTSTRAP_KUBEADM_ARGS=--bootstrap-token-ttl=1m (make e2e).
args_of() {
  case $1 in
    core) echo "${CORE_ARGS:-}" ;;
    bootstrap-kubeadm) echo "${BOOTSTRAP_KUBEADM_ARGS:-}" ;;
    infrastructure-docker) echo "${INFRASTRUCTURE_DOCKER_ARGS:-}" ;;
  esac
}

running() { [ -f "$dir/$1.pid" ] && kill -0 "$(cat "$dir/$1.pid")" 2>/dev/null; }

up() {
  mkdir -p "$dir" "$logs"
  [ -f "$kubeconfig" ] || { echo "managers: no management plane kubeconfig at $kubeconfig (run 'make mgmt-up')" >&2; exit 1; }
  for m in "${managers[@]}"; do
    read -r name metrics health <<<"$m"
    extra=$(args_of "$name")
    # The binary and its flags: a change of either restarts the manager.
    sum=$( (sha256sum "bin/$name"; echo "$extra") | sha256sum | cut -d' ' -f1)
    if running "$name"; then
      if [ "$(cat "$dir/$name.sum" 2>/dev/null)" = "$sum" ]; then
        echo "managers: $name already running (pid $(cat "$dir/$name.pid"))"
        continue
      fi
      echo "managers: bin/$name or its flags changed since it started: restarting it"
      stop "$name"
    fi
    KUBECONFIG="$kubeconfig" nohup "bin/$name" \
      --metrics-bind-address "127.0.0.1:$metrics" --health-addr "127.0.0.1:$health" $extra \
      >>"$logs/$name.log" 2>&1 &
    echo $! >"$dir/$name.pid"
    echo "$sum" >"$dir/$name.sum"
  done
  # Wait until each answers its readiness probe, or show why it did not.
  for m in "${managers[@]}"; do
    read -r name metrics health <<<"$m"
    for _ in $(seq 1 60); do
      if curl -fsS "http://127.0.0.1:$health/readyz" >/dev/null 2>&1; then
        echo "managers: $name ready (pid $(cat "$dir/$name.pid"), log $logs/$name.log)"
        continue 2
      fi
      running "$name" || break
      sleep 0.5
    done
    echo "managers: $name did not become ready; end of $logs/$name.log:" >&2
    tail -20 "$logs/$name.log" >&2
    exit 1
  done
}

# stop NAME sends SIGTERM to the manager's recorded PID and waits for it to exit.
stop() {
  local name=$1 pid
  if running "$name"; then
    pid=$(cat "$dir/$name.pid")
    kill -TERM "$pid"
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$pid" 2>/dev/null && { echo "managers: $name (pid $pid) ignored SIGTERM; killing" >&2; kill -KILL "$pid"; }
    echo "managers: $name stopped"
  fi
  rm -f "$dir/$name.pid" "$dir/$name.sum"
}

down() {
  for m in "${managers[@]}"; do
    read -r name _ _ <<<"$m"
    stop "$name"
  done
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  *) echo "usage: $0 up|down" >&2; exit 2 ;;
esac
