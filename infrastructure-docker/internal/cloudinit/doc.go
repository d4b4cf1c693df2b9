// Package cloudinit parses the "#cloud-config" bootstrap data a bootstrap provider wrote into the
// actions the Docker provider executes in a node container: files to write (content decoded,
// mode and owner parsed) and commands to run. A node container has no cloud-init: the provider
// plays its part.
//
// It is pure: bytes in, actions out; it reads no Secret and talks to no container. It must not
// import other providers; bootstrap-kubeadm/internal/cloudinit renders the same documents, so the
// YAML field names (write_files: path, owner, permissions, encoding, append, content; runcmd)
// match that renderer's, but the two packages stay separate: one renders, one parses.
//
// Semantics follow cloud-init, not the order of keys in the document: every write_files entry
// (cloud-init's init stage) comes before every runcmd entry (the final stage), each in document
// order. The kubeadm renderer emits its keys sorted, so runcmd comes first in its documents.
// Modules other than write_files and runcmd, and write_files keys without effect in a container
// (defer), are returned in Result.Ignored with their line so that a caller can log them. Anything
// that cloud-init would refuse, or that the provider cannot honour (a file fetched from a source
// URI, an unknown encoding, content that does not decode), is an error naming the line.
package cloudinit
