//go:build tools

// Package tools pins upstream's kube-state-metrics command so that `go mod tidy` keeps its
// packages in the build list.
package tools

import _ "k8s.io/kube-state-metrics/v2"
