package docker

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"
	"github.com/docker/go-connections/nat"
)

// The labels on every object this package creates.
const (
	// ProviderLabel says which provider owns an object; its value is ProviderName.
	ProviderLabel = "io.capstan.provider"
	// ProviderName is the value of ProviderLabel.
	ProviderName = "infrastructure-docker"
	// PlaneLabel names the management plane that owns an object (the Runtime's plane).
	PlaneLabel = "io.capstan.plane"
	// ClusterNamespaceLabel and ClusterLabel name the Cluster a container belongs to.
	ClusterNamespaceLabel = "io.capstan.cluster-namespace"
	ClusterLabel          = "io.capstan.cluster"
	// RoleLabel is the container's Role.
	RoleLabel = "io.capstan.role"
	// ContainerLabel, on a volume, names the container the volume was made for.
	ContainerLabel = "io.capstan.container"
)

// Role is what a container does for its cluster.
type Role string

// The roles of the provider's containers.
const (
	RoleControlPlane Role = "control-plane"
	RoleWorker       Role = "worker"
	RoleLoadBalancer Role = "load-balancer"
)

// ErrNotFound is returned (wrapped) when a container does not exist.
var ErrNotFound = errors.New("not found")

// ErrImageNotFound is returned (wrapped) when a container's image is not on the engine: the
// provider never pulls, images are built locally.
var ErrImageNotFound = errors.New("image not found on the Docker Engine")

// ErrNotOurs is returned (wrapped) when an object exists but lacks this plane's labels.
var ErrNotOurs = errors.New("not owned by this provider and management plane")

// Runtime talks to one Docker Engine on behalf of one management plane.
type Runtime struct {
	cli   *client.Client
	plane string
}

// New connects to the engine named by the environment (DOCKER_HOST, ...; the local socket by
// default), negotiating the API version. plane names the management plane: its networks are
// <plane> and <plane>-publish, and every object is labelled with it.
func New(plane string) (*Runtime, error) {
	if plane == "" {
		return nil, errors.New("docker runtime needs a management plane name")
	}
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, fmt.Errorf("creating the Docker client: %w", err)
	}
	// The client negotiates its API version on its first request, and some requests (Events)
	// read the version without the lock the negotiation writes it under: two first requests at
	// once (the Docker and the Dev controllers' event watches start together) are a data race.
	// Negotiating here, before the client is shared, leaves later requests only reading it. An
	// engine that does not answer yet is negotiated with on the first request, as before.
	ctx, cancel := context.WithTimeout(context.Background(), negotiateTimeout)
	defer cancel()
	cli.NegotiateAPIVersion(ctx)
	return &Runtime{cli: cli, plane: plane}, nil
}

// negotiateTimeout bounds New's API version negotiation with an engine that does not answer.
const negotiateTimeout = 10 * time.Second

// Plane is the management plane's name, also the name of its internal network.
func (r *Runtime) Plane() string { return r.plane }

// PublishNetwork is the name of the bridge that carries published ports.
func (r *Runtime) PublishNetwork() string { return r.plane + "-publish" }

// Close releases the client's connections.
func (r *Runtime) Close() error { return r.cli.Close() }

// Ping checks that the engine answers.
func (r *Runtime) Ping(ctx context.Context) error {
	if _, err := r.cli.Ping(ctx); err != nil {
		return fmt.Errorf("pinging the Docker Engine: %w", err)
	}
	return nil
}

// planeLabels are the labels every object of this plane carries.
func (r *Runtime) planeLabels() map[string]string {
	return map[string]string{ProviderLabel: ProviderName, PlaneLabel: r.plane}
}

func (r *Runtime) owns(labels map[string]string) bool {
	return labels[ProviderLabel] == ProviderName && labels[PlaneLabel] == r.plane
}

func (r *Runtime) filter(extra map[string]string) filters.Args {
	f := filters.NewArgs()
	for k, v := range r.planeLabels() {
		f.Add("label", k+"="+v)
	}
	for k, v := range extra {
		f.Add("label", k+"="+v)
	}
	return f
}

// EnsureNetworks creates the plane's internal network and its publish network when absent. An
// existing network of either name without our labels is an error: it is someone else's.
func (r *Runtime) EnsureNetworks(ctx context.Context) error {
	if err := r.ensureNetwork(ctx, r.plane, true); err != nil {
		return err
	}
	return r.ensureNetwork(ctx, r.PublishNetwork(), false)
}

func (r *Runtime) ensureNetwork(ctx context.Context, name string, internal bool) error {
	existing, err := r.cli.NetworkList(ctx, network.ListOptions{Filters: filters.NewArgs(filters.Arg("name", name))})
	if err != nil {
		return fmt.Errorf("listing networks: %w", err)
	}
	for _, n := range existing {
		if n.Name != name { // the name filter matches substrings
			continue
		}
		if !r.owns(n.Labels) {
			return fmt.Errorf("network %s: %w", name, ErrNotOurs)
		}
		return nil
	}
	opts := network.CreateOptions{Driver: "bridge", Internal: internal, Labels: r.planeLabels()}
	if !internal {
		// No NAT: the publish network carries ports published on 127.0.0.1 to the host, and
		// gives its containers no working route off the box.
		opts.Options = map[string]string{"com.docker.network.bridge.enable_ip_masquerade": "false"}
	}
	if _, err := r.cli.NetworkCreate(ctx, name, opts); err != nil {
		if strings.Contains(err.Error(), "already exists") {
			return nil // created concurrently by another reconcile
		}
		return fmt.Errorf("creating network %s: %w", name, err)
	}
	return nil
}

// Owner names the Cluster a container belongs to.
type Owner struct {
	Namespace, Cluster string
}

// ContainerSpec is a container to create.
type ContainerSpec struct {
	// Name is the container's name and hostname.
	Name  string
	Image string
	Owner Owner
	Role  Role
	// Node runs the container with the node flags and a named volume for /var.
	Node bool
	// Mounts are extra bind mounts (Source set) or anonymous volumes (Source empty).
	Mounts []Mount
	// PublishTCP is a container port to publish on 127.0.0.1; 0 publishes nothing.
	PublishTCP int
	// HostPort is the host port to publish PublishTCP on; 0 lets Docker choose a free one.
	HostPort int
	// Env are extra environment variables, "NAME=value".
	Env []string
	// Labels are extra labels; they cannot override ours.
	Labels map[string]string
	// Sysctls are namespaced kernel settings (net.*) of the container's own network namespace,
	// e.g. net.ipv4.conf.all.route_localnet; the engine refuses settings that are not
	// namespaced, so the host's values are never touched.
	Sysctls map[string]string
}

// Mount is a bind mount or, without Source, an anonymous volume.
type Mount struct {
	Source, Target string
	ReadOnly       bool
}

// Container is what Inspect and List report of one of our containers.
type Container struct {
	ID, Name, Image string
	Labels          map[string]string
	Owner           Owner
	Role            Role
	Running         bool
	// State is Docker's state word: created, running, exited, ...
	State string
	// Created is when the engine created the container (zero when it did not say).
	Created time.Time
	// IPv4 is the container's address on the plane's internal network ("" when not attached).
	IPv4 string
	// HostPorts maps a published container TCP port to its port on 127.0.0.1.
	HostPorts map[int]int
}

// Create creates and starts a container. On any failure it removes what it created, so a retry
// starts clean (e.g. after "port is already allocated").
func (r *Runtime) Create(ctx context.Context, spec ContainerSpec) (*Container, error) {
	if spec.Name == "" || spec.Image == "" || spec.Owner.Cluster == "" || spec.Role == "" {
		return nil, fmt.Errorf("container spec needs a name, an image, a cluster and a role: %+v", spec)
	}
	if len(spec.Name) > 63 {
		// The name is also the hostname, which the kernel limits to 63 bytes.
		return nil, fmt.Errorf("container name %s is longer than 63 characters", spec.Name)
	}
	labels := map[string]string{}
	for k, v := range spec.Labels {
		labels[k] = v
	}
	for k, v := range r.planeLabels() {
		labels[k] = v
	}
	labels[ClusterNamespaceLabel] = spec.Owner.Namespace
	labels[ClusterLabel] = spec.Owner.Cluster
	labels[RoleLabel] = string(spec.Role)

	cfg := &container.Config{Image: spec.Image, Hostname: spec.Name, Labels: labels, Env: spec.Env}
	host := &container.HostConfig{
		NetworkMode: container.NetworkMode(r.plane),
		// The engine's embedded DNS forwards unknown names to the host's resolver: nothing of
		// ours needs a name outside the network, so lookups stay on the box.
		DNS:           []string{"127.0.0.1"},
		RestartPolicy: container.RestartPolicy{Name: container.RestartPolicyUnlessStopped},
		Sysctls:       spec.Sysctls,
	}
	for _, m := range spec.Mounts {
		if m.Source == "" {
			// An anonymous volume cannot carry labels: RemoveVolumes removes it with the container.
			if cfg.Volumes == nil {
				cfg.Volumes = map[string]struct{}{}
			}
			cfg.Volumes[m.Target] = struct{}{}
			continue
		}
		bind := m.Source + ":" + m.Target
		if m.ReadOnly {
			bind += ":ro"
		}
		host.Binds = append(host.Binds, bind)
	}
	if ok, err := r.HasImage(ctx, spec.Image); err != nil {
		return nil, err
	} else if !ok {
		return nil, fmt.Errorf("container %s: image %s: %w", spec.Name, spec.Image, ErrImageNotFound)
	}
	var created []string // volumes to remove on failure
	cleanup := func(id string) {
		rmCtx := context.WithoutCancel(ctx)
		if id != "" {
			_ = r.cli.ContainerRemove(rmCtx, id, container.RemoveOptions{Force: true, RemoveVolumes: true})
		}
		for _, v := range created {
			_ = r.cli.VolumeRemove(rmCtx, v, true)
		}
	}
	if spec.Node {
		cfg.Tty = true // systemd wants a terminal
		host.CapAdd = []string{"ALL"}
		host.CapDrop = []string{"SYS_RESOURCE"} // not in this machine's bounding set
		host.SecurityOpt = []string{"seccomp=unconfined"}
		host.Resources = container.Resources{
			Devices:           []container.DeviceMapping{{PathOnHost: "/dev/kmsg", PathInContainer: "/dev/kmsg", CgroupPermissions: "rwm"}},
			DeviceCgroupRules: []string{"a *:* rwm"},
		}
		host.CgroupnsMode = container.CgroupnsModePrivate
		// /run is the engine's tmpfs, as on kind nodes, so systemd finds it mounted and leaves
		// it: an extra mount below it (the host's /var/run/docker.sock for a self-hosted docker
		// provider; /var/run links to /run) stays visible instead of being hidden by the tmpfs
		// systemd would mount at boot. A restart still starts with an empty /run.
		host.Tmpfs = map[string]string{"/run": "rw,exec,nosuid,nodev,mode=755"}
		vol := spec.Name + "-var"
		volLabels := r.planeLabels()
		volLabels[ContainerLabel] = spec.Name
		volLabels[ClusterNamespaceLabel] = spec.Owner.Namespace
		volLabels[ClusterLabel] = spec.Owner.Cluster
		if err := r.ensureVolume(ctx, vol, volLabels); err != nil {
			return nil, err
		}
		created = append(created, vol)
		host.Binds = append(host.Binds, vol+":/var")
	}
	if spec.PublishTCP != 0 {
		port := nat.Port(strconv.Itoa(spec.PublishTCP) + "/tcp")
		cfg.ExposedPorts = nat.PortSet{port: {}}
		hostPort := ""
		if spec.HostPort != 0 {
			hostPort = strconv.Itoa(spec.HostPort)
		}
		host.PortBindings = nat.PortMap{port: {{HostIP: "127.0.0.1", HostPort: hostPort}}}
		// Ports are published only through a network that is not internal.
		host.NetworkMode = container.NetworkMode(r.PublishNetwork())
	}

	resp, err := r.cli.ContainerCreate(ctx, cfg, host, nil, nil, spec.Name)
	if err != nil {
		// A cancelled request may still have created the container on the engine's side:
		// remove it when it is ours (a name conflict with a foreign container is left alone).
		id := ""
		if !strings.Contains(err.Error(), "Conflict") {
			if c, ierr := r.Inspect(context.WithoutCancel(ctx), spec.Name); ierr == nil {
				id = c.ID
			}
		}
		cleanup(id)
		return nil, fmt.Errorf("creating container %s: %w", spec.Name, err)
	}
	if spec.PublishTCP != 0 {
		if err := r.cli.NetworkConnect(ctx, r.plane, resp.ID, nil); err != nil {
			cleanup(resp.ID)
			return nil, fmt.Errorf("connecting container %s to network %s: %w", spec.Name, r.plane, err)
		}
	}
	if err := r.cli.ContainerStart(ctx, resp.ID, container.StartOptions{}); err != nil {
		cleanup(resp.ID)
		return nil, fmt.Errorf("starting container %s: %w", spec.Name, err)
	}
	c, err := r.Inspect(ctx, resp.ID)
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (r *Runtime) ensureVolume(ctx context.Context, name string, labels map[string]string) error {
	v, err := r.cli.VolumeInspect(ctx, name)
	switch {
	case err == nil && !r.owns(v.Labels):
		return fmt.Errorf("volume %s: %w", name, ErrNotOurs)
	case err == nil:
		return nil
	case !client.IsErrNotFound(err):
		return fmt.Errorf("inspecting volume %s: %w", name, err)
	}
	if _, err := r.cli.VolumeCreate(ctx, volume.CreateOptions{Name: name, Labels: labels}); err != nil {
		return fmt.Errorf("creating volume %s: %w", name, err)
	}
	return nil
}

// Inspect returns the container named (or with the ID) nameOrID. It wraps ErrNotFound when there
// is none and ErrNotOurs when it lacks this plane's labels.
func (r *Runtime) Inspect(ctx context.Context, nameOrID string) (*Container, error) {
	info, err := r.cli.ContainerInspect(ctx, nameOrID)
	if client.IsErrNotFound(err) {
		return nil, fmt.Errorf("container %s: %w", nameOrID, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("inspecting container %s: %w", nameOrID, err)
	}
	if info.Config == nil || !r.owns(info.Config.Labels) {
		return nil, fmt.Errorf("container %s: %w", nameOrID, ErrNotOurs)
	}
	c := &Container{
		ID: info.ID, Name: strings.TrimPrefix(info.Name, "/"), Image: info.Config.Image, Labels: info.Config.Labels,
		Owner: Owner{Namespace: info.Config.Labels[ClusterNamespaceLabel], Cluster: info.Config.Labels[ClusterLabel]},
		Role:  Role(info.Config.Labels[RoleLabel]), HostPorts: map[int]int{},
	}
	if info.State != nil {
		c.Running, c.State = info.State.Running, info.State.Status
	}
	if t, err := time.Parse(time.RFC3339Nano, info.Created); err == nil {
		c.Created = t
	}
	if info.NetworkSettings != nil {
		if n, ok := info.NetworkSettings.Networks[r.plane]; ok && n != nil {
			c.IPv4 = n.IPAddress
		}
		for port, bindings := range info.NetworkSettings.Ports {
			if port.Proto() != "tcp" {
				continue
			}
			for _, b := range bindings {
				if hp, err := strconv.Atoi(b.HostPort); err == nil && b.HostIP == "127.0.0.1" {
					c.HostPorts[port.Int()] = hp
				}
			}
		}
	}
	return c, nil
}

// NeverStarted reports whether the engine created c but never started it: its creation was cut
// off (the provider killed, or dockerd stopping, between create and start). Nothing ran in it,
// and its volume may be half made (an engine stopping during the create left /var/run a plain
// directory instead of the image's link to /run, and containerd's socket out of kubeadm's
// reach): it is to be removed with its volumes and made again, not started.
func (c *Container) NeverStarted() bool { return c.State == "created" }

// Selector picks containers of this plane; empty fields match anything.
type Selector struct {
	Owner Owner
	Role  Role
	// Labels are further labels that must match.
	Labels map[string]string
}

// List returns the plane's containers matching sel, running or not, sorted by name.
func (r *Runtime) List(ctx context.Context, sel Selector) ([]Container, error) {
	extra := map[string]string{}
	for k, v := range sel.Labels {
		extra[k] = v
	}
	if sel.Owner.Cluster != "" {
		extra[ClusterNamespaceLabel] = sel.Owner.Namespace
		extra[ClusterLabel] = sel.Owner.Cluster
	}
	if sel.Role != "" {
		extra[RoleLabel] = string(sel.Role)
	}
	list, err := r.cli.ContainerList(ctx, container.ListOptions{All: true, Filters: r.filter(extra)})
	if err != nil {
		return nil, fmt.Errorf("listing containers: %w", err)
	}
	out := make([]Container, 0, len(list))
	for _, s := range list {
		c, err := r.Inspect(ctx, s.ID)
		if errors.Is(err, ErrNotFound) {
			continue // removed meanwhile
		}
		if err != nil {
			return nil, err
		}
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// check re-reads c's labels from the engine, so that a stale or hand-made *Container cannot make
// this package act on something that is not ours.
func (r *Runtime) check(ctx context.Context, c *Container) error {
	if c == nil || c.ID == "" {
		return errors.New("no container given")
	}
	_, err := r.Inspect(ctx, c.ID)
	return err
}

// Start starts a stopped container.
func (r *Runtime) Start(ctx context.Context, c *Container) error {
	if err := r.check(ctx, c); err != nil {
		return err
	}
	if err := r.cli.ContainerStart(ctx, c.ID, container.StartOptions{}); err != nil {
		return fmt.Errorf("starting container %s: %w", c.Name, err)
	}
	return nil
}

// Signal sends a signal (e.g. "SIGHUP") to the container's main process.
func (r *Runtime) Signal(ctx context.Context, c *Container, signal string) error {
	if err := r.check(ctx, c); err != nil {
		return err
	}
	if err := r.cli.ContainerKill(ctx, c.ID, signal); err != nil {
		return fmt.Errorf("sending %s to container %s: %w", signal, c.Name, err)
	}
	return nil
}

// Remove force-removes the container with its anonymous volumes, then the named volumes made
// for it. A container that is already gone is not an error.
func (r *Runtime) Remove(ctx context.Context, c *Container) error {
	err := r.check(ctx, c)
	switch {
	case errors.Is(err, ErrNotFound):
	case err != nil:
		return err
	default:
		if err := r.cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true}); err != nil && !client.IsErrNotFound(err) {
			return fmt.Errorf("removing container %s: %w", c.Name, err)
		}
	}
	return r.RemoveVolumes(ctx, c.Owner, c.Name)
}

// RemoveVolumes removes the named volumes made for container name of owner. Remove calls it;
// on its own it is for a container removed outside the provider, whose volumes stay behind.
func (r *Runtime) RemoveVolumes(ctx context.Context, owner Owner, name string) error {
	vols, err := r.cli.VolumeList(ctx, volume.ListOptions{Filters: r.filter(map[string]string{
		ContainerLabel: name, ClusterNamespaceLabel: owner.Namespace, ClusterLabel: owner.Cluster,
	})})
	if err != nil {
		return fmt.Errorf("listing the volumes of container %s: %w", name, err)
	}
	for _, v := range vols.Volumes {
		if err := r.cli.VolumeRemove(ctx, v.Name, true); err != nil && !client.IsErrNotFound(err) {
			return fmt.Errorf("removing volume %s of container %s: %w", v.Name, name, err)
		}
	}
	return nil
}

// RemovePlane removes every container, volume and network of this management plane: the
// provider's uninstall, and the tests' cleanup.
func (r *Runtime) RemovePlane(ctx context.Context) error {
	var errs []error
	list, err := r.cli.ContainerList(ctx, container.ListOptions{All: true, Filters: r.filter(nil)})
	errs = append(errs, err)
	for _, c := range list {
		if err := r.cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true}); err != nil && !client.IsErrNotFound(err) {
			errs = append(errs, err)
		}
	}
	vols, err := r.cli.VolumeList(ctx, volume.ListOptions{Filters: r.filter(nil)})
	errs = append(errs, err)
	for _, v := range vols.Volumes {
		if err := r.cli.VolumeRemove(ctx, v.Name, true); err != nil && !client.IsErrNotFound(err) {
			errs = append(errs, err)
		}
	}
	nets, err := r.cli.NetworkList(ctx, network.ListOptions{Filters: r.filter(nil)})
	errs = append(errs, err)
	for _, n := range nets {
		if err := r.cli.NetworkRemove(ctx, n.ID); err != nil && !client.IsErrNotFound(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Volume is one of the plane's volumes.
type Volume struct {
	Name   string
	Labels map[string]string
}

// Volumes returns the plane's volumes, sorted by name.
func (r *Runtime) Volumes(ctx context.Context) ([]Volume, error) {
	vols, err := r.cli.VolumeList(ctx, volume.ListOptions{Filters: r.filter(nil)})
	if err != nil {
		return nil, fmt.Errorf("listing volumes: %w", err)
	}
	out := make([]Volume, 0, len(vols.Volumes))
	for _, v := range vols.Volumes {
		out = append(out, Volume{Name: v.Name, Labels: v.Labels})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
