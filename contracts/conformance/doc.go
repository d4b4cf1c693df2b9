// Package conformance checks a third-party provider against the v1beta2 provider
// contract from inside the provider author's own envtest suite.
//
// The author installs their CRDs in an API server (capstan.dev/contracts/envtest),
// starts their controller against it, and calls one function per kind:
//
//	func TestConformance_FooMachine(t *testing.T) {
//		conformance.InfrastructureMachine(t, conformance.Input{
//			Client:    env.Client,
//			GVK:       infrav1.GroupVersion.WithKind("FooMachine"),
//			NewObject: func(ns, name string) *unstructured.Unstructured { ... },
//		})
//	}
//
// Every contract rule is a subtest named by a Check constant (CRD, Schema,
// WaitsForOwner, Provisioned, ...), failing with a message that names the rule and
// the field path. The core controllers do not run in the author's suite, so the kit
// plays them: it creates the Cluster, the Machine with its bootstrap data Secret,
// and sets owner references and the cluster-name label as the core would.
//
// Behaviour over time is observed through watches with deadlines: "not provisioned
// without an owner" and "nothing changes while paused" are asserted over a bounded
// window of watch events, never by sleeping and reading once.
//
// The package reads contract fields only through capstan.dev/contracts/contract and
// plays the core through capstan.dev/contracts/external, so it judges providers by
// exactly what the core reads. It must not import any provider module, and it never
// writes the object under test beyond what the core writes (owner references,
// labels, the paused annotation, deletion).
package conformance
