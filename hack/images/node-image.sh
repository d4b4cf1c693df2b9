#!/usr/bin/env bash
# Builds the Capstan node image capstan/node:<kubernetes-version> without pulling anything:
#   1. capstan/rootfs:node (rootfs.sh: debootstrap of Debian bookworm + containerd, systemd, ...);
#   2. capstan/node-unbaked:<version>: infrastructure-docker/images/node/Dockerfile on top of it,
#      with the kubelet/kubeadm/kubectl from hack/k8s/build.sh, crictl and the flannel CNI plugin
#      (both from the Go module proxy);
#   3. the images kubeadm expects plus flannel (k8s-images.sh), imported into the image's
#      /var/lib/containerd by node/bake.sh in a throwaway container and `docker commit`ed.
# Usage: hack/images/node-image.sh <kubernetes-version>
# Cached: each image carries io.capstan.inputs=<sha256 of its inputs>; a step whose inputs did
# not change reuses the image that has that label.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

version=${1:?usage: node-image.sh <kubernetes-version, e.g. v1.37.2>}
ref=capstan/node:$version
unbaked=capstan/node-unbaked:$version
need_engine
start=$SECONDS

mapfile -t images < <(bash "$scripts/k8s-images.sh" "$version")
[ ${#images[@]} -gt 0 ] || die "k8s-images.sh built no image"
bash "$scripts/rootfs.sh" node

bin=$cache/k8s/$version/bin
cni_plugin=$(cni_plugin_binary)
crictl=$(module_binary "crictl-$crictl_version-$(k8s_alignment)" sigs.k8s.io/cri-tools/cmd/crictl \
  "-X sigs.k8s.io/cri-tools/pkg/version.Version=$crictl_version" tool_module "sigs.k8s.io/cri-tools/cmd/crictl@$crictl_version")
unbaked_hash=$(hash_strings "$(inputs_of capstan/rootfs:node)" \
  "$(hash_files "$recipes/node/Dockerfile" "$recipes/node/files")" \
  "$(sha_of "$bin/kubelet")" "$(sha_of "$bin/kubeadm")" "$(sha_of "$bin/kubectl")" "$(sha_of "$cni_plugin")" "$(sha_of "$crictl")")
if ! reuse_image "$unbaked" "$unbaked_hash"; then
  new_context
  cp -a "$recipes/node/files" "$ctx/files"
  mkdir -p "$ctx/bin" "$ctx/cni"
  for b in kubelet kubeadm kubectl; do link "$bin/$b" "$ctx/bin"; done
  link "$cni_plugin" "$ctx/cni" flannel
  link "$crictl" "$ctx/bin" crictl
  build_image "$unbaked" "$unbaked_hash" "$recipes/node/Dockerfile" "$ctx" --build-arg BASE=capstan/rootfs:node
fi

image_inputs=()
for image in "${images[@]}"; do image_inputs+=("$image=$(inputs_of "$image")"); done
hash=$(hash_strings "$unbaked_hash" "$(hash_files "$recipes/node/bake.sh" "$scripts/node-image.sh")" "${image_inputs[@]}")
if reuse_image "$ref" "$hash"; then exit 0; fi

log "$ref: baking ${#images[@]} images into /var/lib/containerd"
bake=capstan-bake-$$
cleanup() {
  docker rm -f -v "$bake" >/dev/null 2>&1 || true
  cleanup_contexts
}
trap cleanup EXIT
# --mount (not -v) so the volume is not recorded in the committed image's configuration; the
# script comes as an argument so that no file of it ends up in the image.
docker create -i --name "$bake" --network none \
  --cap-add ALL --cap-drop SYS_RESOURCE --security-opt seccomp=unconfined \
  --mount type=volume,dst=/tmp/bake --entrypoint /bin/bash \
  "$unbaked" -c "$(cat "$recipes/node/bake.sh")" bake.sh >/dev/null
docker save "${images[@]}" | docker start -ai "$bake" >&2
supersede "$ref"
docker commit \
  --change "LABEL $inputs_label=$hash" \
  --change 'ENTRYPOINT ["/usr/local/bin/entrypoint"]' \
  --change 'CMD []' \
  "$bake" "$ref" >/dev/null
log "$ref: built in $((SECONDS - start))s ($(docker image inspect -f '{{.Size}}' "$ref" | numfmt --to=iec))"
remove_superseded
