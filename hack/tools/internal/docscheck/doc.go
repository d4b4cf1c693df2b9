// Package docscheck keeps documentation that describes the code complete: every
// condition reason the providers declare must be explained in
// docs/troubleshooting.md, and the document must not explain reasons that no
// longer exist.
package docscheck
