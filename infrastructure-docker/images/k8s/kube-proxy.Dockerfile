# kube-proxy programs the node's netfilter tables through the iptables binaries, so its image
# is the Debian base (capstan/rootfs:slim) plus the binary.
ARG BASE
FROM ${BASE}
COPY kube-proxy /usr/local/bin/kube-proxy
