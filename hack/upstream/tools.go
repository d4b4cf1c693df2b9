//go:build tools

// Package tools pins upstream Cluster API's three managers (core, kubeadm bootstrap, kubeadm
// control plane) so that `go mod tidy` keeps their packages in the build list.
package tools

import (
	_ "sigs.k8s.io/cluster-api"
	_ "sigs.k8s.io/cluster-api/bootstrap/kubeadm"
	_ "sigs.k8s.io/cluster-api/controlplane/kubeadm"
)
