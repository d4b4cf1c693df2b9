// Package repository reads the providers `capstanctl init` installs besides Capstan's embedded
// ones, from the same files upstream clusterctl reads: its configuration file (clusterctl.yaml,
// or capstanctl.yaml: the providers list and the variables) and clusterctl-format local
// repositories ({basepath}/{provider-label}/{version}/{components file}, metadata.yaml beside
// the components). It resolves a version ("latest" is the highest semantic version directory)
// and refuses a release whose metadata.yaml does not say it implements the core's contract
// (v1beta2), because Capstan's core serves that contract alone.
//
// Only local repositories are read: capstanctl never reaches the network, so a provider whose
// url is an https:// release is refused with what to do instead. The package reads files only;
// it never talks to a cluster and never processes the components (package providercomponents
// does).
package repository
