#!/usr/bin/env bash
# Builds upstream's kube-state-metrics (the version go.mod requires) from the module
# cache/proxy into ${CAPSTAN_CACHE:-$HOME/.cache/capstan}/kube-state-metrics/<version>/kube-state-metrics,
# for make test-metrics only. A binary already in the cache is never rebuilt. Prints the
# binary's path. Cold: 3.5 CPU-minutes, 3.3 min wall on 2 shared cores (measured; the module
# download not counted), so not part of make test.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=$(awk '$1=="require" && $2=="k8s.io/kube-state-metrics/v2" {print $3} $1=="k8s.io/kube-state-metrics/v2" {print $2}' "$here/go.mod" | head -1)
if [ -z "$version" ]; then
  echo "kube-state-metrics/build.sh: cannot read the k8s.io/kube-state-metrics/v2 version from $here/go.mod" >&2; exit 1
fi
out="${CAPSTAN_CACHE:-$HOME/.cache/capstan}/kube-state-metrics/$version"
if [ ! -x "$out/kube-state-metrics" ]; then
  mkdir -p "$out"
  ldflags="-s -w -X github.com/prometheus/common/version.Version=${version#v} -X github.com/prometheus/common/version.Branch=release"
  # GOWORK=off: this module is outside Capstan's workspace; upstream's code never enters it.
  (cd "$here" && GOWORK=off CGO_ENABLED=0 GOFLAGS=-trimpath go build -ldflags "$ldflags" \
    -o "$out/kube-state-metrics.tmp" k8s.io/kube-state-metrics/v2)
  mv "$out/kube-state-metrics.tmp" "$out/kube-state-metrics"   # a killed build never leaves a half-written binary
fi
echo "$out/kube-state-metrics"
