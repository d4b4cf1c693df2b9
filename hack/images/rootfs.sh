#!/usr/bin/env bash
# Builds the Debian base image capstan/rootfs:<set> from Debian's packages alone:
# debootstrap (minbase) of bookworm plus the packages listed in
# infrastructure-docker/images/rootfs/<set>.packages, updated from the security suite,
# packed as a tarball and `docker import`ed. Nothing is pulled from a registry.
# Usage: hack/images/rootfs.sh node|slim|lb
# Cache: the tarball lives in $CAPSTAN_CACHE/images/rootfs/<set>-<hash>.tar and the image
# carries io.capstan.inputs=<hash>; the hash covers the package list and this script.
# The Debian mirrors are the ones this machine's apt uses (override with DEBIAN_MIRROR and
# DEBIAN_SECURITY_MIRROR).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

set_name=${1:?usage: rootfs.sh <set>}
suite=bookworm
packages_file=$recipes/rootfs/$set_name.packages
[ -f "$packages_file" ] || die "no package list $packages_file"
need_engine

hash=$(hash_strings "$suite" "$(hash_files "$packages_file" "$scripts/rootfs.sh")")
ref=capstan/rootfs:$set_name
if reuse_image "$ref" "$hash"; then exit 0; fi

tarball=$images_cache/rootfs/$set_name-${hash:0:16}.tar
if [ ! -s "$tarball" ]; then
  [ "$(id -u)" = 0 ] || die "debootstrap needs root"
  if ! command -v debootstrap >/dev/null; then
    log "installing debootstrap"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  fi

  # apt_uri SUITE prints the URIs this machine's apt configuration uses for SUITE
  # (deb822 .sources stanzas first, then one-line .list entries).
  apt_uri() {
    local f
    for f in /etc/apt/sources.list.d/*.sources; do
      [ -f "$f" ] || continue
      awk -v s="$1" 'BEGIN { RS = ""; FS = "\n" } {
        uri = ""; ok = 0
        for (i = 1; i <= NF; i++) {
          if ($i ~ /^URIs:/) { split($i, a, /[ \t]+/); uri = a[2] }
          if ($i ~ /^Suites:/) { n = split($i, b, /[ \t]+/); for (j = 2; j <= n; j++) if (b[j] == s) ok = 1 }
        }
        if (ok && uri != "") print uri
      }' "$f"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
      [ -f "$f" ] || continue
      awk -v s="$1" '$1 == "deb" {
        i = 2; if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
        if ($(i + 1) == s) print $i
      }' "$f"
    done
  }
  mirror=${DEBIAN_MIRROR:-$(apt_uri "$suite" | sed -n 1p)}
  security=${DEBIAN_SECURITY_MIRROR:-$(apt_uri "$suite-security" | sed -n 1p)}
  [ -n "$mirror" ] || die "cannot find a Debian mirror for $suite in /etc/apt: set DEBIAN_MIRROR"

  include=$(grep -v '^[[:space:]]*#' "$packages_file" | xargs | tr ' ' ',')
  mkdir -p "$images_cache/rootfs" "$images_cache/debs"
  target=$(mktemp -d "$images_cache/rootfs/.build-$set_name.XXXXXX")
  cleanup() {
    umount "$target/proc" 2>/dev/null || true
    rm -rf "$target" "$target.log"
    cleanup_contexts
  }
  trap cleanup EXIT

  log "rootfs $set_name: debootstrap $suite minbase + $include"
  debootstrap --variant=minbase --include="$include" --cache-dir="$images_cache/debs" \
    "$suite" "$target" "$mirror" >"$target.log" 2>&1 || { tail -30 "$target.log" >&2; die "debootstrap failed"; }
  rm -f "$target.log"

  {
    echo "deb $mirror $suite main"
    echo "deb $mirror $suite-updates main"
    [ -z "$security" ] || echo "deb $security $suite-security main"
  } >"$target/etc/apt/sources.list"
  mount -t proc proc "$target/proc"
  log "rootfs $set_name: applying $suite-updates and $suite-security"
  chroot "$target" /bin/sh -c 'export DEBIAN_FRONTEND=noninteractive
    apt="apt-get -y -q -o APT::Sandbox::User=root -o Dpkg::Options::=--force-confold"
    $apt update && $apt upgrade && apt-get clean' >"$target.log" 2>&1 ||
    { tail -30 "$target.log" >&2; die "apt-get upgrade in the rootfs failed"; }
  rm -f "$target.log"
  umount "$target/proc"

  # Smaller image, nothing host-specific: no package lists, docs, logs or machine identity
  # (systemd makes a fresh machine-id for each container when the file is empty).
  rm -rf "$target"/var/lib/apt/lists/* "$target"/var/cache/apt/*.bin "$target"/var/log/* \
    "$target"/usr/share/doc/* "$target"/usr/share/man/* "$target"/usr/share/info/* \
    "$target"/tmp/* "$target"/var/tmp/*
  : >"$target/etc/machine-id"
  rm -f "$target/var/lib/dbus/machine-id"
  : >"$target/etc/resolv.conf"
  : >"$target/etc/hostname"

  rm -f "$images_cache/rootfs/$set_name"-*.tar
  tar --numeric-owner --xattrs -C "$target" -cf "$tarball.tmp" .
  mv "$tarball.tmp" "$tarball"
  log "rootfs $set_name: $(du -h "$tarball" | cut -f1) tarball cached"
fi

log "$ref: importing (inputs ${hash:0:12})"
supersede "$ref"
docker import \
  --change "LABEL $inputs_label=$hash" \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["/bin/bash"]' \
  "$tarball" "$ref" >/dev/null
remove_superseded
