package bench

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/testing/crds"
)

// benchCluster is the name of the Cluster of the machines scenario, and of its
// InfraCluster, control plane and worker templates.
const benchCluster = "bench"

// deploymentLabel selects a MachineDeployment's Machines.
const deploymentLabel = "bench.capstan.dev/deployment"

func (r *run) createNamespace(ctx context.Context, name string) error {
	err := r.plane.harness.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", name, err)
	}
	return nil
}

func ref(gvk schema.GroupVersionKind, name string) clusterv1.ContractVersionedObjectReference {
	return clusterv1.ContractVersionedObjectReference{APIGroup: gvk.Group, Kind: gvk.Kind, Name: name}
}

// clusterObjects are a Cluster backed by the scale provider's InfraCluster and
// control plane, and the worker templates every MachineDeployment clones.
func clusterObjects(ns string) []client.Object {
	c := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: benchCluster, Namespace: ns},
		Spec: clusterv1.ClusterSpec{
			InfrastructureRef: ref(crds.GenericInfrastructureClusterGVK, benchCluster),
			ControlPlaneRef:   ref(crds.GenericControlPlaneGVK, benchCluster),
		}}
	objs := []client.Object{c}
	for _, gvk := range []schema.GroupVersionKind{crds.GenericInfrastructureClusterGVK, crds.GenericControlPlaneGVK} {
		o := newGeneric(gvk)
		o.SetNamespace(ns)
		o.SetName(benchCluster)
		o.Object["spec"] = map[string]any{}
		objs = append(objs, o)
	}
	return append(objs, workerTemplates(ns)...)
}

// workerTemplates are the templates every MachineDeployment of a namespace clones.
func workerTemplates(ns string) []client.Object {
	var objs []client.Object
	for _, gvk := range []schema.GroupVersionKind{crds.GenericInfrastructureMachineTemplateGVK, crds.GenericBootstrapConfigTemplateGVK} {
		o := newGeneric(gvk)
		o.SetNamespace(ns)
		o.SetName(benchCluster)
		o.Object["spec"] = map[string]any{"template": map[string]any{"spec": map[string]any{}}}
		objs = append(objs, o)
	}
	return objs
}

// machineDeployment is the i-th MachineDeployment of replicas workers of benchCluster.
func machineDeployment(ns string, i, replicas int) *clusterv1.MachineDeployment {
	return clusterMachineDeployment(ns, benchCluster, fmt.Sprintf("md-%03d", i), replicas)
}

// clusterMachineDeployment is a MachineDeployment of replicas workers of cluster, complete as
// written (what upstream's defaulting webhook would add is there: the cluster-name label in its
// metadata, selector and template, and the rollout strategy with upstream's 1/0 bounds), so that
// a plane without Capstan's admission policies runs it the same.
func clusterMachineDeployment(ns, cluster, name string, replicas int) *clusterv1.MachineDeployment {
	labels := func() map[string]string {
		return map[string]string{clusterv1.ClusterNameLabel: cluster, deploymentLabel: name}
	}
	return &clusterv1.MachineDeployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{clusterv1.ClusterNameLabel: cluster}},
		Spec: clusterv1.MachineDeploymentSpec{
			ClusterName: cluster, Replicas: ptr.To(int32(replicas)),
			Selector: clusterv1.LabelSelector{MatchLabels: labels()},
			Rollout: clusterv1.MachineDeploymentRolloutSpec{Strategy: clusterv1.MachineDeploymentRolloutStrategy{
				Type: clusterv1.RollingUpdateMachineDeploymentStrategyType,
				RollingUpdate: clusterv1.MachineDeploymentRolloutStrategyRollingUpdate{
					MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromInt32(0))},
			}},
			Template: clusterv1.MachineTemplateSpec{
				ObjectMeta: clusterv1.ObjectMeta{Labels: labels()},
				Spec: clusterv1.MachineSpec{ClusterName: cluster, Version: "v1.37.2",
					Bootstrap:         clusterv1.Bootstrap{ConfigRef: ref(crds.GenericBootstrapConfigTemplateGVK, benchCluster)},
					InfrastructureRef: ref(crds.GenericInfrastructureMachineTemplateGVK, benchCluster)},
			},
		},
	}
}

// createAll creates objs with 16 workers, as a user applying a manifest at once.
func (r *run) createAll(ctx context.Context, objs []client.Object) error {
	_, err := forEach(ctx, len(objs), 16, func(ctx context.Context, i int) error {
		if err := r.plane.harness.Create(ctx, objs[i]); err != nil {
			return fmt.Errorf("creating %T %s: %w", objs[i], objs[i].GetName(), err)
		}
		return nil
	})
	return err
}
