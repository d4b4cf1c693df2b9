# An image of one static binary, for kube-apiserver, kube-controller-manager, kube-scheduler
# and etcd: kubeadm's static Pod manifests name the command (found through PATH), and these
# programs need no shell, libraries or certificates from the image. The build context holds
# the binary at usr/local/bin/<name>.
FROM scratch
COPY rootfs/ /
ENV PATH=/usr/local/bin:/usr/bin:/bin
