package main

// The ClusterCache (contracts/remote) runs in this manager: it reads Clusters and,
// metadata-only then live, the <cluster>-kubeconfig Secrets.
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch

// The conversion webhook (contracts/conversionwebhook) reads the provider's own CRDs served at
// v1beta1, points them at itself and turns their v1beta1 version on: get and patch on exactly
// those CRDs.
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get;patch,resourceNames=dockerclusters.infrastructure.cluster.x-k8s.io;dockerclustertemplates.infrastructure.cluster.x-k8s.io;dockermachines.infrastructure.cluster.x-k8s.io;dockermachinetemplates.infrastructure.cluster.x-k8s.io;dockermachinepools.infrastructure.cluster.x-k8s.io;dockermachinepooltemplates.infrastructure.cluster.x-k8s.io;devclusters.infrastructure.cluster.x-k8s.io;devclustertemplates.infrastructure.cluster.x-k8s.io;devmachines.infrastructure.cluster.x-k8s.io;devmachinetemplates.infrastructure.cluster.x-k8s.io
// The replicas behind the webhook Service share one CA and serving certificate through the
// Secret infrastructure-docker-webhook-service-cert in the manager's namespace: read live by
// name (the get above), created by the first replica, rewritten when it rotates. A Role in that
// namespace only: create cannot be narrowed to a name, update is.
// +kubebuilder:rbac:groups="",namespace=system,resources=secrets,verbs=create
// +kubebuilder:rbac:groups="",namespace=system,resources=secrets,verbs=update,resourceNames=infrastructure-docker-webhook-service-cert
