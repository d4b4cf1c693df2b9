// Package inittest runs `capstanctl init` end to end against a real kube-apiserver of its own
// (envtest), apart from the cmd package's suite, whose tests expect a cluster holding only the
// core CRDs. No controller runs there: the tests write Deployment and Pod status as the
// deployment controller and the kubelet would, and the --dev test runs the real manager
// binaries, built into a temporary directory. It holds tests only.
package inittest
