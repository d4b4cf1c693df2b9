#!/usr/bin/env bash
# Builds the conformance kit's example infrastructure provider as a third party would ship it:
# one manager image per release, capstan/example-manager:<version> for each version of
# contracts/conformance/example/release (v0.1.0, v0.2.0), each the static binary of
# contracts/conformance/example/cmd/example-manager built with -X main.version=<version>, on
# the same FROM-scratch Dockerfile as Capstan's managers. Nothing is pulled; cached by input
# hash like every Capstan image. The e2e loads both into a management cluster's nodes and
# installs and upgrades them with capstanctl.
# Usage: hack/images/example-images.sh [VERSION ...]   (default: v0.1.0 v0.2.0)
set -euo pipefail
source "$(dirname "$0")/lib.sh"

versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(v0.1.0 v0.2.0)
need_engine
ca=/etc/ssl/certs/ca-certificates.crt
[ -s "$ca" ] || die "$ca is missing: make images installs Debian's ca-certificates"

mkdir -p "$images_cache/managers"
for v in "${versions[@]}"; do
  ref=capstan/example-manager:$v
  bin=$images_cache/managers/example-manager-$v
  log "$ref: go build (static)"
  (cd "$root" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$v" -o "$bin.tmp" \
    ./contracts/conformance/example/cmd/example-manager) || die "building the example manager $v failed"
  mv "$bin.tmp" "$bin"
  hash=$(hash_strings "$(sha_of "$bin")" "$(sha_of "$ca")" "$(hash_files "$scripts/manager")")
  if ! reuse_image "$ref" "$hash"; then
    new_context
    link "$bin" "$ctx" manager
    cp "$ca" "$ctx/ca-certificates.crt"
    build_image "$ref" "$hash" "$scripts/manager/Dockerfile" "$ctx"
  fi
  echo "$ref"
done
remove_superseded
