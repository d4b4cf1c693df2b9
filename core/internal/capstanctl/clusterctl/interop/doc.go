// Package interop runs upstream's clusterctl (built from sigs.k8s.io/cluster-api by
// hack/clusterctl/build.sh into the cache, never imported) against a real kube-apiserver of its
// own (envtest), with `make release`'s local repository as its configuration: the proof that
// clusterctl installs Capstan's release, reads the inventory capstanctl init writes, describes
// a Capstan Cluster, moves it to a second API server and through a directory, and upgrades the
// release to a newer one. Its tests carry the build tag clusterctl and run under make
// test-clusterctl, which builds the binary first (3.5 CPU-minutes cold, too much for make
// test). It holds tests only.
package interop
