// Package conversion holds what every provider needs to serve an older API version of its kinds
// next to the v1beta2 storage version, hub and spoke: the conversion-data annotation that keeps
// a conversion lossless in both directions, the reshaping rules that recur across kinds
// (object references, durations, intent booleans) and the lookup of the API version a contract
// reference is read at. The per-kind conversion functions live beside the spoke types (e.g.
// capstan.dev/contracts/api/core/v1beta1); the webhook that serves them lives in
// capstan.dev/contracts/conversionwebhook. The package owns no API types and starts nothing.
//
// The annotation cluster.x-k8s.io/conversion-data is upstream's, and as upstream it records only
// what the version an object is read at cannot express: on an object read at the old version,
// the v1beta2 data the old version has no field for (v1beta2-only fields, false or 0 rather than
// unset), so writing the old version back restores it. Upstream drops the old-version-only fields
// on the way up; Capstan keeps them instead, under the same key on the stored v1beta2 object (the
// kubeadm clusterName, a sub-second duration, a reference's uid), so that a v1beta1 client reads
// back exactly what it wrote. Each direction consumes the annotation it finds and writes the one
// the other side needs, so it never accumulates. What is recorded is a sparse document against
// what the object converts to with nothing recorded (sparse.go), so a large object (a
// KubeadmConfigTemplate with 200 KiB of files, applied client-side with its last-applied copy in
// another annotation) stays within the API server's 256 KiB limit on annotations; an object whose
// conversion loses nothing has no annotation at all.
package conversion
