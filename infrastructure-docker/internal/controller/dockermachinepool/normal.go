package dockermachinepool

import (
	"context"
	"fmt"
	"time"

	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/docker"
	"capstan.dev/infrastructure-docker/internal/node"
)

// reconcileNormal finds the pool's containers, replaces those of an older template or version
// (rollout.go), scales them to the MachinePool's replicas, keeps
// their view of the cluster's addresses, bootstraps the new ones and marks their Nodes. Each
// step runs every reconcile; the first error ends it.
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) (ctrl.Result, error) {
	var result ctrl.Result
	for _, step := range []func(context.Context, *scope) (ctrl.Result, error){
		r.listInstances,
		r.markOutdated,
		r.scaleDown,
		r.scaleUp,
		r.syncClusterAddresses,
		r.bootstrapInstances,
		r.setNodeProviderIDs,
	} {
		res, err := step(ctx, s)
		if err != nil {
			return ctrl.Result{}, err
		}
		result = lowestRequeue(result, res.RequeueAfter)
	}
	return result, nil
}

// listInstances reads the pool's containers from the engine (the record of what exists) and
// starts the ones that are stopped.
func (r *Reconciler) listInstances(ctx context.Context, s *scope) (ctrl.Result, error) {
	containers, err := r.Docker.List(ctx, selector(s.pool))
	if err != nil {
		return ctrl.Result{}, err
	}
	recorded := map[string]infrav1.DockerMachinePoolInstanceStatus{}
	for _, in := range s.pool.Status.Instances {
		recorded[in.InstanceName] = in
	}
	s.instances = make([]*instance, 0, len(containers))
	for _, c := range containers {
		if c.NeverStarted() {
			// Nothing ran in it and its volume may be half made: the pool scales up anew.
			ctrl.LoggerFrom(ctx).Info("Removing the node container whose creation was cut off (created, never started)", "container", c.Name)
			if err := r.Docker.Remove(ctx, &c); err != nil {
				return ctrl.Result{}, err
			}
			continue
		}
		if !c.Running {
			ctrl.LoggerFrom(ctx).Info("Starting the stopped node container", "container", c.Name, "state", c.State)
			if err := r.Docker.Start(ctx, &c); err != nil {
				return ctrl.Result{}, err
			}
			started, err := r.Docker.Inspect(ctx, c.ID)
			if err != nil {
				return ctrl.Result{}, err
			}
			c = *started
		}
		s.instances = append(s.instances, &instance{container: c, recorded: recorded[c.Name]})
	}
	s.listed = true
	return ctrl.Result{}, nil
}

// syncClusterAddresses keeps every instance's /etc/hosts listing the cluster's other containers
// and its endpoint route pointing at the current load balancer (see internal/node): the other
// nodes and the load balancer come and go, and their Docker events re-trigger this pool.
func (r *Reconciler) syncClusterAddresses(ctx context.Context, s *scope) (ctrl.Result, error) {
	containers := make([]*docker.Container, 0, len(s.instances))
	for _, in := range s.instances {
		containers = append(containers, &in.container)
	}
	return ctrl.Result{}, r.nodes().SyncClusterAddresses(ctx, s.cluster, containers...)
}

// bootstrapInstances advances the bootstrap of every instance not bootstrapped yet, with the
// MachinePool's bootstrap data as it is now, after importing spec.template.preLoadImages.
func (r *Reconciler) bootstrapInstances(ctx context.Context, s *scope) (ctrl.Result, error) {
	var result ctrl.Result
	secretName := ptr.Deref(s.machinePool.Spec.Template.Spec.Bootstrap.DataSecretName, "")
	for _, in := range s.instances {
		if in.recorded.Bootstrapped {
			in.bootstrapped = true
			continue
		}
		if secretName == "" {
			s.wait = waitingForBootstrapData(s)
			continue
		}
		st, err := r.nodes().Bootstrap(ctx, &in.container, node.BootstrapOptions{
			Cluster:       s.cluster,
			DataSecret:    client.ObjectKey{Namespace: s.machinePool.Namespace, Name: secretName},
			TimeoutSource: "the provider's default: DockerMachinePool has no bootstrapTimeout",
			Replace: fmt.Sprintf("remove the container with `docker rm -f %s`, or scale the MachinePool down, to replace it",
				in.container.Name),
			PreLoadImages:      s.pool.Spec.Template.PreLoadImages,
			PreLoadImagesField: "spec.template.preLoadImages",
		})
		if err != nil {
			return ctrl.Result{}, fmt.Errorf("bootstrapping instance %s: %w", in.container.Name, err)
		}
		if st.Phase == node.BootstrapSucceeded {
			in.bootstrapped = true
			continue
		}
		in.bootstrap = &st
		result = lowestRequeue(result, st.RequeueAfter)
	}
	return result, nil
}

// setNodeProviderIDs sets the providerID of the Node of every bootstrapped instance: there is no
// cloud provider to do it, and the MachinePool controller matches Nodes to
// spec.providerIDList by it. An instance recorded ready is not asked again: a Node's providerID
// is immutable.
func (r *Reconciler) setNodeProviderIDs(ctx context.Context, s *scope) (ctrl.Result, error) {
	var result ctrl.Result
	key := client.ObjectKeyFromObject(s.cluster)
	for _, in := range s.instances {
		switch {
		case !in.bootstrapped:
			continue
		case in.recorded.Ready:
			in.ready = true
			continue
		}
		wait, err := node.SetProviderID(ctx, r.Workload, key, in.container.Name, node.ProviderID(in.container.Name))
		if err != nil {
			return ctrl.Result{}, err
		}
		if wait.Waiting() {
			in.nodeWait = wait.Message
			result = lowestRequeue(result, wait.RequeueAfter)
			continue
		}
		in.ready = true
	}
	return result, nil
}

// lowestRequeue keeps the sooner of a result's requeue and after (zero: none).
func lowestRequeue(r ctrl.Result, after time.Duration) ctrl.Result {
	if after > 0 && (r.RequeueAfter == 0 || after < r.RequeueAfter) {
		r.RequeueAfter = after
	}
	return r
}
