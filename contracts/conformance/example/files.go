package example

import "embed"

// Config holds the provider's generated manifests (config/crd/bases: v1alpha1, the release
// v0.1.0 ships; config/crd/v1alpha2: both versions, stored at v1alpha2, v0.2.0's;
// config/rbac: the controllers' ClusterRole and the webhook certificate's Role), which the
// release package writes into a clusterctl repository.
//
//go:embed config
var Config embed.FS
