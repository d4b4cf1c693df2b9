//go:build clusterctl

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

package interop

import (
	"context"
	"encoding/base64"
	"maps"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"capstan.dev/contracts/admissionpolicy"
	"capstan.dev/contracts/envtest"
	"capstan.dev/core/internal/capstanctl/components"
)

const (
	infraGroup = "infrastructure.cluster.x-k8s.io"
	cpGroup    = "controlplane.cluster.x-k8s.io"
	// kubernetesVersion is the workload cluster's version in the specs.
	kubernetesVersion = "v1.37.2"
	// since is the lastTransitionTime of every condition: fixed, so describe's SINCE is stable
	// enough to ignore.
	since = "2026-01-01T00:00:00Z"
)

// workload is one running workload cluster's objects in a management cluster, in creation order
// (owners first).
type workload struct {
	ns   string
	objs []*unstructured.Unstructured
	// statuses are the objs' status as the providers wrote it (nil: none).
	statuses []map[string]any
	// kubeconfig is the value of the Cluster's kubeconfig Secret.
	kubeconfig string
}

// newWorkload creates, in a new namespace of e, a workload cluster c1 as Capstan's providers
// leave it once it runs, with the status they write (clusterctl moves a Cluster only once its
// infrastructure is provisioned and its control plane initialized, and Machines only once they
// have a Node):
//
//	Cluster c1 ─ DockerCluster c1, DockerMachineTemplate c1-cp
//	├─ KubeadmControlPlane c1 ─ Machine c1-cp-0 ─ DockerMachine c1-cp-0
//	└─ MachineDeployment c1-md ─ MachineSet c1-md-0 ─ Machine c1-md-0-a (not Ready) ─ DockerMachine c1-md-0-a
//	Secret c1-kubeconfig (found by its name and cluster label, as clusterctl finds it)
func newWorkload(t *testing.T, e *envtest.Environment) *workload {
	t.Helper()
	waitForAdmissionPolicies(t, e)
	w := &workload{ns: e.CreateNamespace(t, "clusterctl-workload"), kubeconfig: "apiVersion: v1\nkind: Config\nclusters: []\n"}
	clusterLabels := map[string]string{"cluster.x-k8s.io/cluster-name": "c1"}
	cluster := w.add(t, e, nil, object("cluster.x-k8s.io/v1beta2", "Cluster", "c1", nil, map[string]any{
		"infrastructureRef": ref(infraGroup, "DockerCluster", "c1"),
		"controlPlaneRef":   ref(cpGroup, "KubeadmControlPlane", "c1"),
	}), map[string]any{
		"phase":          "Provisioned",
		"initialization": map[string]any{"infrastructureProvisioned": true, "controlPlaneInitialized": true},
		"conditions": []any{
			condition("Available", "True", "Available", ""),
			condition("ControlPlaneInitialized", "True", "Initialized", ""),
		},
	})
	w.add(t, e, cluster, object("infrastructure.cluster.x-k8s.io/v1beta2", "DockerCluster", "c1", clusterLabels, map[string]any{}),
		map[string]any{"initialization": map[string]any{"provisioned": true}, "conditions": []any{condition("Ready", "True", "Ready", "")}})
	w.add(t, e, cluster, object("infrastructure.cluster.x-k8s.io/v1beta2", "DockerMachineTemplate", "c1-cp", clusterLabels,
		map[string]any{"template": map[string]any{"spec": map[string]any{}}}), nil)
	kcp := w.add(t, e, cluster, object("controlplane.cluster.x-k8s.io/v1beta2", "KubeadmControlPlane", "c1", clusterLabels, map[string]any{
		"version": kubernetesVersion, "replicas": int64(1),
		"machineTemplate": map[string]any{"spec": map[string]any{"infrastructureRef": ref(infraGroup, "DockerMachineTemplate", "c1-cp")}},
	}), map[string]any{
		"replicas": int64(1), "readyReplicas": int64(1), "availableReplicas": int64(1), "upToDateReplicas": int64(1),
		"version": kubernetesVersion, "initialization": map[string]any{"controlPlaneInitialized": true},
		"conditions": []any{condition("Available", "True", "Available", "")},
	})
	w.machine(t, e, kcp, "c1-cp-0", map[string]string{"cluster.x-k8s.io/control-plane": ""}, condition("Ready", "True", "Ready", ""))

	mdLabels := map[string]string{"cluster.x-k8s.io/deployment-name": "c1-md"}
	workers := map[string]any{
		"clusterName": "c1", "replicas": int64(1),
		"selector": map[string]any{"matchLabels": map[string]any{"cluster.x-k8s.io/deployment-name": "c1-md"}},
		"template": map[string]any{
			"metadata": map[string]any{"labels": map[string]any{"cluster.x-k8s.io/deployment-name": "c1-md"}},
			"spec": map[string]any{
				"clusterName": "c1", "version": kubernetesVersion,
				"bootstrap":         map[string]any{"dataSecretName": "c1-md-bootstrap"},
				"infrastructureRef": ref(infraGroup, "DockerMachineTemplate", "c1-cp"),
			},
		},
	}
	md := w.add(t, e, cluster, object("cluster.x-k8s.io/v1beta2", "MachineDeployment", "c1-md", merge(clusterLabels, mdLabels), workers),
		map[string]any{"replicas": int64(1), "readyReplicas": int64(0), "availableReplicas": int64(0), "upToDateReplicas": int64(1),
			"conditions": []any{condition("Available", "False", "NotAvailable", "0 available replicas, at least 1 required")}})
	ms := w.add(t, e, md, object("cluster.x-k8s.io/v1beta2", "MachineSet", "c1-md-0", merge(clusterLabels, mdLabels),
		runtime.DeepCopyJSONValue(workers).(map[string]any)),
		map[string]any{"replicas": int64(1)})
	w.machine(t, e, ms, "c1-md-0-a", mdLabels, condition("Ready", "False", "NotReady", "Node c1-md-0-a is not Ready"))

	secret := object("v1", "Secret", "c1-kubeconfig", clusterLabels, nil)
	secret.Object["type"] = "cluster.x-k8s.io/secret"
	secret.Object["data"] = map[string]any{"value": base64.StdEncoding.EncodeToString([]byte(w.kubeconfig))}
	w.add(t, e, nil, secret, nil)
	return w
}

// waitForAdmissionPolicies waits until e's API server applies the admission policies of
// Capstan's components to the kinds they match. clusterctl init ends once it has created them;
// until the server has loaded them and typed the new kinds, it refuses those kinds with 503
// ("There can be a delay between when CustomResourceDefinitions are created and when they are
// available"). capstanctl init waits for this itself.
func waitForAdmissionPolicies(t *testing.T, e *envtest.Environment) {
	t.Helper()
	objs, err := components.Load(components.All)
	require.NoError(t, err)
	set, err := admissionpolicy.FromUnstructured(objs)
	require.NoError(t, err)
	require.NoError(t, admissionpolicy.WaitInEffect(context.Background(), e.Client, set, admissionpolicy.WaitOptions{Timeout: time.Minute}))
}

// machine adds a Machine of owner with a Node and the given Ready condition, and its DockerMachine.
func (w *workload) machine(t *testing.T, e *envtest.Environment, owner *unstructured.Unstructured, name string, labels map[string]string, ready map[string]any) {
	t.Helper()
	m := w.add(t, e, owner, object("cluster.x-k8s.io/v1beta2", "Machine", name, merge(map[string]string{"cluster.x-k8s.io/cluster-name": "c1"}, labels),
		machineSpec(name)), map[string]any{
		"phase": "Running", "nodeRef": map[string]any{"name": name},
		"initialization": map[string]any{"bootstrapDataSecretCreated": true, "infrastructureProvisioned": true},
		"conditions":     []any{ready},
	})
	w.add(t, e, m, object("infrastructure.cluster.x-k8s.io/v1beta2", "DockerMachine", name, map[string]string{"cluster.x-k8s.io/cluster-name": "c1"},
		map[string]any{"providerID": "docker:////" + name}), map[string]any{"initialization": map[string]any{"provisioned": true}})
}

// add creates obj in w's namespace of e, controlled by owner when not nil, then writes status
// when not nil, as the providers would.
func (w *workload) add(t *testing.T, e *envtest.Environment, owner, obj *unstructured.Unstructured, status map[string]any) *unstructured.Unstructured {
	t.Helper()
	obj.SetNamespace(w.ns)
	if owner != nil {
		obj.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: owner.GetAPIVersion(), Kind: owner.GetKind(), Name: owner.GetName(),
			UID: owner.GetUID(), Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}})
	}
	require.NoError(t, e.Client.Create(context.Background(), obj), "creating %s %s", obj.GetKind(), obj.GetName())
	if status != nil {
		envtest.UpdateStatus(t, e.Client, obj, func() { obj.Object["status"] = runtime.DeepCopyJSONValue(status) })
	}
	w.objs = append(w.objs, obj)
	w.statuses = append(w.statuses, status)
	return obj
}

// writeStatus writes w's status into the copies of its objects in e, as the providers there
// would write it again after a move.
func (w *workload) writeStatus(t *testing.T, e *envtest.Environment) {
	t.Helper()
	for i, status := range w.statuses {
		if status == nil {
			continue
		}
		o := w.objs[i].DeepCopy()
		envtest.UpdateStatus(t, e.Client, o, func() { o.Object["status"] = runtime.DeepCopyJSONValue(status) })
	}
}

// object returns an object with spec (none when nil).
func object(apiVersion, kind, name string, labels map[string]string, spec map[string]any) *unstructured.Unstructured {
	o := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind}}
	o.SetName(name)
	o.SetLabels(labels)
	if spec != nil {
		o.Object["spec"] = spec
	}
	return o
}

func machineSpec(name string) map[string]any {
	return map[string]any{
		"clusterName": "c1", "version": kubernetesVersion,
		"bootstrap":         map[string]any{"dataSecretName": name + "-bootstrap"},
		"infrastructureRef": ref(infraGroup, "DockerMachine", name),
	}
}

func ref(group, kind, name string) map[string]any {
	return map[string]any{"apiGroup": group, "kind": kind, "name": name}
}

func condition(condType, status, reason, message string) map[string]any {
	return map[string]any{"type": condType, "status": status, "reason": reason, "message": message, "lastTransitionTime": since}
}

func merge(a, b map[string]string) map[string]string {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}
