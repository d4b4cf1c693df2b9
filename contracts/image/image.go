// Package image splits and joins container image references
// ([registry[:port]/]repository[:tag][@digest]): the one place the providers and the tools
// take a reference apart, so that a registry port is never read as a tag and a digest is
// treated the same everywhere. It does not validate: a reference the engine would refuse is
// split all the same.
package image

import "strings"

// Reference is an image reference in its parts.
type Reference struct {
	// Name is the registry and repository, e.g. "registry:5000/capstan/core".
	Name string
	// Tag follows the ":" of the last path element, without the colon; "" when none.
	Tag string
	// Digest follows the "@", without it, e.g. "sha256:0123..."; "" when none.
	Digest string
}

// Parse splits ref into its name, tag and digest.
func Parse(ref string) Reference {
	var r Reference
	if i := strings.Index(ref, "@"); i >= 0 {
		ref, r.Digest = ref[:i], ref[i+1:]
	}
	// A colon before the last "/" belongs to the registry's host:port, not to a tag.
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		ref, r.Tag = ref[:i], ref[i+1:]
	}
	r.Name = ref
	return r
}

// String joins the parts: name[:tag][@digest].
func (r Reference) String() string {
	s := r.Name
	if r.Tag != "" {
		s += ":" + r.Tag
	}
	if r.Digest != "" {
		s += "@" + r.Digest
	}
	return s
}
