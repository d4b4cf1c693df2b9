// Package mgmt runs Capstan's embedded default management cluster: etcd,
// kube-apiserver and (when built) a kube-controller-manager limited to garbage
// collection, namespace cleanup, ServiceAccount tokens and ClusterRole aggregation, as local processes on 127.0.0.1, from the
// binaries `make k8s-binaries` builds. State lives in one directory (by default
// .capstan/mgmt) so that stopping and starting again keeps every object.
//
// It owns only the processes it started, found through its pid files and checked
// against their executable before any signal is sent; it never touches other
// processes, and it never listens beyond loopback.
package mgmt
