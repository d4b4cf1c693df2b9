#!/bin/bash
# Bakes container images into the node image. hack/images/node-image.sh runs this inside a
# throwaway container of the unbaked node image (with the node's capabilities and a Docker
# volume at /tmp/bake) and streams a `docker save` archive of the images on stdin. It imports them
# into a private containerd whose root is the volume (containerd's overlayfs snapshotter cannot
# work on Docker's overlay root), stops it cleanly, and copies the resulting store into the
# container's own /var/lib/containerd, which `docker commit` then makes part of the image.
# At run time /var is a fresh volume and Docker copies the image's /var into it on first use,
# so every node starts with the images already unpacked: no import at boot.
set -euo pipefail

root=/tmp/bake/containerd
state=/run/capstan-bake
mkdir -p "$root" "$state"
cat >"$state/config.toml" <<CONFIG
version = 2
root = "$root"
state = "$state/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$state/containerd.sock"
CONFIG

containerd --config "$state/config.toml" >"$state/containerd.log" 2>&1 &
pid=$!
ctr() { command ctr --address "$state/containerd.sock" --namespace k8s.io "$@"; }
for _ in $(seq 1 100); do
  ctr version >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || { cat "$state/containerd.log" >&2; exit 1; }
  sleep 0.1
done
ctr images import - >&2
ctr images ls -q >&2
# Once unpacked, a layer blob (the uncompressed tar, labelled containerd.io/uncompressed) is only
# needed to unpack it again or to push it: the CRI creates containers from the snapshots and reads
# only the manifests and configs. Dropping the layer blobs halves what Docker copies into every
# node's /var volume at container start. (imagestest runs kubeadm init on the result.)
layers=$(ctr content ls | awk '/containerd.io\/uncompressed=/ {print $1}')
[ -z "$layers" ] || ctr content rm $layers >/dev/null
# Removing content only forgets it; deleting a lease with --sync runs the garbage collector,
# which deletes the files.
lease=$(ctr leases create | awk '{print $1}')
ctr leases delete --sync "$lease" >/dev/null

kill -TERM "$pid"
wait "$pid" || true

# A character device 0/0 is how overlayfs (and so `docker commit`) spells a deleted file:
# one inside the store would silently vanish from the image. The images baked here have no
# whiteouts, so any such file means a recipe changed in a way this step does not support.
# (Other device files, such as the /dev nodes debootstrap leaves in the Debian bases, are fine.)
whiteouts=$(find "$root" -type c -exec stat -c '%t:%T %n' {} + | awk '$1 == "0:0" {print $2}')
if [ -n "$whiteouts" ]; then
  echo "bake.sh: the image store holds overlay whiteouts (0/0 character devices); cannot bake:" >&2
  echo "$whiteouts" | head >&2
  exit 1
fi
rm -rf /var/lib/containerd
mkdir -p /var/lib/containerd
cp -a "$root/." /var/lib/containerd/
rm -rf "$state"
