// Package docscheck keeps documentation that describes the code complete: every
// condition reason the providers declare must be explained in
// docs/troubleshooting.md, every Event reason they record must be listed in its table
// of Events, and the document must not explain reasons that no longer exist.
package docscheck
