package dockermachinepool

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"

	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/docker"
	"capstan.dev/infrastructure-docker/internal/node"
)

// maxNamePrefix keeps <prefix>-<5 characters> within the 63 characters of a hostname.
const maxNamePrefix = 63 - 6

// scaleDown removes the instances beyond the MachinePool's replicas: those of an older template
// or version first, then the least advanced (not bootstrapped, then without the Node's
// providerID), the newest first among equals, so the instances that serve longest stay. While a
// rollout runs, an instance whose Node is Ready goes only if as many Ready Nodes as replicas stay
// without it; the next reconcile (a Node turning Ready changes the MachinePool's status) goes on.
func (r *Reconciler) scaleDown(ctx context.Context, s *scope) (ctrl.Result, error) {
	excess := len(s.instances) - s.desired
	if excess <= 0 {
		return ctrl.Result{}, nil
	}
	var ready map[*instance]bool
	if countOutdated(s.instances) > 0 {
		var err error
		if ready, err = r.readyNodes(ctx, s); err != nil {
			return ctrl.Result{}, err
		}
	}
	readyLeft := len(ready)
	removed := &removals{}
	defer r.recordRemovals(s, removed)
	for _, victim := range scaleDownOrder(s.instances)[:excess] {
		if ready[victim] && readyLeft-1 < s.desired {
			s.rolloutWait = fmt.Sprintf("instance %s goes once another instance's Node is Ready (%d Nodes Ready, %d wanted)",
				victim.container.Name, readyLeft, s.desired)
			return ctrl.Result{RequeueAfter: r.NodeReadyPoll}, nil
		}
		ctrl.LoggerFrom(ctx).Info("Removing a node container to scale down", "container", victim.container.Name,
			"replicas", s.desired, "outdated", victim.outdated, "bootstrapped", victim.recorded.Bootstrapped, "ready", victim.recorded.Ready)
		if err := r.Docker.Remove(ctx, &victim.container); err != nil {
			r.recordDeleteFailed(s, victim.container.Name, removed.why(victim), err)
			return ctrl.Result{}, fmt.Errorf("removing instance %s to scale down: %w", victim.container.Name, err)
		}
		removed.add(victim)
		s.instances = remove(s.instances, victim)
		if ready[victim] {
			readyLeft--
		}
	}
	return ctrl.Result{}, nil
}

// scaleDownOrder sorts a copy of instances in the order scale down removes them: outdated
// first, then by progress, then newest first, then by name (last first) so that the order is
// total.
func scaleDownOrder(instances []*instance) []*instance {
	out := append([]*instance(nil), instances...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.outdated != b.outdated {
			return a.outdated
		}
		if progress(a) != progress(b) {
			return progress(a) < progress(b)
		}
		if !a.container.Created.Equal(b.container.Created) {
			return a.container.Created.After(b.container.Created)
		}
		return a.container.Name > b.container.Name
	})
	return out
}

// progress orders instances for scale down: 0 not bootstrapped, 1 bootstrapped, 2 ready, as
// last recorded.
func progress(in *instance) int {
	switch {
	case in.recorded.Ready:
		return 2
	case in.recorded.Bootstrapped:
		return 1
	}
	return 0
}

func remove(list []*instance, victim *instance) []*instance {
	out := list[:0]
	for _, in := range list {
		if in != victim {
			out = append(out, in)
		}
	}
	return out
}

// scaleUp creates the missing instances, and during a rollout their replacements (toCreate),
// once the Cluster's infrastructure is provisioned and the MachinePool has bootstrap data. Their
// bootstrap starts in bootstrapInstances.
func (r *Reconciler) scaleUp(ctx context.Context, s *scope) (ctrl.Result, error) {
	missing := toCreate(s.instances, s.desired)
	if missing <= 0 {
		return ctrl.Result{}, nil
	}
	mp, cluster := s.machinePool, s.cluster
	if !ptr.Deref(cluster.Status.Initialization.InfrastructureProvisioned, false) {
		s.wait = &problem{infrav1.DockerMachinePoolWaitingForClusterInfrastructureReason, fmt.Sprintf(
			"Waiting for Cluster %s infrastructure to be provisioned (the load balancer)", cluster.Name)}
		return ctrl.Result{}, nil // the Cluster's update re-triggers us
	}
	if mp.Spec.Template.Spec.Bootstrap.DataSecretName == nil {
		s.wait = waitingForBootstrapData(s)
		return ctrl.Result{}, nil // the MachinePool's update re-triggers us
	}
	tmpl := s.pool.Spec.Template
	version := mp.Spec.Template.Spec.Version
	image := s.spec.image
	if image == "" {
		s.wait = &problem{infrav1.DockerMachinePoolImageNotFoundReason, fmt.Sprintf(
			"MachinePool %s has no spec.template.spec.version: set it, or set spec.template.customImage on the DockerMachinePool", mp.Name)}
		return ctrl.Result{}, nil
	}
	taken := map[string]bool{}
	for _, in := range s.instances {
		taken[in.container.Name] = true
	}
	created := &creations{image: image, replacing: countOutdated(s.instances) > 0}
	defer r.recordCreations(s, created)
	for range missing {
		name := instanceName(mp.Name, taken)
		taken[name] = true
		ctrl.LoggerFrom(ctx).Info("Creating a node container to scale up", "container", name, "image", image, "replicas", s.desired)
		c, err := r.nodes().Create(ctx, node.ContainerSpec{
			Name: name, Image: image, Owner: s.owner, Role: docker.RoleWorker, Mounts: tmpl.ExtraMounts,
			Labels: map[string]string{DockerMachinePoolLabel: s.pool.Name, SpecHashLabel: s.spec.hash},
		})
		if errors.Is(err, docker.ErrImageNotFound) {
			customField := ""
			if tmpl.CustomImage != "" {
				customField = "spec.template.customImage"
			}
			s.wait = &problem{infrav1.DockerMachinePoolImageNotFoundReason, node.ImageNotFoundMessage(image, version, customField)}
			r.recordCreateFailed(s, name, s.wait.message)
			return ctrl.Result{RequeueAfter: imageRetry}, nil
		}
		if err != nil {
			r.recordCreateFailed(s, name, err.Error())
			return ctrl.Result{}, fmt.Errorf("creating instance %s to scale up: %w", name, err)
		}
		s.instances = append(s.instances, &instance{container: *c})
		created.names = append(created.names, name)
	}
	sort.Slice(s.instances, func(i, j int) bool { return s.instances[i].container.Name < s.instances[j].container.Name })
	return ctrl.Result{}, nil
}

// instanceName is a new instance's name: <prefix>-<5 random characters>, not in taken. A name
// that a container outside the pool holds makes the creation fail; the next reconcile draws
// another.
func instanceName(machinePool string, taken map[string]bool) string {
	prefix := machinePool
	if len(prefix) > maxNamePrefix {
		prefix = strings.TrimRight(prefix[:maxNamePrefix], "-.")
	}
	for {
		name := prefix + "-" + utilrand.String(5)
		if !taken[name] {
			return name
		}
	}
}

func waitingForBootstrapData(s *scope) *problem {
	return &problem{infrav1.DockerMachinePoolWaitingForBootstrapDataReason, fmt.Sprintf(
		"Waiting for MachinePool %s to have spec.template.spec.bootstrap.dataSecretName (set by its bootstrap provider)", s.machinePool.Name)}
}
