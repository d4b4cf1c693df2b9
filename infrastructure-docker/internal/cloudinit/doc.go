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
// Upstream's kubeadm bootstrap provider starts its documents with "## template: jinja" before
// "#cloud-config": cloud-init then renders the document as a Jinja template of its instance data
// before reading it. A node container has no instance data of its own, so the caller passes
// what it means there (InstanceData: the container's name as hostname and instance ID) and the
// package renders {{ variable }} references to those variables (ds.meta_data.hostname,
// ds.meta_data.local_hostname, ds.meta_data.instance_id, v1.local_hostname, v1.instance_id,
// local_hostname, instance_id). Every other variable, Jinja statement, comment or filter is an
// error naming the line, never an empty string; a document without that header is never
// rendered, so a literal "{{" in it stays.
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
