#!/usr/bin/env bash
# Builds the cluster load-balancer image capstan/haproxy:<Debian haproxy version> (also tagged
# capstan/haproxy:latest) without pulling anything: capstan/rootfs:lb (debootstrap of Debian
# bookworm + haproxy) plus infrastructure-docker/images/lb. Prints the versioned reference.
# Usage: hack/images/lb-image.sh
# Cached like every Capstan image: io.capstan.inputs=<sha256 of the inputs>.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

need_engine
bash "$scripts/rootfs.sh" lb
base_inputs=$(inputs_of capstan/rootfs:lb)
haproxy_version=$(docker run --rm --network none --entrypoint dpkg-query capstan/rootfs:lb -W -f '${Version}' haproxy)
# Docker tags allow [A-Za-z0-9_.-]: Debian versions may hold '+', '~' or ':'.
tag=$(echo "$haproxy_version" | tr '+~:' '___')
ref=capstan/haproxy:$tag

hash=$(hash_strings "$base_inputs" "$(hash_files "$recipes/lb")")
if ! reuse_image "$ref" "$hash"; then
  new_context
  cp "$recipes/lb/haproxy.cfg" "$ctx/"
  build_image "$ref" "$hash" "$recipes/lb/Dockerfile" "$ctx" --build-arg BASE=capstan/rootfs:lb
fi
docker tag "$ref" capstan/haproxy:latest
remove_superseded
echo "$ref"
