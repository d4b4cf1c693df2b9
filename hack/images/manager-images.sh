#!/usr/bin/env bash
# Builds the three provider manager images without pulling anything: FROM scratch + the
# provider's statically linked binary (CGO_ENABLED=0 go build -trimpath) + the host's Debian
# /etc/ssl/certs/ca-certificates.crt + USER 65532. The image names are the ones each
# provider's config/manager/manager.yaml deploys (and tilt-provider.json names):
#   capstan/core-manager, capstan/bootstrap-kubeadm-manager, capstan/infrastructure-docker-manager
# Each is tagged with every tag in $TAGS (default: "dev" and $VERSION when set), and prints
# the references it tagged. Cached like every Capstan image: io.capstan.inputs=<sha256 of the
# binary, the CA bundle and the Dockerfile>, so an unchanged provider is only re-tagged.
# Usage: [VERSION=v0.1.0] [TAGS="dev v0.1.0"] [PROVIDERS="core ..."] hack/images/manager-images.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"

providers=${PROVIDERS:-core bootstrap-kubeadm infrastructure-docker}
if [ -z "${TAGS:-}" ]; then
  TAGS=dev
  # Docker tags allow [A-Za-z0-9_.-] (git describe may print '+' or '/').
  [ -z "${VERSION:-}" ] || [ "$VERSION" = dev ] || TAGS+=" $(echo "$VERSION" | tr -c 'A-Za-z0-9_.\n-' '_')"
fi

need_engine
ca=/etc/ssl/certs/ca-certificates.crt
if [ ! -s "$ca" ]; then
  log "installing Debian's ca-certificates for $ca"
  { apt-get update -qq && apt-get install -y -qq ca-certificates; } >&2 ||
    die "$ca is missing and installing ca-certificates failed (needs root): apt-get install ca-certificates"
fi

# image_of PROVIDER prints the image repository the provider's kustomize manager base deploys.
image_of() {
  local img
  img=$(sed -n 's/^ *image: *\([^: ]*\):.*$/\1/p' "$root/$1/config/manager/manager.yaml" | head -1)
  [ -n "$img" ] || die "no image in $1/config/manager/manager.yaml"
  echo "$img"
}

mkdir -p "$images_cache/managers"
for p in $providers; do
  [ -d "$root/$p" ] || die "no provider module $p"
  repo=$(image_of "$p")
  bin=$images_cache/managers/$p
  log "$p: go build (static)"
  (cd "$root" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$bin.tmp" "./$p") || die "building $p failed"
  mv "$bin.tmp" "$bin"
  hash=$(hash_strings "$(sha_of "$bin")" "$(sha_of "$ca")" "$(hash_files "$scripts/manager")")
  first=
  for tag in $TAGS; do
    ref=$repo:$tag
    if [ -z "$first" ]; then
      if ! reuse_image "$ref" "$hash"; then
        new_context
        link "$bin" "$ctx" manager
        cp "$ca" "$ctx/ca-certificates.crt"
        build_image "$ref" "$hash" "$scripts/manager/Dockerfile" "$ctx"
      fi
      first=$ref
    else
      docker tag "$first" "$ref"
    fi
    echo "$ref"
  done
done
remove_superseded
