package node

import (
	"context"
	"errors"
	"fmt"
	"strings"

	ctrl "sigs.k8s.io/controller-runtime"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/infrastructure-docker/internal/docker"
)

// SyncClusterAddresses keeps what each of nodes (running node containers of cluster) holds of
// its cluster's addresses up to date: /etc/hosts lists the cluster's other running containers
// (see hostsBlock), and an endpoint route installed at bootstrap points at the load balancer's
// current address (see endpointRoute). The controllers call it at every reconcile of a node,
// and Docker events of any container of the cluster re-trigger them (EventSource), so nodes
// converge when another node comes or goes, when the load balancer is re-created, after a
// restart of a container (Docker rewrites /etc/hosts) or of the controller. One exec per node
// reads both; nothing is written when both are right.
func (p *Provisioner) SyncClusterAddresses(ctx context.Context, cluster *clusterv1.Cluster, nodes ...*docker.Container) error {
	all, err := p.Docker.List(ctx, docker.Selector{Owner: docker.Owner{Namespace: cluster.Namespace, Cluster: cluster.Name}})
	if err != nil {
		return fmt.Errorf("listing the containers of Cluster %s/%s: %w", cluster.Namespace, cluster.Name, err)
	}
	route, err := p.endpointRouteFor(ctx, cluster)
	if errors.Is(err, errNoLoadBalancerAddress) {
		route, err = nil, nil // nothing to point at yet; the bootstrap waits for it
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, c := range nodes {
		if err := p.syncNodeAddresses(ctx, c, all, route); err != nil {
			errs = append(errs, fmt.Errorf("updating the cluster's addresses in node container %s: %w", c.Name, err))
		}
	}
	return errors.Join(errs...)
}

func (p *Provisioner) syncNodeAddresses(ctx context.Context, c *docker.Container, cluster []docker.Container, route *endpointRoute) error {
	log := ctrl.LoggerFrom(ctx).WithValues("container", c.Name)
	st, err := p.readAddresses(ctx, c, route != nil)
	if err != nil {
		return err
	}
	if want := withHostsBlock(st.hosts, hostsBlock(c.Name, cluster)); want != st.hosts {
		log.Info("Updating the cluster's containers in /etc/hosts")
		// In place: Docker bind-mounts /etc/hosts, so a renamed file would not replace it.
		res, err := p.Docker.Exec(ctx, c, strings.NewReader(want), "/bin/sh", "-c", `cat > "$1"`, "sh", hostsPath)
		if err != nil {
			return err
		}
		if res.ExitCode != 0 {
			return fmt.Errorf("writing %s: %s", hostsPath, res)
		}
	}
	if route != nil && st.routeInstalled && (st.routeScript != route.script() || !route.appliedIn(st.natRules)) {
		log.Info("Pointing the endpoint route at the load balancer's current address", "loadBalancer", route.target())
		if err := p.installEndpointRoute(ctx, c, *route); err != nil {
			return err
		}
	}
	return nil
}

// addressState is what a node container holds of its cluster's addresses.
type addressState struct {
	hosts string
	// routeInstalled is set when the bootstrap installed the endpoint route; routeScript and
	// natRules (`iptables -t nat -S`) are read then.
	routeInstalled bool
	routeScript    string
	natRules       string
}

// addressSection separates the parts of readAddresses' output; no hosts file, script or rule
// holds such a line.
const addressSection = "--- capstan: next section ---"

// readAddresses reads /etc/hosts and, when withRoute and the route is installed, its script
// and the nat rules, in one exec. Each file is followed by a newline and the separator line, so
// that splitting on "\n<separator>\n" gives each file back exactly, final newline or not.
func (p *Provisioner) readAddresses(ctx context.Context, c *docker.Container, withRoute bool) (addressState, error) {
	script := `cat "$1"; echo; echo "$3"
if [ "$4" = route ] && [ -f "$2" ]; then cat "$2"; echo; echo "$3"; iptables -t nat -S; fi`
	mode := "hosts"
	if withRoute {
		mode = "route"
	}
	res, err := p.Docker.Exec(ctx, c, nil, "/bin/sh", "-c", script, "sh", hostsPath, endpointScriptPath, addressSection, mode)
	if err != nil {
		return addressState{}, fmt.Errorf("reading %s: %w", hostsPath, err)
	}
	parts := strings.SplitN(res.Stdout, "\n"+addressSection+"\n", 3)
	if res.ExitCode != 0 || len(parts) < 2 {
		return addressState{}, fmt.Errorf("reading %s and the endpoint route: %s", hostsPath, res)
	}
	st := addressState{hosts: parts[0]}
	if len(parts) == 3 {
		st.routeInstalled, st.routeScript, st.natRules = true, parts[1], parts[2]
	}
	return st, nil
}
