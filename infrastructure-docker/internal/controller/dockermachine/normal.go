package dockermachine

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/docker"
	"capstan.dev/infrastructure-docker/internal/node"
)

// reconcileNormal runs the node container, keeps its view of the cluster's addresses,
// bootstraps it once, and marks the Node.
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) (ctrl.Result, error) {
	for _, step := range []func(context.Context, *scope) (ctrl.Result, error){
		r.ensureContainer,
		r.syncClusterAddresses,
		r.bootstrapNode,
		r.setNodeProviderID,
	} {
		res, err := step(ctx, s)
		if err != nil {
			reportStepError(s, err)
			return res, err
		}
		if !res.IsZero() || s.provision != nil || s.bootstrap != nil || s.node != nil {
			return res, nil
		}
	}
	s.dockerMachine.Status.Initialization.Provisioned = ptr.To(true)
	return ctrl.Result{}, nil
}

// reportStepError puts an error of a step (the Docker Engine or the API server failing, e.g.
// while dockerd restarts) on the condition of the phase it stopped: the container's until it
// runs, then the bootstrap's until it succeeded, so that a Machine retrying with backoff says
// why. A phase that already succeeded keeps its condition: the error says nothing about it.
func reportStepError(s *scope, err error) {
	internal := &problem{infrav1.DockerMachineInternalErrorReason, err.Error()}
	switch {
	case s.container == nil:
		if s.provision == nil {
			s.provision = internal
		}
	case !s.bootstrapped && !conditions.IsTrue(s.dockerMachine, infrav1.DockerMachineBootstrapExecSucceededCondition):
		if s.bootstrap == nil {
			s.bootstrap = &problem{infrav1.DockerMachineInternalErrorReason, "Retrying the bootstrap of the node container after an error: " + err.Error()}
		}
	}
}

// ensureContainer adopts the DockerMachine's node container, starts it when it is stopped, and
// creates it when there is none: once the Cluster's infrastructure is provisioned and the
// Machine has bootstrap data. A container that existed (spec.providerID is set) and is gone is
// reported, never re-created: the Machine's node is lost, and a MachineHealthCheck remediates.
// One that was created and never started is made again: nothing ran in it.
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
	case c.NeverStarted():
		log.Info("Removing the node container whose creation was cut off (created, never started); creating it again")
		if err := r.Docker.Remove(ctx, c); err != nil {
			return ctrl.Result{}, err
		}
		s.recreate = true
		return r.createContainer(ctx, s)
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
	image := node.Image(dm.Spec.CustomImage, machine.Spec.Version)
	if image == "" {
		s.provision = &problem{infrav1.DockerMachineImageNotFoundReason, fmt.Sprintf(
			"Machine %s has no spec.version: set it, or set spec.customImage on the DockerMachine", machine.Name)}
		return ctrl.Result{}, nil
	}
	role := docker.RoleWorker
	if _, ok := machine.Labels[clusterv1.MachineControlPlaneLabel]; ok {
		role = docker.RoleControlPlane
	}
	log.Info("Creating the node container", "image", image, "role", role)
	c, err := r.nodes().Create(ctx, node.ContainerSpec{
		Name: s.containerName, Image: image, Owner: s.owner, Role: role, Mounts: dm.Spec.ExtraMounts,
		Labels: map[string]string{DockerMachineLabel: dm.Name},
	})
	if errors.Is(err, docker.ErrImageNotFound) {
		customField := ""
		if dm.Spec.CustomImage != "" {
			customField = "spec.customImage"
		}
		s.provision = &problem{infrav1.DockerMachineImageNotFoundReason, node.ImageNotFoundMessage(image, machine.Spec.Version, customField)}
		r.recordCreateFailed(s, s.provision.reason, s.provision.message)
		return ctrl.Result{RequeueAfter: imageRetry}, nil
	}
	if err != nil {
		r.recordCreateFailed(s, infrav1.DockerMachineInternalErrorReason, err.Error())
		return ctrl.Result{}, err
	}
	r.recordCreate(s, image, role)
	r.recordContainer(s, c)
	return ctrl.Result{}, nil
}

// recordContainer writes what the contract asks of a running container: providerID, addresses,
// failure domain.
func (r *Reconciler) recordContainer(s *scope, c *docker.Container) {
	s.container = c
	dm := s.dockerMachine
	dm.Spec.ProviderID = node.ProviderID(c.Name)
	dm.Status.Addresses = node.Addresses(c)
	if s.machine != nil {
		dm.Status.FailureDomain = s.machine.Spec.FailureDomain
	}
}

// syncClusterAddresses keeps the container's /etc/hosts listing the cluster's other containers
// and its endpoint route pointing at the current load balancer (see internal/node), before the
// bootstrap needs them and at every reconcile after: the other nodes and the load balancer come
// and go, and their Docker events re-trigger this DockerMachine.
func (r *Reconciler) syncClusterAddresses(ctx context.Context, s *scope) (ctrl.Result, error) {
	return ctrl.Result{}, r.nodes().SyncClusterAddresses(ctx, s.cluster, s.container)
}

// bootstrapReasons are the BootstrapExecSucceeded reasons of the bootstrap's phases.
var bootstrapReasons = map[node.BootstrapPhase]string{
	node.BootstrapWaitingForContainer:  infrav1.DockerMachineBootstrapWaitingForContainerReason,
	node.BootstrapRunning:              infrav1.DockerMachineBootstrappingReason,
	node.BootstrapFailed:               infrav1.DockerMachineBootstrapFailedReason,
	node.BootstrapTimedOut:             infrav1.DockerMachineBootstrapTimedOutReason,
	node.BootstrapPreLoadImageNotFound: infrav1.DockerMachinePreLoadImageNotFoundReason,
	node.BootstrapPreLoadFailed:        infrav1.DockerMachinePreLoadFailedReason,
}

// bootstrapNode imports spec.preLoadImages into the container and executes the bootstrap data
// in it once: started in the background, polled by later reconciles, ended by the sentinel, a
// failing command or the timeout. Once the BootstrapExecSucceeded condition is true the
// container is not even asked again.
func (r *Reconciler) bootstrapNode(ctx context.Context, s *scope) (ctrl.Result, error) {
	dm := s.dockerMachine
	if conditions.IsTrue(dm, infrav1.DockerMachineBootstrapExecSucceededCondition) {
		s.bootstrapped = true
		return ctrl.Result{}, nil
	}
	o := node.BootstrapOptions{
		Cluster:            s.cluster,
		DataSecret:         client.ObjectKey{Namespace: s.machine.Namespace, Name: ptr.Deref(s.machine.Spec.Bootstrap.DataSecretName, "")},
		TimeoutSource:      "spec.bootstrapTimeout",
		Replace:            "delete the Machine to replace it",
		PreLoadImages:      dm.Spec.PreLoadImages,
		PreLoadImagesField: "spec.preLoadImages",
	}
	if dm.Spec.BootstrapTimeout != nil {
		o.Timeout = dm.Spec.BootstrapTimeout.Duration
	}
	st, err := r.nodes().Bootstrap(ctx, s.container, o)
	if err != nil {
		return ctrl.Result{}, err
	}
	r.recordBootstrap(s, st)
	if st.Phase == node.BootstrapSucceeded {
		s.bootstrapped = true
		return ctrl.Result{}, nil
	}
	s.bootstrap = &problem{bootstrapReasons[st.Phase], st.Message}
	return ctrl.Result{RequeueAfter: st.RequeueAfter}, nil
}

// setNodeProviderID sets the workload Node's spec.providerID: there is no cloud provider to do
// it, and the Machine controller finds the Node by it. The Node is named after the container.
func (r *Reconciler) setNodeProviderID(ctx context.Context, s *scope) (ctrl.Result, error) {
	dm := s.dockerMachine
	if ptr.Deref(dm.Status.Initialization.Provisioned, false) && conditions.IsTrue(dm, infrav1.DockerMachineReadyCondition) {
		return ctrl.Result{}, nil // done before; providerID is immutable on a Node
	}
	wait, err := node.SetProviderID(ctx, r.Workload, client.ObjectKeyFromObject(s.cluster), s.containerName, dm.Spec.ProviderID)
	if err != nil {
		return ctrl.Result{}, err
	}
	if wait.Waiting() {
		s.node = &problem{infrav1.DockerMachineNotReadyReason, wait.Message}
	}
	return ctrl.Result{RequeueAfter: wait.RequeueAfter}, nil
}
