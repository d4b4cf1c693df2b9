# The pod sandbox image: infrastructure-docker/images/pause, a static binary. kubeadm and the
# node's containerd name it registry.k8s.io/pause:<tag>.
FROM scratch
COPY pause /pause
USER 65535:65535
ENTRYPOINT ["/pause"]
