package dockercluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/docker"
)

// nameTakenRetry is how often a DockerCluster whose load-balancer name is taken by a foreign
// container is looked at again: nothing we watch tells us the user removed it.
const nameTakenRetry = 30 * time.Second

// reconcileNormal runs the load balancer, publishes the endpoint and keeps the configuration.
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) (ctrl.Result, error) {
	s.reconciled = true
	dc := s.dockerCluster
	for _, step := range []func(context.Context, *scope) (ctrl.Result, error){
		r.ensureLoadBalancer,
		r.setEndpoint,
		r.updateLoadBalancerConfig,
	} {
		res, err := step(ctx, s)
		if err != nil {
			if s.lbProblem == nil {
				s.lbProblem = &problem{infrav1.DockerClusterLoadBalancerInternalErrorReason, err.Error()}
			}
			return res, err
		}
		if !res.IsZero() || s.lbProblem != nil {
			return res, nil
		}
	}
	dc.Status.FailureDomains = sortedFailureDomains(dc.Spec.FailureDomains)
	dc.Status.Initialization.Provisioned = ptr.To(true)
	return ctrl.Result{}, nil
}

// ensureLoadBalancer adopts the <cluster>-lb container when it is ours, starts it when it is
// stopped, and creates it when there is none. The name makes creation idempotent: two
// reconciles cannot both create it.
func (r *Reconciler) ensureLoadBalancer(ctx context.Context, s *scope) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	name := loadBalancerName(s.owner.Cluster)
	if err := r.Docker.EnsureNetworks(ctx); err != nil {
		return ctrl.Result{}, fmt.Errorf("ensuring the provider's Docker networks: %w", err)
	}
	lb, err := r.Docker.Inspect(ctx, name)
	switch {
	case errors.Is(err, docker.ErrNotOurs):
		s.lbProblem = &problem{infrav1.DockerClusterLoadBalancerNameTakenReason, fmt.Sprintf(
			"A container named %s exists that this provider did not create; remove or rename it so that the load balancer can be created", name)}
		return ctrl.Result{RequeueAfter: nameTakenRetry}, nil
	case errors.Is(err, docker.ErrNotFound):
		if lb, err = r.createLoadBalancer(ctx, s, name, ""); err != nil {
			return ctrl.Result{}, err
		}
	case err != nil:
		return ctrl.Result{}, err
	case lb.Owner != s.owner || lb.Role != docker.RoleLoadBalancer:
		s.lbProblem = &problem{infrav1.DockerClusterLoadBalancerNameTakenReason, fmt.Sprintf(
			"Container %s is the %s of Cluster %s/%s: two Clusters with the same name cannot share a Docker Engine", name, lb.Role, lb.Owner.Namespace, lb.Owner.Cluster)}
		return ctrl.Result{RequeueAfter: nameTakenRetry}, nil
	case !lb.Running:
		log.Info("Starting the stopped load balancer container", "container", name, "state", lb.State)
		if err := r.Docker.Start(ctx, lb); err != nil {
			return ctrl.Result{}, err
		}
		if lb, err = r.Docker.Inspect(ctx, name); err != nil {
			return ctrl.Result{}, err
		}
	}
	if want, got := endpointPort(s.dockerCluster), lb.HostPorts[apiServerPort]; want != 0 && got != 0 && got != want {
		// A port left to the engine's choice is chosen anew at every start of the container
		// (a haproxy crash, a node reboot, a daemon restart): the endpoint the Cluster and every
		// kubeconfig copied would lead nowhere. Only a new container can be published on the
		// endpoint's port again.
		log.Info("Re-creating the load balancer container: it is published on another port than the endpoint",
			"container", name, "published", got, "endpoint", want)
		if err := r.Docker.Remove(ctx, lb); err != nil {
			return ctrl.Result{}, err
		}
		why := fmt.Sprintf("; the old one was published on port %d instead of the endpoint's %d (it restarted)", got, want)
		if lb, err = r.createLoadBalancer(ctx, s, name, why); err != nil {
			return ctrl.Result{}, err
		}
	}
	if lb.HostPorts[apiServerPort] == 0 || lb.IPv4 == "" {
		return ctrl.Result{}, fmt.Errorf("load balancer container %s has no published port or no address on network %s", name, r.Docker.Plane())
	}
	s.lb = lb
	return ctrl.Result{}, nil
}

// createLoadBalancer creates and starts the load balancer container, on the endpoint's port
// once the endpoint is set; why, for the Event, says why an existing one was replaced.
func (r *Reconciler) createLoadBalancer(ctx context.Context, s *scope, name, why string) (*docker.Container, error) {
	image := loadBalancerImage(s.dockerCluster)
	ctrl.LoggerFrom(ctx).Info("Creating the load balancer container", "container", name, "image", image)
	lb, err := r.Docker.Create(ctx, docker.ContainerSpec{
		Name: name, Image: image, Owner: s.owner, Role: docker.RoleLoadBalancer,
		PublishTCP: apiServerPort, HostPort: endpointPort(s.dockerCluster),
	})
	if errors.Is(err, docker.ErrImageNotFound) {
		s.lbProblem = &problem{infrav1.DockerClusterLoadBalancerNotAvailableReason, fmt.Sprintf(
			"Image %s is not on the Docker Engine and is never pulled: build it (make lb-image) or fix spec.loadBalancer", image)}
	}
	r.recordCreate(s, name, image, why, err)
	s.lbCreated = err == nil
	return lb, err
}

// setEndpoint publishes where the API is reached. The management side (this controller, the
// core's ClusterCache, users' kubectl) runs on the Docker host and reaches the workload API
// through the port Docker published on 127.0.0.1; the node network is --internal, so its
// addresses are not meant for the host. Nodes cannot use 127.0.0.1 (it is themselves): they
// reach the load balancer at its address on the node network, recorded in an annotation for the
// machine controller.
func (r *Reconciler) setEndpoint(_ context.Context, s *scope) (ctrl.Result, error) {
	dc := s.dockerCluster
	if !dc.Spec.ControlPlaneEndpoint.IsValid() {
		dc.Spec.ControlPlaneEndpoint = clusterv1.APIEndpoint{Host: "127.0.0.1", Port: int32(s.lb.HostPorts[apiServerPort])}
	}
	if dc.Annotations == nil {
		dc.Annotations = map[string]string{}
	}
	dc.Annotations[infrav1.LoadBalancerAddressAnnotation] = net.JoinHostPort(s.lb.IPv4, strconv.Itoa(apiServerPort))
	return ctrl.Result{}, nil
}

// updateLoadBalancerConfig writes the configuration for the cluster's running control-plane
// containers and reloads HAProxy, when it differs from what the container holds. The new file
// is checked by haproxy -c before it replaces the old one, so a bad file never reaches the
// running load balancer.
func (r *Reconciler) updateLoadBalancerConfig(ctx context.Context, s *scope) (ctrl.Result, error) {
	nodes, err := r.Docker.List(ctx, docker.Selector{Owner: s.owner, Role: docker.RoleControlPlane})
	if err != nil {
		return ctrl.Result{}, err
	}
	s.backends = backendsOf(nodes)
	want := renderHAProxyConfig(s.owner, s.backends)
	current, err := r.Docker.ReadFile(ctx, s.lb, haproxyConfigPath)
	if err != nil {
		return ctrl.Result{}, err
	}
	if string(current) == want {
		return ctrl.Result{}, nil
	}
	ctrl.LoggerFrom(ctx).Info("Updating the load balancer configuration", "container", s.lb.Name, "backends", backendNames(s.backends))
	err = r.reloadLoadBalancer(ctx, s, want)
	r.recordReload(s, err)
	return ctrl.Result{}, err
}

// reloadLoadBalancer writes the configuration want into the load balancer, checked by haproxy
// -c first, and makes HAProxy reload it.
func (r *Reconciler) reloadLoadBalancer(ctx context.Context, s *scope, want string) error {
	next := haproxyConfigPath + ".next"
	if err := r.Docker.WriteFile(ctx, s.lb, docker.File{Path: next, Content: []byte(want), Mode: 0o644}); err != nil {
		return err
	}
	if res, err := r.Docker.Exec(ctx, s.lb, nil, "haproxy", "-c", "-q", "-f", next); err != nil {
		return err
	} else if res.ExitCode != 0 {
		return fmt.Errorf("haproxy refuses the generated configuration: %s", res)
	}
	if res, err := r.Docker.Exec(ctx, s.lb, nil, "mv", "-f", next, haproxyConfigPath); err != nil {
		return err
	} else if res.ExitCode != 0 {
		return fmt.Errorf("replacing %s: %s", haproxyConfigPath, res)
	}
	// haproxy -W reloads its workers on SIGHUP (images/lb README).
	if err := r.Docker.Signal(ctx, s.lb, "SIGHUP"); err != nil {
		return err
	}
	return nil
}

func backendNames(bs []backend) string {
	names := make([]string, 0, len(bs))
	for _, b := range bs {
		names = append(names, b.Name)
	}
	return strings.Join(names, ",")
}

// loadBalancerImage is spec.loadBalancer's image, <imageRepository>/haproxy:<imageTag>, with the
// defaults filled in.
func loadBalancerImage(dc *infrav1.DockerCluster) string {
	repo, tag := DefaultLoadBalancerImageRepository, DefaultLoadBalancerImageTag
	if lb := dc.Spec.LoadBalancer; lb.ImageRepository != "" {
		repo = lb.ImageRepository
	}
	if lb := dc.Spec.LoadBalancer; lb.ImageTag != "" {
		tag = lb.ImageTag
	}
	return repo + "/" + LoadBalancerImageName + ":" + tag
}

// endpointPort is the host port to publish on when (re)creating the load balancer: the port of
// an endpoint on 127.0.0.1 that is already set, so that a re-created load balancer keeps the
// endpoint the Cluster copied; 0 (Docker chooses) otherwise.
func endpointPort(dc *infrav1.DockerCluster) int {
	if ep := dc.Spec.ControlPlaneEndpoint; ep.Host == "127.0.0.1" {
		return int(ep.Port)
	}
	return 0
}

func sortedFailureDomains(in []clusterv1.FailureDomain) []clusterv1.FailureDomain {
	if len(in) == 0 {
		return nil
	}
	out := make([]clusterv1.FailureDomain, len(in))
	for i := range in {
		in[i].DeepCopyInto(&out[i])
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
