// Package example is a minimal reference provider for the v1beta2 contract and the
// proof that the conformance kit works: an infrastructure provider (ExampleCluster,
// ExampleMachine in infrastructure.example.capstan.dev, api/infrastructure) and a
// bootstrap provider (ExampleConfig in bootstrap.example.capstan.dev,
// api/bootstrap), their generated CRDs (config/crd/bases, `make generate`), and
// their reconcilers (controller). The package's tests run
// capstan.dev/contracts/conformance against them in envtest, and against broken
// variants to show that each check catches what it claims to.
//
// docs/provider-guide.md walks a provider author through it.
//
// The infrastructure half is also packaged as a deployable provider, for capstanctl's
// third-party-provider e2e: cmd/example-manager runs its two reconcilers (with the RBAC
// of config/rbac), released as v0.1.0 (v1alpha1 only: the infrastructure CRDs of
// config/crd/bases) and v0.2.0 (the CRDs of config/crd/v1alpha2: v1alpha2 stored,
// v1alpha1 served through the manager's conversion webhook, package conversion). The
// conformance tests still run against v1alpha1's CRDs alone, with no webhook.
package example
