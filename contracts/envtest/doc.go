// Package envtest is the test harness every Capstan module uses: it starts a real
// kube-apiserver and etcd (controller-runtime's envtest, pointed at the binaries that
// `make k8s-binaries` builds from source), installs the core CRDs embedded in
// capstan.dev/contracts plus the requesting module's CRDs, and offers helpers that
// wait on conditions with deadlines instead of sleeping.
//
// It owns process lifetime for tests: the control plane is stopped when the tests
// end, when the test binary is interrupted, and shortly before `go test -timeout`
// would kill the binary, so no kube-apiserver or etcd is orphaned.
package envtest
