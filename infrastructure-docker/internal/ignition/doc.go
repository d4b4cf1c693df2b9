// Package ignition reads Ignition bootstrap data (a bootstrap data Secret with format
// "ignition", as upstream's kubeadm bootstrap provider writes it behind its
// KubeadmBootstrapFormatIgnition feature gate) into the actions the Docker provider executes in a
// node container, the same *cloudinit.WriteFile and *cloudinit.RunCommand actions a cloud-config
// document gives, so that the rest of the bootstrap (staging, the run-once protocol, the kubeadm
// amendments) is shared.
//
// What it runs is what upstream's Docker provider (CAPD) runs of an Ignition config, a node
// container having no disks, network or users of its own to provision: storage.files (inline
// "data:" URL contents, optionally gzip-compressed, with mode, owner and append) and
// systemd.units (unit files and drop-ins written to /etc/systemd/system, then systemd reloaded,
// masked units masked and enabled units enabled and started in document order, as booting would
// start them: upstream's kubeadm.service runs /etc/kubeadm.sh this way). Spec versions 2.x and
// 3.x are read; other sections (passwd, networkd, storage disks, filesystems, directories, links)
// are returned as Ignored with the reason. File contents fetched from a URL other than "data:"
// are an error naming the field, as is any malformed value: a node is never half provisioned from
// data the provider misread.
//
// An enabled unit runs under systemd, not under the provider's bootstrap runner: the runner
// waits for `systemctl enable --now` (a oneshot unit such as kubeadm.service fails it when it
// fails), but the bootstrap timeout stops only the wait, and the unit's output is in its journal,
// not in the condition's output tail.
//
// It is pure: bytes in, actions out, like internal/cloudinit, whose action types it shares; it
// reads no Secret and talks to no container.
package ignition
