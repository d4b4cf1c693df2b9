#!/usr/bin/env bash
# make clean: deletes every workload Cluster through the API so that the providers remove
# their containers, volumes and Secrets, then stops the managers and the management plane.
# Nothing is deleted behind the providers' backs: when a Cluster does not go away in time
# the script stops with its Deleting condition, and the data is kept for another try.
set -euo pipefail
cd "$(dirname "$0")/.."

mgmt_dir=.capstan/mgmt
kubectl=${CAPSTAN_CACHE:-$HOME/.cache/capstan}/k8s/${KUBERNETES_VERSION:-v1.37.2}/bin/kubectl
export KUBECONFIG=$PWD/$mgmt_dir/kubeconfig
stop_managers() { bin/capstanctl init --dev --stop --state-dir .capstan/managers; }

if [ ! -d "$mgmt_dir" ]; then
  echo "clean: no management plane data in $mgmt_dir"
  stop_managers
  exit 0
fi
bin/mgmt --dir "$mgmt_dir" up >/dev/null
bin/capstanctl init --dev --kubeconfig "$KUBECONFIG" --bin-dir bin --state-dir .capstan/managers --log-dir .capstan/logs >/dev/null
clusters=$("$kubectl" get clusters.cluster.x-k8s.io -A -o jsonpath='{range .items[*]}{.metadata.namespace}/{.metadata.name}{"\n"}{end}')
for c in $clusters; do
  echo "clean: deleting Cluster $c"
  bin/capstanctl delete cluster "${c#*/}" -n "${c%%/*}" --wait --timeout 10m || {
    echo "clean: Cluster $c was not deleted; the management plane is left running (KUBECONFIG=$KUBECONFIG) to look at it" >&2
    exit 1
  }
done
stop_managers
bin/mgmt --dir "$mgmt_dir" down
# The provider creates the plane's networks on first use and leaves them for the next
# cluster; with no cluster left they go too (removal fails, harmlessly, if one is in use).
if docker version >/dev/null 2>&1; then
  for n in $(docker network ls -q --filter label=io.capstan.provider=infrastructure-docker --filter label=io.capstan.plane=capstan); do
    docker network rm "$n" >/dev/null || echo "clean: Docker network $n still in use, kept" >&2
  done
fi
