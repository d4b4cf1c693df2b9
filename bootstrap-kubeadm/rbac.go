package main

// The ClusterCache (contracts/remote) runs in this manager: it reads Clusters and,
// metadata-only then live, the <cluster>-kubeconfig Secrets.
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch

// The conversion webhook (contracts/conversionwebhook) points the provider's own CRDs at itself
// and turns their v1beta1 version on: patch on exactly those CRDs, nothing else.
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=patch,resourceNames=kubeadmconfigs.bootstrap.cluster.x-k8s.io;kubeadmconfigtemplates.bootstrap.cluster.x-k8s.io;kubeadmcontrolplanes.controlplane.cluster.x-k8s.io;kubeadmcontrolplanetemplates.controlplane.cluster.x-k8s.io
// The replicas behind the webhook Service share one CA and serving certificate through the
// Secret bootstrap-kubeadm-webhook-service-cert in the manager's namespace: read live by name, created by
// the first replica, rewritten when it rotates (the controllers' own Secret rules hold these
// verbs already).
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;create;update
