package main

// The ClusterCache (contracts/remote) runs in this manager: it reads Clusters and,
// metadata-only then live, the <cluster>-kubeconfig Secrets.
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch
