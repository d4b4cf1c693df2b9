// Package release writes the example infrastructure provider as clusterctl writes a provider's
// release: a local repository `<dir>/infrastructure-example/<version>/` holding
// infrastructure-components.yaml, metadata.yaml and cluster-template.yaml, for the two releases
// the example has:
//
//   - v0.1.0 serves ExampleCluster, ExampleMachine and ExampleMachineTemplate at v1alpha1 and
//     runs the manager image capstan/example-manager:v0.1.0 without a webhook;
//   - v0.2.0 adds v1alpha2 as the storage version, serves v1alpha1 through the manager's CRD
//     conversion webhook (behind the Service example-webhook-service, with a certificate the
//     manager issues itself: contracts/conversionwebhook), and runs capstan/example-manager:v0.2.0.
//
// Both are what a third party would publish; capstanctl's and clusterctl's end-to-end tests
// install, upgrade, move and delete them (docs/providers.md).
package release
