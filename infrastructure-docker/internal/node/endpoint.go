package node

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

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

// dnatRule and masqueradeRule are the route's rules as the script writes them (iptables -C, -A).
func (e endpointRoute) dnatRule() string {
	return fmt.Sprintf("OUTPUT -d 127.0.0.1/32 -p tcp --dport %d -j DNAT --to-destination %s", e.port, e.target())
}

func (e endpointRoute) masqueradeRule() string {
	return fmt.Sprintf("POSTROUTING -s 127.0.0.1/32 -d %s/32 -p tcp --dport %d -j MASQUERADE", e.lbIP, e.lbPort)
}

// listedDNAT and listedMasquerade are the same rules as `iptables -S` lists them (with the
// implicit "-m tcp"): the form a node's rules are compared in.
func (e endpointRoute) listedDNAT() string {
	return dnatListedPrefix(e.port) + "--to-destination " + e.target()
}

func (e endpointRoute) listedMasquerade() string {
	return fmt.Sprintf("%s%s/32 -p tcp -m tcp --dport %d%s", masqueradeListedPrefix, e.lbIP, e.lbPort, masqueradeListedSuffix)
}

func (e endpointRoute) target() string { return net.JoinHostPort(e.lbIP, strconv.Itoa(e.lbPort)) }

// dnatListedPrefix starts the listed DNAT rule of the endpoint port, whatever its target: every
// such rule is the endpoint route's, current or from an earlier load-balancer address.
func dnatListedPrefix(port int) string {
	return fmt.Sprintf("-A OUTPUT -d 127.0.0.1/32 -p tcp -m tcp --dport %d -j DNAT ", port)
}

// A listed masquerade rule of the endpoint route starts and ends so, whatever the load
// balancer's address: nothing else masquerades the loopback source in POSTROUTING itself
// (kube-proxy and flannel jump to chains of their own).
const (
	masqueradeListedPrefix = "-A POSTROUTING -s 127.0.0.1/32 -d "
	masqueradeListedSuffix = " -j MASQUERADE"
)

// script converges the node's rules on the route: it first deletes the endpoint-route rules
// that point elsewhere (the load balancer was re-created at another address), then adds the
// missing ones (-C checks before -A appends). It is idempotent, so it runs at every boot and
// again whenever the load balancer moves.
func (e endpointRoute) script() string {
	dnat, masq := e.dnatRule(), e.masqueradeRule()
	return fmt.Sprintf(`#!/bin/sh
# Written by the Capstan Docker provider: the cluster endpoint 127.0.0.1:%d is the load balancer
# %s on the node network (see the provider's internal/node package, endpoint.go).
set -e
iptables -t nat -S OUTPUT | grep -F -e %s | grep -v -x -F -e %s | sed 's/^-A /-D /' |
  while read -r rule; do iptables -t nat $rule; done
iptables -t nat -S POSTROUTING | grep -F -e %s | grep -e %s | grep -v -x -F -e %s | sed 's/^-A /-D /' |
  while read -r rule; do iptables -t nat $rule; done
iptables -t nat -C %s 2>/dev/null || iptables -t nat -A %s
iptables -t nat -C %s 2>/dev/null || iptables -t nat -A %s
`, e.port, e.target(),
		shellQuote(dnatListedPrefix(e.port)), shellQuote(e.listedDNAT()),
		shellQuote(masqueradeListedPrefix), shellQuote(masqueradeListedSuffix+"$"), shellQuote(e.listedMasquerade()),
		dnat, dnat, masq, masq)
}

// appliedIn reports whether the node's listed nat rules (`iptables -t nat -S`) hold exactly the
// route's rules: its DNAT and masquerade, and no endpoint-route rule pointing elsewhere.
func (e endpointRoute) appliedIn(rules string) bool {
	var dnat, masq []string
	for _, line := range strings.Split(rules, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, dnatListedPrefix(e.port)):
			dnat = append(dnat, line)
		case strings.HasPrefix(line, masqueradeListedPrefix) && strings.HasSuffix(line, masqueradeListedSuffix):
			masq = append(masq, line)
		}
	}
	return slices.Equal(dnat, []string{e.listedDNAT()}) && slices.Equal(masq, []string{e.listedMasquerade()})
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

// errNoLoadBalancerAddress says that the DockerCluster has not published the load balancer's
// address on the node network yet.
var errNoLoadBalancerAddress = errors.New("the load balancer's address on the node network is unknown")

// endpointRouteFor is the endpoint route the Cluster's nodes need: nil when the Cluster's
// endpoint is not on loopback (it is reachable as it is). It wraps errNoLoadBalancerAddress when
// the DockerCluster has not published the load balancer's address.
func (p *Provisioner) endpointRouteFor(ctx context.Context, cluster *clusterv1.Cluster) (*endpointRoute, error) {
	ep := cluster.Spec.ControlPlaneEndpoint
	if ip := net.ParseIP(ep.Host); ep.Host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, nil
	}
	lbAddress, err := p.loadBalancerAddress(ctx, cluster)
	if err != nil {
		return nil, err
	}
	if lbAddress == "" {
		return nil, fmt.Errorf("the Cluster's endpoint %s:%d is on loopback, and %w (annotation %s of DockerCluster %s/%s)",
			ep.Host, ep.Port, errNoLoadBalancerAddress, infrav1.LoadBalancerAddressAnnotation, cluster.Namespace, cluster.Spec.InfrastructureRef.Name)
	}
	host, port, err := net.SplitHostPort(lbAddress)
	if err != nil {
		return nil, fmt.Errorf("the load balancer address %q: %w", lbAddress, err)
	}
	lbPort, err := strconv.Atoi(port)
	if err != nil {
		return nil, fmt.Errorf("the load balancer address %q: %w", lbAddress, err)
	}
	return &endpointRoute{port: int(ep.Port), lbIP: host, lbPort: lbPort}, nil
}

// routeEndpoint installs and runs the endpoint route in c when the Cluster's endpoint is on
// loopback, at bootstrap. Nothing is done for another endpoint: it is reachable as it is.
func (p *Provisioner) routeEndpoint(ctx context.Context, cluster *clusterv1.Cluster, c *docker.Container) error {
	route, err := p.endpointRouteFor(ctx, cluster)
	if err != nil || route == nil {
		return err
	}
	return p.installEndpointRoute(ctx, c, *route)
}

// installEndpointRoute writes the route's script and boot unit into c and runs the script. It
// serves the first installation and the re-pointing after the load balancer moved alike.
func (p *Provisioner) installEndpointRoute(ctx context.Context, c *docker.Container, route endpointRoute) error {
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
		return fmt.Errorf("routing the cluster endpoint to the load balancer %s: %s", route.target(), res)
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
// "" when the Cluster's infrastructure is not a DockerCluster or DevCluster, does not exist (yet)
// or has not published it.
func (p *Provisioner) loadBalancerAddress(ctx context.Context, cluster *clusterv1.Cluster) (string, error) {
	ref := cluster.Spec.InfrastructureRef
	var infra client.Object
	switch {
	case ref.APIGroup != infrav1.GroupVersion.Group || ref.Name == "":
		return "", nil
	case ref.Kind == "DockerCluster":
		infra = &infrav1.DockerCluster{}
	case ref.Kind == "DevCluster":
		infra = &infrav1.DevCluster{}
	default:
		return "", nil
	}
	if err := p.Client.Get(ctx, client.ObjectKey{Namespace: cluster.Namespace, Name: ref.Name}, infra); client.IgnoreNotFound(err) != nil {
		return "", fmt.Errorf("reading %s %s/%s: %w", ref.Kind, cluster.Namespace, ref.Name, err)
	}
	return infra.GetAnnotations()[infrav1.LoadBalancerAddressAnnotation], nil
}
