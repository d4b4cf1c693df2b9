//go:build tools

// Package tools pins upstream's clusterctl command so that `go mod tidy` keeps its
// packages in the build list.
package tools

import _ "sigs.k8s.io/cluster-api/cmd/clusterctl"
