package node

import (
	"context"
	"fmt"
	"net"
	"strconv"

	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/docker"
)

// routeEndpointSysctl lets the node's own network namespace route packets whose destination was
// 127.0.0.1 to another host once DNAT rewrote it. It is namespaced: set on the container at
// creation (docker run --sysctl), the host's value stays as it is.
const routeEndpointSysctl = "net.ipv4.conf.all.route_localnet"

// Files of the endpoint route in the node container.
const (
	endpointScriptPath = "/etc/capstan/endpoint-route.sh"
	endpointUnitPath   = "/etc/systemd/system/capstan-endpoint-route.service"
)

// endpointRoute is the DNAT that makes the cluster endpoint work inside a node.
//
// The DockerCluster's endpoint is 127.0.0.1:<published port>: what the management side (on the
// Docker host) reaches the load balancer at. Inside a node, 127.0.0.1 is the node itself. kubeadm
// writes the endpoint into every kubeconfig (admin, kubelet, controller-manager, join discovery)
// and into the API server certificate's SANs, so rather than rewriting the kubeadm documents the
// node sends what it addresses to 127.0.0.1:<port> to the load balancer's address on the node
// network, port 6443 (nat OUTPUT DNAT), and masquerades the loopback source that the reply could
// not come back to (nat POSTROUTING). Measured here: with route_localnet=1 in the node's network
// namespace, a TCP connection to 127.0.0.1:<port> in the node reaches the load balancer, and the
// host's route_localnet stays 0.
type endpointRoute struct {
	// port is the endpoint's port (the load balancer's published port).
	port int
	// lb is the load balancer's address on the node network.
	lbIP   string
	lbPort int
}

// script is idempotent (-C checks before -A appends), so it can run at every boot.
func (e endpointRoute) script() string {
	dnat := fmt.Sprintf("OUTPUT -d 127.0.0.1/32 -p tcp --dport %d -j DNAT --to-destination %s",
		e.port, net.JoinHostPort(e.lbIP, strconv.Itoa(e.lbPort)))
	masq := fmt.Sprintf("POSTROUTING -s 127.0.0.1/32 -d %s/32 -p tcp --dport %d -j MASQUERADE", e.lbIP, e.lbPort)
	return fmt.Sprintf(`#!/bin/sh
# Written by the Capstan Docker provider: the cluster endpoint 127.0.0.1:%d is the load balancer
# %s:%d on the node network (see the provider's dockermachine package).
set -e
iptables -t nat -C %s 2>/dev/null || iptables -t nat -A %s
iptables -t nat -C %s 2>/dev/null || iptables -t nat -A %s
`, e.port, e.lbIP, e.lbPort, dnat, dnat, masq, masq)
}

// unit re-applies the route at every start of the node container: iptables rules live in the
// container's network namespace, which a restart of the container replaces.
const endpointUnit = `[Unit]
Description=Capstan: route the cluster endpoint on 127.0.0.1 to the load balancer
After=network.target
Before=kubelet.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=` + endpointScriptPath + `

[Install]
WantedBy=multi-user.target
`

// routeEndpoint installs and runs the endpoint route in c when the Cluster's endpoint is on
// loopback. Nothing is done for another endpoint: it is reachable as it is.
func (p *Provisioner) routeEndpoint(ctx context.Context, cluster *clusterv1.Cluster, c *docker.Container) error {
	ep := cluster.Spec.ControlPlaneEndpoint
	if ip := net.ParseIP(ep.Host); ep.Host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil
	}
	lbAddress, err := p.loadBalancerAddress(ctx, cluster)
	if err != nil {
		return err
	}
	if lbAddress == "" {
		return fmt.Errorf("the Cluster's endpoint %s:%d is on loopback, and the load balancer's address on the node network is unknown "+
			"(annotation %s of the DockerCluster)", ep.Host, ep.Port, infrav1.LoadBalancerAddressAnnotation)
	}
	host, port, err := net.SplitHostPort(lbAddress)
	if err != nil {
		return fmt.Errorf("the load balancer address %q: %w", lbAddress, err)
	}
	lbPort, err := strconv.Atoi(port)
	if err != nil {
		return fmt.Errorf("the load balancer address %q: %w", lbAddress, err)
	}
	route := endpointRoute{port: int(ep.Port), lbIP: host, lbPort: lbPort}
	if err := p.Docker.WriteFile(ctx, c, docker.File{Path: endpointScriptPath, Content: []byte(route.script()), Mode: 0o755}); err != nil {
		return err
	}
	if err := p.Docker.WriteFile(ctx, c, docker.File{Path: endpointUnitPath, Content: []byte(endpointUnit), Mode: 0o644}); err != nil {
		return err
	}
	res, err := p.Docker.Exec(ctx, c, nil, endpointScriptPath)
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("routing the cluster endpoint to the load balancer: %s", res)
	}
	// Enabled for the next boots; systemd is the node image's PID 1.
	res, err = p.Docker.Exec(ctx, c, nil, "/bin/sh", "-c", "! command -v systemctl >/dev/null || systemctl enable capstan-endpoint-route.service")
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("enabling the endpoint route at boot: %s", res)
	}
	return nil
}

// loadBalancerAddress is the "<ip>:<port>" the DockerCluster controller published for nodes, or
// "" when the Cluster's infrastructure is not a DockerCluster or has not published it.
func (p *Provisioner) loadBalancerAddress(ctx context.Context, cluster *clusterv1.Cluster) (string, error) {
	ref := cluster.Spec.InfrastructureRef
	if ref.Kind != "DockerCluster" || ref.APIGroup != infrav1.GroupVersion.Group || ref.Name == "" {
		return "", nil
	}
	dc := &infrav1.DockerCluster{}
	if err := p.Client.Get(ctx, client.ObjectKey{Namespace: cluster.Namespace, Name: ref.Name}, dc); err != nil {
		return "", fmt.Errorf("reading DockerCluster %s/%s: %w", cluster.Namespace, ref.Name, err)
	}
	return dc.Annotations[infrav1.LoadBalancerAddressAnnotation], nil
}
