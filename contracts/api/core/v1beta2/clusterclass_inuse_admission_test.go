/*
Copyright 2026 The Capstan Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package v1beta2_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
)

// paramPolicyTimeout bounds the wait for a policy with parameters to take effect: the API server
// evaluates it only once its informer on the parameter kind has synced (until then the policy's
// failurePolicy Ignore lets requests through).
const paramPolicyTimeout = 30 * time.Second

// inUseCluster uses every part of newClusterClass: its MachineDeployment class (with the class's
// health check enabled explicitly), its MachinePool class and the control plane's health check.
func inUseCluster(ns string) *clusterv1.Cluster {
	c := newTopologyCluster(ns)
	c.Spec.Topology.ControlPlane.HealthCheck = clusterv1.ControlPlaneTopologyHealthCheck{Enabled: ptr.To(true)}
	c.Spec.Topology.Workers.MachineDeployments[0].HealthCheck.Enabled = ptr.To(true)
	c.Spec.Topology.Workers.MachinePools = []clusterv1.MachinePoolTopology{{Class: "default-pool", Name: "mp-0"}}
	return c
}

// classWithWorkerCheck is newClusterClass with a health check on its MachineDeployment class and a
// second MachineDeployment class that no Cluster uses.
func classWithWorkerCheck(ns string) *clusterv1.ClusterClass {
	cc := newClusterClass(ns)
	md := &cc.Spec.Workers.MachineDeployments[0]
	md.HealthCheck.Checks.NodeStartupTimeoutSeconds = ptr.To[int32](600)
	unused := *md.DeepCopy()
	unused.Class = "unused-worker"
	cc.Spec.Workers.MachineDeployments = append(cc.Spec.Workers.MachineDeployments, unused)
	return cc
}

func requireInvalid(t *testing.T, err error, want []string) {
	t.Helper()
	if want == nil {
		require.NoError(t, err)
		return
	}
	require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
	for _, msg := range want {
		require.Contains(t, err.Error(), msg)
	}
}

// TestAdmission_ClassChangesThatBreakItsClustersAreRefused: as upstream's ClusterClass webhook, an
// update may not remove a MachineDeployment or MachinePool class, or a health check, that a
// Cluster of the class relies on; what no Cluster uses may go.
func TestAdmission_ClassChangesThatBreakItsClustersAreRefused(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "cc-in-use")
	cc := classWithWorkerCheck(ns)
	require.NoError(t, env.Client.Create(ctx, cc))
	require.NoError(t, env.Client.Create(ctx, inUseCluster(ns)))

	update := func(mutate func(cc *clusterv1.ClusterClass)) error {
		cur := &clusterv1.ClusterClass{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(cc), cur))
		mutate(cur)
		return env.Client.Update(ctx, cur, client.DryRunAll)
	}
	removeUsedDeploymentClass := func(cc *clusterv1.ClusterClass) {
		cc.Spec.Workers.MachineDeployments = cc.Spec.Workers.MachineDeployments[1:]
	}
	envtest.WaitFor(t, paramPolicyTimeout, "the in-use policy to take effect", func() (bool, error) {
		return update(removeUsedDeploymentClass) != nil, nil
	})

	tests := []struct {
		name   string
		mutate func(cc *clusterv1.ClusterClass)
		want   []string // nil: accepted
	}{
		{"UsedMachineDeploymentClass", removeUsedDeploymentClass, []string{
			"spec.workers.machineDeployments: MachineDeployment class default-worker cannot be removed: Cluster " + clusterName + " uses it"}},
		{"UsedMachinePoolClass", func(cc *clusterv1.ClusterClass) { cc.Spec.Workers.MachinePools = nil }, []string{
			"spec.workers.machinePools: MachinePool class default-pool cannot be removed: Cluster " + clusterName + " uses it"}},
		{"ControlPlaneHealthCheckEnabledByACluster", func(cc *clusterv1.ClusterClass) {
			cc.Spec.ControlPlane.HealthCheck = clusterv1.ControlPlaneClassHealthCheck{}
		}, []string{"spec.controlPlane.healthCheck: cannot be removed: Cluster " + clusterName + " enables it"}},
		{"WorkerHealthCheckEnabledByACluster", func(cc *clusterv1.ClusterClass) {
			cc.Spec.Workers.MachineDeployments[0].HealthCheck = clusterv1.MachineDeploymentClassHealthCheck{}
		}, []string{"cannot be removed: Cluster " + clusterName + " enables it for MachineDeployment md-0"}},
		{"UnusedMachineDeploymentClass", func(cc *clusterv1.ClusterClass) {
			cc.Spec.Workers.MachineDeployments = cc.Spec.Workers.MachineDeployments[:1]
		}, nil},
		{"HealthCheckOfAnUnusedClass", func(cc *clusterv1.ClusterClass) {
			cc.Spec.Workers.MachineDeployments[1].HealthCheck = clusterv1.MachineDeploymentClassHealthCheck{}
		}, nil},
		{"NewClassAdded", func(cc *clusterv1.ClusterClass) {
			extra := *cc.Spec.Workers.MachineDeployments[0].DeepCopy()
			extra.Class = "extra-worker"
			cc.Spec.Workers.MachineDeployments = append(cc.Spec.Workers.MachineDeployments, extra)
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { requireInvalid(t, update(tt.mutate), tt.want) })
	}

	// A Cluster that lets its health checks default (enabled unset) does not hold them: the
	// MachineHealthChecks just go, as upstream.
	c := &clusterv1.Cluster{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: clusterName}, c))
	c.Spec.Topology.ControlPlane.HealthCheck.Enabled = nil
	require.NoError(t, env.Client.Update(ctx, c))
	envtest.WaitFor(t, paramPolicyTimeout, "the class's control plane health check to be removable", func() (bool, error) {
		return update(func(cc *clusterv1.ClusterClass) {
			cc.Spec.ControlPlane.HealthCheck = clusterv1.ControlPlaneClassHealthCheck{}
		}) == nil, nil
	})
}

// TestAdmission_TopologiesAreCheckedAgainstTheirClass: as upstream's Cluster webhook, a topology
// may only use the classes its ClusterClass defines, enable a health check only where one is
// defined, and run a version the class lists; a Cluster created before its class is accepted.
func TestAdmission_TopologiesAreCheckedAgainstTheirClass(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "topology-class")
	require.NoError(t, env.Client.Create(ctx, newClusterClass(ns)))
	withoutV := newClusterClass(ns)
	withoutV.Name, withoutV.Spec.KubernetesVersions = "without-v", []string{"1.36.4", "1.37.2"}
	require.NoError(t, env.Client.Create(ctx, withoutV))

	create := func(mutate func(c *clusterv1.Cluster)) error {
		c := newTopologyCluster(ns)
		mutate(c)
		return env.Client.Create(ctx, c, client.DryRunAll)
	}
	unknownClass := func(c *clusterv1.Cluster) { c.Spec.Topology.Workers.MachineDeployments[0].Class = "gpu-worker" }
	envtest.WaitFor(t, paramPolicyTimeout, "the topology policy to take effect", func() (bool, error) {
		return create(unknownClass) != nil, nil
	})

	tests := []struct {
		name   string
		mutate func(c *clusterv1.Cluster)
		want   []string // nil: accepted
	}{
		{"Valid", func(*clusterv1.Cluster) {}, nil},
		{"UnknownMachineDeploymentClass", unknownClass, []string{
			"spec.topology.workers.machineDeployments: MachineDeployment md-0 uses class gpu-worker, which ClusterClass quick-start does not define (its spec.workers.machineDeployments: default-worker)"}},
		{"UnknownMachinePoolClass", func(c *clusterv1.Cluster) {
			c.Spec.Topology.Workers.MachinePools = []clusterv1.MachinePoolTopology{{Class: "big-pool", Name: "mp-0"}}
		}, []string{"MachinePool mp-0 uses class big-pool, which ClusterClass quick-start does not define"}},
		{"WorkerHealthCheckTheClassLacks", func(c *clusterv1.Cluster) {
			c.Spec.Topology.Workers.MachineDeployments[0].HealthCheck.Enabled = ptr.To(true)
		}, []string{"MachineDeployment md-0 sets healthCheck.enabled: true, but its class default-worker defines no health check"}},
		{"WorkerHealthCheckOfItsOwn", func(c *clusterv1.Cluster) {
			hc := &c.Spec.Topology.Workers.MachineDeployments[0].HealthCheck
			hc.Enabled = ptr.To(true)
			hc.Checks.NodeStartupTimeoutSeconds = ptr.To[int32](300)
		}, nil},
		{"ControlPlaneHealthCheckTheClassDefines", func(c *clusterv1.Cluster) {
			c.Spec.Topology.ControlPlane.HealthCheck.Enabled = ptr.To(true)
		}, nil},
		{"VersionTheClassDoesNotList", func(c *clusterv1.Cluster) { c.Spec.Topology.Version = "v1.37.0" }, []string{
			"spec.topology.version: v1.37.0 must be one of ClusterClass quick-start spec.kubernetesVersions (v1.36.4, v1.37.2)"}},
		{"VersionTheClassListsWithoutItsV", func(c *clusterv1.Cluster) { c.Spec.Topology.ClassRef.Name = "without-v" }, nil},
		{"VersionTheClassListsWithoutItsVDoesNotList", func(c *clusterv1.Cluster) {
			c.Spec.Topology.ClassRef.Name = "without-v"
			c.Spec.Topology.Version = "v1.37.0"
		}, []string{"spec.topology.version: v1.37.0 must be one of ClusterClass without-v spec.kubernetesVersions (1.36.4, 1.37.2)"}},
		{"ClassNotCreatedYet", func(c *clusterv1.Cluster) {
			c.Spec.Topology.ClassRef.Name = "later"
			c.Spec.Topology.Workers.MachineDeployments[0].Class = "gpu-worker"
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { requireInvalid(t, create(tt.mutate), tt.want) })
	}
}

// TestAdmission_ARebaseKeepsTheKindsTheClusterReferences: as upstream's Cluster webhook
// (ClusterClassesAreCompatible), a new spec.topology.classRef must name a class whose
// InfrastructureCluster and ControlPlane templates generate the kinds the Cluster references; a
// class of the same kinds (other templates) is accepted, and so is any class while the Cluster
// references nothing yet.
func TestAdmission_ARebaseKeepsTheKindsTheClusterReferences(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "rebase")
	classes := map[string]func(cc *clusterv1.ClusterClass){
		"quick-start": func(*clusterv1.ClusterClass) {},
		"same-kinds": func(cc *clusterv1.ClusterClass) {
			cc.Spec.Infrastructure.TemplateRef.Name, cc.Spec.ControlPlane.TemplateRef.Name = "infra-2", "cp-2"
		},
		"other-infra": func(cc *clusterv1.ClusterClass) { cc.Spec.Infrastructure.TemplateRef.Kind = "CloudClusterTemplate" },
		"other-cp-group": func(cc *clusterv1.ClusterClass) {
			cc.Spec.ControlPlane.TemplateRef.APIVersion = "controlplane.example.com/v1beta2"
		},
	}
	for name, mutate := range classes {
		cc := newClusterClass(ns)
		cc.Name = name
		mutate(cc)
		require.NoError(t, env.Client.Create(ctx, cc))
	}
	c := newTopologyCluster(ns)
	c.Spec.InfrastructureRef = clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "DevCluster", Name: "c1-abcde"}
	c.Spec.ControlPlaneRef = clusterv1.ContractVersionedObjectReference{APIGroup: "controlplane.cluster.x-k8s.io", Kind: "KubeadmControlPlane", Name: "c1-fghij"}
	require.NoError(t, env.Client.Create(ctx, c))
	unreferenced := newTopologyCluster(ns)
	unreferenced.Name = "c2"
	require.NoError(t, env.Client.Create(ctx, unreferenced))

	rebase := func(c *clusterv1.Cluster, class string) error {
		cur := &clusterv1.Cluster{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(c), cur))
		cur.Spec.Topology.ClassRef.Name = class
		return env.Client.Update(ctx, cur, client.DryRunAll)
	}
	envtest.WaitFor(t, paramPolicyTimeout, "the rebase check to take effect", func() (bool, error) {
		return rebase(c, "other-infra") != nil, nil
	})
	requireInvalid(t, rebase(c, "other-infra"), []string{"spec.topology.classRef: ClusterClass other-infra generates the InfrastructureCluster from a " +
		"CloudClusterTemplate (infrastructure.cluster.x-k8s.io), but this Cluster has a DevCluster (infrastructure.cluster.x-k8s.io, spec.infrastructureRef): " +
		"a class change may change templates, not their kinds; use a class whose spec.infrastructure.templateRef is a DevClusterTemplate"})
	requireInvalid(t, rebase(c, "other-cp-group"), []string{"spec.topology.classRef: ClusterClass other-cp-group generates the ControlPlane from a " +
		"KubeadmControlPlaneTemplate (controlplane.example.com), but this Cluster has a KubeadmControlPlane (controlplane.cluster.x-k8s.io, spec.controlPlaneRef)"})
	requireInvalid(t, rebase(c, "same-kinds"), nil)
	requireInvalid(t, rebase(unreferenced, "other-infra"), nil)
}
