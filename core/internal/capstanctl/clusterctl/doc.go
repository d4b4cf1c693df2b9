// Package clusterctl maps Capstan's providers onto upstream clusterctl's provider contract
// (clusterctl.cluster.x-k8s.io/v1alpha3), so that upstream clusterctl recognises a Capstan
// installation and can install Capstan's release artifacts:
//
//   - the clusterctl providers Capstan's three modules make up (Providers): the
//     bootstrap-kubeadm module serves two, bootstrap-kubeadm and control-plane-kubeadm,
//     because its one manager runs both the KubeadmConfig and KubeadmControlPlane controllers;
//   - each provider's components file (Split), metadata.yaml (Metadata) and inventory entry
//     (Inventory), and clusterctl's own inventory CRD (InventoryCRD), written here from
//     upstream's field names, never imported.
//
// It is pure: it never talks to a cluster and never writes files (package release and
// capstanctl init do). It must not import upstream Cluster API modules.
package clusterctl
