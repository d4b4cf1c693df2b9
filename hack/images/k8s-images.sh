#!/usr/bin/env bash
# Builds, without pulling anything, every image kubeadm expects for a Kubernetes version
# (under the exact names `kubeadm config images list` prints) plus the flannel overlay image,
# and prints their references, one a line, on stdout.
#   kube-apiserver, kube-controller-manager, kube-scheduler, etcd: FROM scratch + the binary
#     cached by hack/k8s/build.sh;
#   kube-proxy: capstan/rootfs:slim (iptables) + the binary;
#   pause: infrastructure-docker/images/pause (static Go);
#   coredns: github.com/coredns/coredns at the tag kubeadm names, from the Go module proxy, with
#     kubeadm's plugins only (images/k8s/coredns/main.go.txt);
#   flannel: github.com/flannel-io/flannel, same way, plus the flannel CNI plugin (see lib.sh).
# Usage: hack/images/k8s-images.sh <kubernetes-version>
# Each image is labelled io.capstan.inputs=<hash of its recipe, binary and base> and rebuilt
# only when that hash changes.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

version=${1:?usage: k8s-images.sh <kubernetes-version, e.g. v1.37.2>}
flannel_ref=capstan/flannel:$flannel_version
need_engine

bin=$cache/k8s/$version/bin
for b in etcd kube-apiserver kube-controller-manager kube-scheduler kube-proxy kubelet kubeadm kubectl; do
  if [ ! -x "$bin/$b" ]; then
    log "building the Kubernetes binaries (hack/k8s/build.sh)"
    bash "$root/hack/k8s/build.sh" >&2
    break
  fi
done
[ -x "$bin/kubeadm" ] || die "no kubeadm in $bin: hack/k8s/build.sh builds only the version pinned in hack/k8s/go.mod"
got=$("$bin/kubeadm" version -o short)
[ "$got" = "$version" ] || die "$bin/kubeadm reports $got, not $version"

bash "$scripts/rootfs.sh" slim
slim_inputs=$(inputs_of capstan/rootfs:slim)

# coredns_binary TAG builds CoreDNS at TAG with the plugins of images/k8s/coredns/main.go.txt
# (a kubeadm cluster's, without the cloud backends whose SDKs were most of the build), cached by
# tag, plugin list and alignment, and prints the binary's path.
coredns_binary() {
  local tag=$1 src=$recipes/k8s/coredns/main.go.txt
  module_binary "coredns-$tag-$(sha_of "$src" | cut -c1-12)-$(k8s_alignment)" . \
    "-X github.com/coredns/coredns/coremain.GitCommit=$tag" coredns_module "$tag" "$src"
}
coredns_module() {
  cp "$2" main.go && go mod init capstan.dev/coredns && go get "github.com/coredns/coredns@$1"
}

# flanneld_binary builds flanneld from a copy of its module without the UDP backend, the one
# part of it written with cgo: flannel's documentation keeps UDP for debugging only (our
# manifests use vxlan), and without cgo flanneld shares the Kubernetes build's compiled packages.
flanneld_binary() {
  module_binary "flanneld-$flannel_version-noudp-$(k8s_alignment)" . \
    "-X github.com/flannel-io/flannel/pkg/version.Version=$flannel_version" flannel_module
}
flannel_module() {
  local dir
  dir=$(go mod download -json "github.com/flannel-io/flannel@$flannel_version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  [ -n "$dir" ] && cp -r "$dir"/. . && chmod -R u+w . || return 1
  sed -i '\#"github.com/flannel-io/flannel/pkg/backend/udp"#d' main.go
  ! grep -q 'backend/udp"' main.go
}

# image REF DOCKERFILE HASH-PARTS... builds REF from the prepared context $ctx unless cached.
image() {
  local ref=$1 dockerfile=$2
  shift 2
  local hash
  hash=$(hash_strings "$ref" "$(hash_files "$dockerfile")" "$@")
  reuse_image "$ref" "$hash" || build_image "$ref" "$hash" "$dockerfile" "$ctx" --build-arg BASE=capstan/rootfs:slim
}

# static_image REF BINARY: FROM scratch with BINARY in /usr/local/bin.
static_image() {
  new_context
  mkdir -p "$ctx/rootfs/usr/local/bin"
  link "$2" "$ctx/rootfs/usr/local/bin"
  image "$1" "$recipes/k8s/static.Dockerfile" "$(sha_of "$2")"
}

mapfile -t wanted < <("$bin/kubeadm" config images list --kubernetes-version "$version")
[ ${#wanted[@]} -gt 0 ] || die "kubeadm config images list printed nothing"
refs=()
for ref in "${wanted[@]}"; do
  name=${ref%:*}
  tag=${ref##*:}
  case $name in
    registry.k8s.io/kube-apiserver | registry.k8s.io/kube-controller-manager | registry.k8s.io/kube-scheduler)
      static_image "$ref" "$bin/${name##*/}"
      ;;
    registry.k8s.io/etcd)
      etcd_version=$("$bin/etcd" --version | awk '/^etcd Version:/ {print $3}')
      [ "$etcd_version" = "${tag%-*}" ] || die "kubeadm wants etcd $tag but $bin/etcd is $etcd_version"
      static_image "$ref" "$bin/etcd"
      ;;
    registry.k8s.io/kube-proxy)
      new_context
      link "$bin/kube-proxy" "$ctx"
      image "$ref" "$recipes/k8s/kube-proxy.Dockerfile" "$(sha_of "$bin/kube-proxy")" "$slim_inputs"
      ;;
    registry.k8s.io/pause)
      src_hash=$(hash_files "$recipes/pause")
      pause=$images_cache/bin/pause-${src_hash:0:16}
      if [ ! -x "$pause" ]; then
        log "building pause"
        mkdir -p "$images_cache/bin"
        (cd "$root/infrastructure-docker" && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$pause.tmp" ./images/pause)
        mv "$pause.tmp" "$pause"
      fi
      new_context
      link "$pause" "$ctx" pause
      image "$ref" "$recipes/k8s/pause.Dockerfile" "$(sha_of "$pause")"
      ;;
    registry.k8s.io/coredns/coredns)
      coredns=$(coredns_binary "$tag")
      new_context
      link "$coredns" "$ctx" coredns
      image "$ref" "$recipes/k8s/coredns.Dockerfile" "$(sha_of "$coredns")"
      ;;
    *) die "kubeadm wants $ref and there is no recipe for it" ;;
  esac
  refs+=("$ref")
done

flanneld=$(flanneld_binary)
cni_plugin=$(cni_plugin_binary)
new_context
link "$flanneld" "$ctx" flanneld
link "$cni_plugin" "$ctx" flannel
image "$flannel_ref" "$recipes/flannel/Dockerfile" "$(sha_of "$flanneld")" "$(sha_of "$cni_plugin")" "$slim_inputs"
refs+=("$flannel_ref")

remove_superseded
printf '%s\n' "${refs[@]}"
