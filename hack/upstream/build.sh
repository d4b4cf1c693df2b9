#!/usr/bin/env bash
# Builds upstream Cluster API's managers (the version go.mod requires) from the module cache or
# proxy into ${CAPSTAN_CACHE:-$HOME/.cache/capstan}/upstream/<version>/, for the interop e2e
# only: capi-core (sigs.k8s.io/cluster-api), capi-kubeadm-bootstrap, capi-kubeadm-control-plane,
# named apart from Capstan's binaries because a manager's name in managedFields is its binary's.
# A binary already in the cache is never rebuilt. Prints one line per binary, NAME=PATH, for the caller
# to export (CAPSTAN_UPSTREAM_CORE, CAPSTAN_UPSTREAM_BOOTSTRAP, CAPSTAN_UPSTREAM_CONTROLPLANE).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=$(awk '$1=="require" && $2=="sigs.k8s.io/cluster-api" {print $3}' "$here/go.mod" | head -1)
if [ -z "$version" ]; then
  echo "upstream/build.sh: cannot read the sigs.k8s.io/cluster-api version from $here/go.mod" >&2; exit 1
fi
out="${CAPSTAN_CACHE:-$HOME/.cache/capstan}/upstream/$version"
mkdir -p "$out"
pkg=sigs.k8s.io/cluster-api/version
major=${version#v}; major=${major%%.*}
minor=${version#v*.}; minor=${minor%%.*}
ldflags="-s -w -X $pkg.gitVersion=$version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
missing=()
for b in capi-core:sigs.k8s.io/cluster-api capi-kubeadm-bootstrap:sigs.k8s.io/cluster-api/bootstrap/kubeadm \
         capi-kubeadm-control-plane:sigs.k8s.io/cluster-api/controlplane/kubeadm; do
  [ -x "$out/${b%%:*}" ] || missing+=("$b")
done
for b in "${missing[@]}"; do
  # GOWORK=off: this module is outside Capstan's workspace; upstream's code never enters it.
  (cd "$here" && GOWORK=off CGO_ENABLED=0 GOFLAGS=-trimpath go build -ldflags "$ldflags" \
    -o "$out/${b%%:*}.tmp" "${b#*:}")
  mv "$out/${b%%:*}.tmp" "$out/${b%%:*}"
done
echo "CAPSTAN_UPSTREAM_VERSION=$version"
echo "CAPSTAN_UPSTREAM_CORE=$out/capi-core"
echo "CAPSTAN_UPSTREAM_BOOTSTRAP=$out/capi-kubeadm-bootstrap"
echo "CAPSTAN_UPSTREAM_CONTROLPLANE=$out/capi-kubeadm-control-plane"
