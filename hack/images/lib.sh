# Shared helpers for the image build scripts; sourced, never run.
#
# The cache: every image these scripts build carries the label io.capstan.inputs=<sha256 of
# its inputs> (recipe files, scripts, binaries, base image hashes). A build is skipped when
# an image with that label already exists; the wanted tag is then just pointed at it.
# Nothing is ever pulled: bases come from debootstrap tarballs (`docker import`) or scratch.

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
recipes=$root/infrastructure-docker/images
scripts=$root/hack/images
cache=${CAPSTAN_CACHE:-$HOME/.cache/capstan}
images_cache=$cache/images
inputs_label=io.capstan.inputs

# Versions of what is built from Go modules besides Kubernetes (which hack/k8s/go.mod pins,
# and whose coredns/etcd/pause tags come from `kubeadm config images list`).
flannel_version=v0.27.4
# The flannel CNI plugin comes from containernetworking/plugins v0.9.1, its last release before
# it moved to github.com/flannel-io/cni-plugin, which the module proxy reachable here refuses.
cni_plugins_version=v0.9.1
# Debian bookworm has no cri-tools package.
crictl_version=v1.37.0
# Docker's CLI here has no buildx plugin: the classic builder is what builds images.
export DOCKER_BUILDKIT=0

log() { echo "$(date +%T) $*" >&2; }
die() { echo "$(basename "$0"): $*" >&2; exit 1; }

need_engine() {
  docker version --format '{{.Server.Version}}' >/dev/null 2>&1 ||
    die "no Docker Engine answers: run 'make docker-up'"
}

# hash_files FILE|DIR... prints one sha256 over the names (relative to the repo) and contents.
hash_files() {
  local p f
  for p in "$@"; do
    if [ -d "$p" ]; then find "$p" -type f | LC_ALL=C sort; else echo "$p"; fi
  done | while read -r f; do
    printf '%s %s\n' "${f#"$root"/}" "$(sha256sum <"$f" | cut -d' ' -f1)"
  done | sha256sum | cut -d' ' -f1
}

# hash_strings STRING... prints one sha256 over the strings.
hash_strings() { printf '%s\n' "$@" | sha256sum | cut -d' ' -f1; }

# image_with_inputs HASH prints the ID of an image labelled with HASH, if any.
image_with_inputs() {
  docker images --no-trunc -q --filter "label=$inputs_label=$1" | head -1
}

# reuse_image REF HASH tags the cached image for HASH as REF; fails when there is none.
reuse_image() {
  local id
  id=$(image_with_inputs "$2")
  [ -n "$id" ] || return 1
  docker tag "$id" "$1"
  log "$1: cached (inputs ${2:0:12})"
}

# supersede REF remembers the image REF names now, before it is rebuilt; remove_superseded then
# deletes the remembered images that no tag names any more (failing quietly for an image a
# container still uses), so rebuilt images do not pile up as dangling gigabytes.
superseded=()
supersede() {
  local id
  id=$(docker image inspect -f '{{.Id}}' "$1" 2>/dev/null) || return 0
  superseded+=("$id")
}
remove_superseded() {
  local pass id
  for pass in 1 2; do # a parent goes only once its child is gone
    for id in "${superseded[@]}"; do
      [ -z "$(docker image inspect -f '{{join .RepoTags " "}}' "$id" 2>/dev/null)" ] || continue
      docker rmi "$id" >/dev/null 2>&1 || true
    done
  done
}

# build_image REF HASH DOCKERFILE CONTEXT [docker build args...] builds REF labelled with HASH.
build_image() {
  local ref=$1 hash=$2 dockerfile=$3 context=$4
  shift 4
  log "$ref: building (inputs ${hash:0:12})"
  supersede "$ref"
  local out
  if ! out=$(docker build -q --label "$inputs_label=$hash" -t "$ref" -f "$dockerfile" "$@" "$context" 2>&1); then
    echo "$out" >&2
    die "building $ref failed"
  fi
}

# new_context sets ctx to a new, empty build-context directory in the cache (the filesystem of
# the cached binaries, so they can be hard-linked instead of copied); removed on exit.
contexts=()
new_context() {
  mkdir -p "$images_cache/tmp"
  ctx=$(mktemp -d "$images_cache/tmp/ctx.XXXXXX")
  contexts+=("$ctx")
}
cleanup_contexts() { [ ${#contexts[@]} -eq 0 ] || rm -rf "${contexts[@]}"; }
trap cleanup_contexts EXIT

# link FILE DIR [NAME] hard-links (or copies) FILE into DIR, as NAME when given.
link() {
  local dst=$2/${3:-$(basename "$1")}
  ln -f "$1" "$dst" 2>/dev/null || cp -f "$1" "$dst"
}

# The Kubernetes build (hack/k8s/build.sh) compiles client-go, apimachinery, grpc, x/net, x/sys
# and the rest at the versions hack/k8s/go.mod selects, static and -trimpath. CoreDNS, flanneld
# and crictl need most of the same packages, at the versions of their own releases. Built in a
# throwaway module whose shared modules are raised to the Kubernetes build's versions, those
# packages are the same compile (same source, flags and paths), which the Go build cache then
# serves: cold, their compilation was most of the image step's CPU.

# k8s_build_modules prints "path version" for every module of the Kubernetes build (replacements
# resolved to the version they point at), sorted by path.
k8s_build_modules() {
  (cd "$root/hack/k8s" && GOWORK=off GOFLAGS=-mod=mod go list -m \
    -f '{{.Path}} {{with .Replace}}{{.Version}}{{else}}{{.Version}}{{end}}' all) | LC_ALL=C sort
}

# align_with_k8s_build, in a throwaway module's directory, requires every module the module shares
# with the Kubernetes build at that build's version and tidies. Minimal version selection never
# selects a module below what another requirement asks for, so a module the tool needs newer stays
# newer (and is simply not shared).
align_with_k8s_build() {
  local edits
  edits=$(LC_ALL=C join <(go list -m -f '{{.Path}}' all | LC_ALL=C sort) <(k8s_build_modules) |
    awk 'NF == 2 { print "-require=" $1 "@" $2 }')
  # shellcheck disable=SC2086 # one word per edit
  [ -z "$edits" ] || go mod edit $edits
  go mod tidy
}

# module_binary NAME PKG LDFLAGS SETUP... builds the main package PKG static and -trimpath in a
# throwaway module that the command SETUP... prepares in the current directory (GOWORK=off,
# GOFLAGS=-mod=mod and CGO_ENABLED=0 exported), aligned with the Kubernetes build, into
# $CAPSTAN_CACHE/images/bin/NAME (once: NAME carries the versions and recipe hashes the binary
# depends on), and prints its path.
module_binary() {
  local name=$1 pkg=$2 ldflags=$3 out tmp
  shift 3
  out=$images_cache/bin/$name
  if [ ! -x "$out" ]; then
    mkdir -p "$images_cache/bin"
    tmp=$(mktemp -d "$images_cache/bin/.build.XXXXXX")
    log "building $name ($pkg, modules aligned with the Kubernetes build)"
    if ! (cd "$tmp" && export GOWORK=off GOFLAGS=-mod=mod CGO_ENABLED=0 && "$@" >&2 &&
      align_with_k8s_build >&2 &&
      go build -trimpath -ldflags "-s -w $ldflags" -o "$tmp/$name.bin" "$pkg" >&2); then
      rm -rf "$tmp"
      die "building $name failed"
    fi
    mv "$tmp/$name.bin" "$out"
    rm -rf "$tmp"
  fi
  echo "$out"
}

# k8s_alignment prints a short hash of what module_binary aligns with, for binary names.
k8s_alignment() { sha_of "$root/hack/k8s/go.mod" | cut -c1-12; }

# tool_module MODULE/PKG@VERSION, a module_binary SETUP, makes a throwaway module that builds the
# main package MODULE/PKG at VERSION (a tool directive keeps it through go mod tidy).
tool_module() { go mod init capstan.dev/tool && go get -tool "$1"; }

# cni_plugin_binary prints the path of the flannel CNI plugin (built once).
cni_plugin_binary() {
  local pkg=github.com/containernetworking/plugins/plugins/meta/flannel
  module_binary "flannel-cni-plugin-$cni_plugins_version-$(k8s_alignment)" "$pkg" "" \
    tool_module "$pkg@$cni_plugins_version"
}

# inputs_of REF prints the io.capstan.inputs label of a local image.
inputs_of() { docker image inspect -f "{{index .Config.Labels \"$inputs_label\"}}" "$1"; }

# sha_of FILE prints the sha256 of FILE.
sha_of() { sha256sum <"$1" | cut -d' ' -f1; }
