// Package example is a minimal reference provider for the v1beta2 contract and the
// proof that the conformance kit works: an infrastructure provider (ExampleCluster,
// ExampleMachine in infrastructure.example.capstan.dev, api/infrastructure) and a
// bootstrap provider (ExampleConfig in bootstrap.example.capstan.dev,
// api/bootstrap), their generated CRDs (config/crd/bases, `make generate`), and
// their reconcilers (controller). The package's tests run
// capstan.dev/contracts/conformance against them in envtest, and against broken
// variants to show that each check catches what it claims to.
//
// docs/provider-guide.md walks a provider author through it. Nothing in Capstan
// runs the example outside its tests.
package example
