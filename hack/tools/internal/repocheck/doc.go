// Package repocheck holds tests of the repository's own files that no compiler
// reads: tilt-provider.json must name paths and images that exist, and the pinned
// Kubernetes version must agree everywhere it is written down.
package repocheck
