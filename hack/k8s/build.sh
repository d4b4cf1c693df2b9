#!/usr/bin/env bash
# Builds Kubernetes and etcd binaries from Go source (the module proxy is the only
# reachable source) into ${CAPSTAN_CACHE:-$HOME/.cache/capstan}/k8s/<version>/bin.
# Usage: [K8S_MODULE=previous] hack/k8s/build.sh [binary ...]   (default: all)
# A binary already in the cache is never rebuilt, so reruns and fresh clones are cheap.
set -euo pipefail

# K8S_MODULE picks the module (a directory of hack/k8s) whose versions are built: "." (the
# default) the current minor, "previous" the one an upgrade starts from.
here=$(cd "$(dirname "$0")/${K8S_MODULE:-.}" && pwd)
# The versions come from go.mod so the recipe has a single source of truth.
modversion() { awk -v m="$1" '$1==m {print $2} $1=="require" && $2==m {print $3}' "$here/go.mod"; }
version=$(modversion k8s.io/kubernetes)
etcd_version=$(modversion go.etcd.io/etcd/server/v3)
if [ -z "$version" ] || [ -z "$etcd_version" ]; then
  echo "build.sh: cannot read the kubernetes/etcd versions from $here/go.mod" >&2; exit 1
fi
cache=${CAPSTAN_CACHE:-$HOME/.cache/capstan}
out="$cache/k8s/$version/bin"
all=(etcd kube-apiserver kubectl kube-controller-manager kube-scheduler kube-proxy kubelet kubeadm)
want=("$@")
[ ${#want[@]} -gt 0 ] || want=("${all[@]}")

major=${version#v}; major=${major%%.*}
minor=${version#v*.}; minor=${minor%%.*}
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=2000-01-01T00:00:00Z"
done

mkdir -p "$out"
missing=()
for b in "${want[@]}"; do
  case " ${all[*]} " in *" $b "*) ;; *) echo "build.sh: unknown binary $b (known: ${all[*]})" >&2; exit 2 ;; esac
  [ -x "$out/$b" ] || missing+=("$b")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "k8s binaries $version: all requested present in $out"
  exit 0
fi

cd "$here"
export GOWORK=off CGO_ENABLED=0 GOFLAGS=-mod=mod
tmp=$(mktemp -d "$out/.build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pkgs=()
for b in "${missing[@]}"; do
  case $b in
    etcd) pkgs+=(./cmd/etcd) ;;
    *) pkgs+=("k8s.io/kubernetes/cmd/$b") ;;
  esac
done
# One go build for all of them: the binaries' own packages and their links run side by side
# (one at a time, the cores idled through every link and the narrow ends of each build).
echo "$(date +%T) building ${missing[*]} (kubernetes $version, etcd $etcd_version)"
start=$SECONDS
go build -trimpath -ldflags "$ldflags" -o "$tmp/" "${pkgs[@]}"
for b in "${missing[@]}"; do
  mv "$tmp/$b" "$out/$b"   # atomic: a killed build never leaves a half-written binary in the cache
done
echo "$(date +%T) built ${#missing[@]} binaries in $((SECONDS-start))s"
echo "k8s binaries $version ready in $out"
