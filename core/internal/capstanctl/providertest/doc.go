// Package providertest runs `capstanctl init --infrastructure example`, `capstanctl delete
// --provider` and `capstanctl upgrade plan|apply` end to end against a kube-apiserver of its
// own (envtest), installing providers from the clusterctl local repository under
// testdata/repository: the "example" infrastructure provider (the conformance kit's
// ExampleCluster CRD; v0.1.0, and v0.2.0 whose CRD adds the storage version v1alpha2 and whose
// Deployment runs a newer image) and providers that exist to be refused (no metadata.yaml, an
// older contract, cert-manager objects). Every refusal is checked to leave the cluster
// unchanged. It holds tests only.
package providertest
