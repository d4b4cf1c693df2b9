// Package cloudinit parses the "#cloud-config" bootstrap data a bootstrap provider wrote into the
// actions the Docker provider executes in a node container: files to write (content decoded,
// mode and owner parsed) and commands to run. A node container has no cloud-init: the provider
// plays its part.
//
// It is pure: bytes in, actions out; it reads no Secret and talks to no container. It must not
// import other providers; bootstrap-kubeadm/internal/cloudinit renders the same documents, so the
// YAML field names (write_files: path, owner, permissions, encoding, append, content; runcmd,
// bootcmd, users) match that renderer's, but the two packages stay separate: one renders, one parses.
//
// Semantics follow cloud-init, not the order of keys in the document: bootcmd entries first,
// then every write_files entry (cloud-init's init stage), then the users (created with groupadd,
// useradd and usermod commands, their sudo rules written to /etc/sudoers.d/90-cloud-init-users,
// their ssh_authorized_keys appended to ~/.ssh/authorized_keys), then every runcmd entry (the
// final stage), each in document order. The kubeadm renderer emits its keys sorted, so runcmd
// comes first in its documents. disk_setup, fs_setup and mounts are skipped with a reason (a node
// container has no disks of its own); other modules, and keys without effect in a container
// (write_files defer, users uid), are returned in Result.Ignored with their line so that a caller
// can log them. Anything
// that cloud-init would refuse, or that the provider cannot honour (a file fetched from a source
// URI, an unknown encoding, content that does not decode), is an error naming the line.
package cloudinit
