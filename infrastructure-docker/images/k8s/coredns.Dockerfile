# CoreDNS built from its Go module (static). kubeadm's Deployment passes only arguments
# ("-conf /etc/coredns/Corefile"), so the binary is the entrypoint, as upstream.
FROM scratch
COPY coredns /coredns
EXPOSE 53 53/udp
ENTRYPOINT ["/coredns"]
