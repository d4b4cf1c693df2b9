package dockermachine

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/remote"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/docker"
)

// reconcileNormal runs the node container, bootstraps it once, and marks the Node.
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) (ctrl.Result, error) {
	for _, step := range []func(context.Context, *scope) (ctrl.Result, error){
		r.ensureContainer,
		r.bootstrapNode,
		r.setNodeProviderID,
	} {
		res, err := step(ctx, s)
		if err != nil {
			if s.provision == nil && s.container == nil {
				s.provision = &problem{infrav1.DockerMachineInternalErrorReason, err.Error()}
			}
			return res, err
		}
		if !res.IsZero() || s.provision != nil || s.bootstrap != nil || s.node != nil {
			return res, nil
		}
	}
	s.dockerMachine.Status.Initialization.Provisioned = ptr.To(true)
	return ctrl.Result{}, nil
}

// ensureContainer adopts the DockerMachine's node container, starts it when it is stopped, and
// creates it when there is none: once the Cluster's infrastructure is provisioned and the
// Machine has bootstrap data. A container that existed (spec.providerID is set) and is gone is
// reported, never re-created: the Machine's node is lost, and a MachineHealthCheck remediates.
func (r *Reconciler) ensureContainer(ctx context.Context, s *scope) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	dm, name := s.dockerMachine, s.containerName
	c, err := r.Docker.Inspect(ctx, name)
	switch {
	case errors.Is(err, docker.ErrNotOurs):
		s.provision = &problem{infrav1.DockerMachineNameTakenReason, fmt.Sprintf(
			"A container named %s exists that this provider did not create; remove or rename it so that the node container can be created", name)}
		return ctrl.Result{RequeueAfter: nameTakenRetry}, nil
	case errors.Is(err, docker.ErrNotFound):
		if dm.Spec.ProviderID != "" {
			s.provision = &problem{infrav1.DockerMachineContainerDeletedReason, fmt.Sprintf(
				"Container %s no longer exists (it was removed outside Capstan); the provider does not re-create it: the MachineHealthCheck remediates the Machine, or delete the Machine", name)}
			return ctrl.Result{}, nil
		}
		return r.createContainer(ctx, s)
	case err != nil:
		return ctrl.Result{}, err
	case c.Owner != s.owner || c.Labels[DockerMachineLabel] != dm.Name:
		s.provision = &problem{infrav1.DockerMachineNameTakenReason, fmt.Sprintf(
			"Container %s belongs to DockerMachine %s/%s of Cluster %s: two Machines with the same name cannot share a Docker Engine",
			name, c.Owner.Namespace, c.Labels[DockerMachineLabel], c.Owner.Cluster)}
		return ctrl.Result{RequeueAfter: nameTakenRetry}, nil
	case !c.Running:
		log.Info("Starting the stopped node container", "state", c.State)
		if err := r.Docker.Start(ctx, c); err != nil {
			return ctrl.Result{}, err
		}
		if c, err = r.Docker.Inspect(ctx, name); err != nil {
			return ctrl.Result{}, err
		}
	}
	r.recordContainer(s, c)
	return ctrl.Result{}, nil
}

// createContainer creates the node container after the waits the contract asks for.
func (r *Reconciler) createContainer(ctx context.Context, s *scope) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	dm, machine, cluster := s.dockerMachine, s.machine, s.cluster
	if !ptr.Deref(cluster.Status.Initialization.InfrastructureProvisioned, false) {
		s.provision = &problem{infrav1.DockerMachineWaitingForClusterInfrastructureReason, fmt.Sprintf(
			"Waiting for Cluster %s infrastructure to be provisioned (the load balancer)", cluster.Name)}
		return ctrl.Result{}, nil // the Cluster's update re-triggers us
	}
	if machine.Spec.Bootstrap.DataSecretName == nil {
		s.provision = &problem{infrav1.DockerMachineWaitingForBootstrapDataReason, fmt.Sprintf(
			"Waiting for Machine %s to have spec.bootstrap.dataSecretName (set by its bootstrap provider)", machine.Name)}
		return ctrl.Result{}, nil // the Machine's update re-triggers us
	}
	image := dm.Spec.CustomImage
	if image == "" {
		if machine.Spec.Version == "" {
			s.provision = &problem{infrav1.DockerMachineImageNotFoundReason, fmt.Sprintf(
				"Machine %s has no spec.version: set it, or set spec.customImage on the DockerMachine", machine.Name)}
			return ctrl.Result{}, nil
		}
		image = "capstan/node:" + machine.Spec.Version
	}
	role := docker.RoleWorker
	if _, ok := machine.Labels[clusterv1.MachineControlPlaneLabel]; ok {
		role = docker.RoleControlPlane
	}
	mounts := make([]docker.Mount, 0, len(dm.Spec.ExtraMounts))
	for _, m := range dm.Spec.ExtraMounts {
		mounts = append(mounts, docker.Mount{Source: m.HostPath, Target: m.ContainerPath, ReadOnly: ptr.Deref(m.ReadOnly, false)})
	}
	if err := r.Docker.EnsureNetworks(ctx); err != nil {
		return ctrl.Result{}, fmt.Errorf("ensuring the provider's Docker networks: %w", err)
	}
	hosts, err := r.clusterHosts(ctx, s)
	if err != nil {
		return ctrl.Result{}, err
	}
	log.Info("Creating the node container", "image", image, "role", role)
	c, err := r.Docker.Create(ctx, docker.ContainerSpec{
		Name: s.containerName, Image: image, Owner: s.owner, Role: role, Node: true, Mounts: mounts,
		Labels:     map[string]string{DockerMachineLabel: dm.Name},
		Sysctls:    map[string]string{routeEndpointSysctl: "1"},
		ExtraHosts: hosts,
	})
	if errors.Is(err, docker.ErrImageNotFound) {
		msg := fmt.Sprintf("Image %s is not on the Docker Engine and is never pulled: build it with `make node-image KUBERNETES_VERSION=%s`", image, machine.Spec.Version)
		if dm.Spec.CustomImage != "" {
			msg = fmt.Sprintf("Image %s (spec.customImage) is not on the Docker Engine and is never pulled: build or tag it locally, or fix spec.customImage", image)
		}
		s.provision = &problem{infrav1.DockerMachineImageNotFoundReason, msg}
		return ctrl.Result{RequeueAfter: imageRetry}, nil
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	r.recordContainer(s, c)
	return ctrl.Result{}, nil
}

// clusterHosts are the /etc/hosts lines of a new node: the cluster's load balancer and its
// running nodes (Docker adds the node's own name). Nodes created later are not added to older
// nodes' files: Kubernetes addresses nodes by IP, names are for people.
func (r *Reconciler) clusterHosts(ctx context.Context, s *scope) ([]string, error) {
	list, err := r.Docker.List(ctx, docker.Selector{Owner: s.owner})
	if err != nil {
		return nil, err
	}
	var hosts []string
	for _, c := range list {
		if c.Name != s.containerName && c.Running && c.IPv4 != "" {
			hosts = append(hosts, c.Name+":"+c.IPv4)
		}
	}
	return hosts, nil
}

// recordContainer writes what the contract asks of a running container: providerID, addresses,
// failure domain.
func (r *Reconciler) recordContainer(s *scope, c *docker.Container) {
	s.container = c
	dm := s.dockerMachine
	dm.Spec.ProviderID = providerIDPrefix + c.Name
	addresses := clusterv1.MachineAddresses{{Type: clusterv1.MachineHostName, Address: c.Name}}
	if c.IPv4 != "" {
		addresses = append(addresses, clusterv1.MachineAddress{Type: clusterv1.MachineInternalIP, Address: c.IPv4})
	}
	dm.Status.Addresses = addresses
	if s.machine != nil {
		dm.Status.FailureDomain = s.machine.Spec.FailureDomain
	}
}

// bootstrapNode executes the bootstrap data in the container once: started in the background,
// polled by later reconciles, ended by the sentinel, a failing command or the timeout. Once the
// BootstrapExecSucceeded condition is true the container is not even asked again.
func (r *Reconciler) bootstrapNode(ctx context.Context, s *scope) (ctrl.Result, error) {
	dm, c := s.dockerMachine, s.container
	if conditions.IsTrue(dm, infrav1.DockerMachineBootstrapExecSucceededCondition) {
		s.bootstrapped = true
		return ctrl.Result{}, nil
	}
	st, err := r.readBootstrapState(ctx, c)
	if err != nil {
		return ctrl.Result{}, err
	}
	timeout := DefaultBootstrapTimeout
	if dm.Spec.BootstrapTimeout != nil {
		timeout = dm.Spec.BootstrapTimeout.Duration
	}
	switch {
	case st.succeeded:
		ctrl.LoggerFrom(ctx).Info("The node container is bootstrapped")
		s.bootstrapped = true
		return ctrl.Result{}, nil
	case st.finished && st.exitCode == 0:
		s.bootstrap = &problem{infrav1.DockerMachineBootstrapFailedReason, fmt.Sprintf(
			"The bootstrap commands succeeded but none wrote %s, which the bootstrap contract requires of the bootstrap data; output tail:\n%s", sentinelPath, st.output)}
		return ctrl.Result{}, nil
	case st.timedOut:
		s.bootstrap = &problem{infrav1.DockerMachineBootstrapTimedOutReason, fmt.Sprintf(
			"The bootstrap did not finish within %s (spec.bootstrapTimeout); command %d was stopped; output tail:\n%s", timeout, st.command, st.output)}
		return ctrl.Result{}, nil
	case st.finished:
		s.bootstrap = &problem{infrav1.DockerMachineBootstrapFailedReason, fmt.Sprintf(
			"Bootstrap command %d exited with %d; the node is not bootstrapped and will not be retried (delete the Machine to replace it); output tail:\n%s",
			st.command, st.exitCode, st.output)}
		return ctrl.Result{}, nil
	case st.started && timedOut(st, timeout):
		if err := r.stopBootstrap(ctx, c); err != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{RequeueAfter: time.Millisecond}, nil // report what stopBootstrap recorded
	case st.started:
		s.bootstrap = &problem{infrav1.DockerMachineBootstrappingReason, "Running the bootstrap commands in the node container"}
		return ctrl.Result{RequeueAfter: bootstrapPoll}, nil
	case st.booting != "":
		s.bootstrap = &problem{infrav1.DockerMachineBootstrapWaitingForContainerReason, fmt.Sprintf(
			"Waiting for systemd in the node container to finish booting (state %q): nothing is written before it mounted /run", st.booting)}
		return ctrl.Result{RequeueAfter: bootstrapPoll}, nil
	}

	data, err := r.bootstrapData(ctx, s)
	if err != nil {
		return ctrl.Result{}, err
	}
	err = r.startBootstrap(ctx, s, c, data)
	var dataErr *bootstrapDataError
	switch {
	case errors.As(err, &dataErr):
		// Nothing ran; the Secret may be fixed or replaced, and its update is not watched.
		s.bootstrap = &problem{infrav1.DockerMachineBootstrapFailedReason, err.Error()}
		return ctrl.Result{RequeueAfter: imageRetry}, nil
	case errors.Is(err, errBootstrapStarted):
	case err != nil:
		return ctrl.Result{}, err
	}
	s.bootstrap = &problem{infrav1.DockerMachineBootstrappingReason, "Running the bootstrap commands in the node container"}
	return ctrl.Result{RequeueAfter: bootstrapPoll}, nil
}

// timedOut reports whether the bootstrap began longer than timeout ago. An unknown start time
// (the lock was taken but the time not written) counts as timed out.
func timedOut(st bootstrapState, timeout time.Duration) bool {
	return st.startedAt.IsZero() || time.Since(st.startedAt) > timeout
}

// bootstrapData reads the Machine's bootstrap data Secret live (key "value").
func (r *Reconciler) bootstrapData(ctx context.Context, s *scope) ([]byte, error) {
	name := ptr.Deref(s.machine.Spec.Bootstrap.DataSecretName, "")
	secret := &corev1.Secret{}
	if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: s.machine.Namespace, Name: name}, secret); err != nil {
		return nil, fmt.Errorf("reading the bootstrap data Secret %s/%s: %w", s.machine.Namespace, name, err)
	}
	data, ok := secret.Data["value"]
	if !ok {
		return nil, fmt.Errorf("the bootstrap data Secret %s/%s has no key \"value\"", s.machine.Namespace, name)
	}
	return data, nil
}

// setNodeProviderID sets the workload Node's spec.providerID: there is no cloud provider to do
// it, and the Machine controller finds the Node by it. The Node is named after the container.
func (r *Reconciler) setNodeProviderID(ctx context.Context, s *scope) (ctrl.Result, error) {
	dm := s.dockerMachine
	if ptr.Deref(dm.Status.Initialization.Provisioned, false) && conditions.IsTrue(dm, infrav1.DockerMachineReadyCondition) {
		return ctrl.Result{}, nil // done before; providerID is immutable on a Node
	}
	key := client.ObjectKeyFromObject(s.cluster)
	wc, err := r.Workload.GetClient(ctx, key)
	if errors.Is(err, remote.ErrClusterNotConnected) {
		s.node = &problem{infrav1.DockerMachineNotReadyReason, fmt.Sprintf(
			"Waiting for a connection to the workload cluster %s to set the providerID of Node %s", key, s.containerName)}
		return ctrl.Result{}, nil // the ClusterCache's connect event re-triggers us
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	node := &corev1.Node{}
	if err := wc.Get(ctx, client.ObjectKey{Name: s.containerName}, node); err != nil {
		if client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, fmt.Errorf("reading Node %s of the workload cluster %s: %w", s.containerName, key, err)
		}
		s.node = &problem{infrav1.DockerMachineNotReadyReason, fmt.Sprintf(
			"Waiting for Node %s to register in the workload cluster %s", s.containerName, key)}
		return ctrl.Result{RequeueAfter: nodePoll}, nil
	}
	switch node.Spec.ProviderID {
	case dm.Spec.ProviderID:
		return ctrl.Result{}, nil
	case "":
		ctrl.LoggerFrom(ctx).Info("Setting the Node's providerID", "Node", node.Name, "providerID", dm.Spec.ProviderID)
		before := node.DeepCopy()
		node.Spec.ProviderID = dm.Spec.ProviderID
		if err := wc.Patch(ctx, node, client.MergeFrom(before)); err != nil {
			return ctrl.Result{}, fmt.Errorf("setting the providerID of Node %s in the workload cluster %s: %w", node.Name, key, err)
		}
		return ctrl.Result{}, nil
	default:
		s.node = &problem{infrav1.DockerMachineNotReadyReason, fmt.Sprintf(
			"Node %s has providerID %q, not %q: it is not this DockerMachine's node; remove the Node or the stale Machine",
			node.Name, node.Spec.ProviderID, dm.Spec.ProviderID)}
		return ctrl.Result{RequeueAfter: imageRetry}, nil
	}
}
