package main

// The ClusterCache (contracts/remote) runs in this manager: it reads Clusters and,
// metadata-only then live, the <cluster>-kubeconfig Secrets.
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch

// The conversion webhook (contracts/conversionwebhook) points the core's own CRDs at itself and
// turns their older versions on: patch on exactly those CRDs, nothing else.
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=patch,resourceNames=clusters.cluster.x-k8s.io;machines.cluster.x-k8s.io;machinesets.cluster.x-k8s.io;machinedeployments.cluster.x-k8s.io;machinehealthchecks.cluster.x-k8s.io;machinepools.cluster.x-k8s.io;machinedrainrules.cluster.x-k8s.io;clusterclasses.cluster.x-k8s.io;clusterresourcesets.addons.cluster.x-k8s.io;clusterresourcesetbindings.addons.cluster.x-k8s.io;ipaddressclaims.ipam.cluster.x-k8s.io;ipaddresses.ipam.cluster.x-k8s.io;extensionconfigs.runtime.cluster.x-k8s.io
// The replicas behind the webhook Service share one CA and serving certificate through the
// Secret cluster-api-webhook-service-cert in the manager's namespace: read live by name, created by
// the first replica, rewritten when it rotates (the controllers' own Secret rules hold these
// verbs already).
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;create;update
