#!/usr/bin/env bash
# Builds upstream's clusterctl (the version go.mod requires) from the module cache/proxy into
# ${CAPSTAN_CACHE:-$HOME/.cache/capstan}/clusterctl/<version>/clusterctl, for the interop test
# only. A binary already in the cache is never rebuilt. Prints the binary's path.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=$(awk '$1=="require" && $2=="sigs.k8s.io/cluster-api" {print $3} $1=="sigs.k8s.io/cluster-api" {print $2}' "$here/go.mod" | head -1)
if [ -z "$version" ]; then
  echo "clusterctl/build.sh: cannot read the sigs.k8s.io/cluster-api version from $here/go.mod" >&2; exit 1
fi
out="${CAPSTAN_CACHE:-$HOME/.cache/capstan}/clusterctl/$version"
if [ ! -x "$out/clusterctl" ]; then
  mkdir -p "$out"
  pkg=sigs.k8s.io/cluster-api/version
  major=${version#v}; major=${major%%.*}
  minor=${version#v*.}; minor=${minor%%.*}
  ldflags="-s -w -X $pkg.gitVersion=$version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  # GOWORK=off: this module is outside Capstan's workspace; upstream's code never enters it.
  (cd "$here" && GOWORK=off CGO_ENABLED=0 GOFLAGS=-trimpath go build -ldflags "$ldflags" \
    -o "$out/clusterctl.tmp" sigs.k8s.io/cluster-api/cmd/clusterctl)
  mv "$out/clusterctl.tmp" "$out/clusterctl"
fi
echo "$out/clusterctl"
