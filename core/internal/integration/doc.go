// Package integration holds envtest suites that run all core controllers together
// against one real API server, for behaviour no single controller owns: a steady
// cluster writes nothing, a whole cluster is deleted in order.
package integration
