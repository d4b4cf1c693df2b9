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

package dashboardpicture

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

var (
	//go:embed fleet.yaml
	fleetYAML string
	//go:embed steps.yaml
	stepsYAML string
)

// machine is one Machine of the fleet: its Cluster, its control plane (none for a worker), the
// phase and the EtcdMemberHealthy status of a control plane Machine.
type machine struct {
	namespace, name, cluster, controlPlane, phase, etcd string
}

// machines are the fleet's Machines; the panels count them by phase, age and etcd health.
var machines = []machine{
	{"team-a", "prod-eu-cp-1", "prod-eu", "prod-eu-cp", "Running", "True"},
	{"team-a", "prod-eu-cp-2", "prod-eu", "prod-eu-cp", "Running", "True"},
	{"team-a", "prod-eu-cp-3", "prod-eu", "prod-eu-cp", "Running", "True"},
	{"team-a", "prod-eu-md-0-a", "prod-eu", "", "Running", ""},
	{"team-a", "prod-eu-md-0-b", "prod-eu", "", "Running", ""},
	{"team-a", "prod-eu-md-0-c", "prod-eu", "", "Running", ""},
	{"team-a", "prod-us-cp-1", "prod-us", "prod-us-cp", "Running", "True"},
	{"team-a", "prod-us-cp-2", "prod-us", "prod-us-cp", "Running", "True"},
	{"team-a", "prod-us-cp-3", "prod-us", "prod-us-cp", "Running", "True"},
	{"team-a", "prod-us-cp-4", "prod-us", "prod-us-cp", "Provisioning", "Unknown"},
	{"team-a", "prod-us-md-0-a", "prod-us", "", "Running", ""},
	{"team-a", "prod-us-md-0-b", "prod-us", "", "Running", ""},
	{"team-a", "prod-us-md-0-c", "prod-us", "", "Running", ""},
	{"team-a", "prod-us-md-0-d", "prod-us", "", "Running", ""},
	{"team-a", "prod-us-md-0-e", "prod-us", "", "Provisioning", ""},
	{"team-b", "staging-cp-1", "staging", "staging-cp", "Provisioning", "Unknown"},
	{"team-b", "staging-md-0-a", "staging", "", "Pending", ""},
	{"team-b", "staging-md-0-b", "staging", "", "Pending", ""},
	{"team-b", "legacy-cp-1", "legacy", "legacy-cp", "Deleting", "False"},
	{"team-b", "legacy-md-0-a", "legacy", "", "Deleting", ""},
}

// object is the Machine as the API takes it, with the status to write after the create.
func (m machine) object(now string) *unstructured.Unstructured {
	labels := map[string]any{"cluster.x-k8s.io/cluster-name": m.cluster}
	infra := "md"
	if m.controlPlane != "" {
		labels["cluster.x-k8s.io/control-plane-name"] = m.controlPlane
		infra = "cp"
	}
	status := map[string]any{"phase": m.phase}
	if m.etcd != "" {
		status["conditions"] = []any{map[string]any{"type": "EtcdMemberHealthy", "status": m.etcd, "reason": "Healthy",
			"lastTransitionTime": now, "message": ""}}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Machine",
		"metadata": map[string]any{"name": m.name, "namespace": m.namespace, "labels": labels,
			"finalizers": []any{"machine.cluster.x-k8s.io"}},
		"spec": map[string]any{"clusterName": m.cluster, "version": "v1.37.2",
			"bootstrap":         map[string]any{"configRef": map[string]any{"apiGroup": "bootstrap.cluster.x-k8s.io", "kind": "KubeadmConfig", "name": m.name}},
			"infrastructureRef": map[string]any{"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DockerMachine", "name": m.name + "-" + infra}},
		"status": status,
	}}
}

// fleetObjects returns the fleet's objects, Clusters first (the control planes' owners).
func fleetObjects(now string) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split(strings.ReplaceAll(fleetYAML, "TIME", now), "\n---\n") {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
			return nil, fmt.Errorf("parsing fleet.yaml: %w", err)
		}
		out = append(out, obj)
	}
	for _, m := range machines {
		out = append(out, m.object(now))
	}
	return out, nil
}

// createFleet creates every object and writes its status.
func createFleet(ctx context.Context, c client.Client, now string) error {
	objs, err := fleetObjects(now)
	if err != nil {
		return err
	}
	clusters := map[string]types.UID{}
	for _, ns := range []string{"team-a", "team-b"} {
		nsObj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}
		if err := c.Create(ctx, nsObj); err != nil {
			return fmt.Errorf("creating namespace %s: %w", ns, err)
		}
	}
	for _, obj := range objs {
		status := obj.Object["status"]
		delete(obj.Object, "status")
		if obj.GetKind() == "KubeadmControlPlane" { // as the topology or a user's Cluster sets it
			cluster := obj.GetLabels()["cluster.x-k8s.io/cluster-name"]
			obj.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "cluster.x-k8s.io/v1beta2", Kind: "Cluster",
				Name: cluster, UID: clusters[obj.GetNamespace()+"/"+cluster], Controller: ptr.To(true)}})
		}
		if err := c.Create(ctx, obj); err != nil {
			return fmt.Errorf("creating %s %s/%s: %w", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
		}
		if obj.GetKind() == "Cluster" {
			clusters[obj.GetNamespace()+"/"+obj.GetName()] = obj.GetUID()
		}
		if err := writeStatus(ctx, c, obj, status); err != nil {
			return err
		}
	}
	return nil
}

// writeStatus merges status into obj's through the status subresource; an object it puts in
// phase Deleting is then deleted (its finalizer keeps it, with a deletionTimestamp).
func writeStatus(ctx context.Context, c client.Client, obj *unstructured.Unstructured, status any) error {
	patch, err := json.Marshal(map[string]any{"status": status})
	if err != nil {
		return err
	}
	if err := c.Status().Patch(ctx, obj, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("writing the status of %s %s/%s: %w", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
	}
	if phase, _, _ := unstructured.NestedString(obj.Object, "status", "phase"); phase == "Deleting" && obj.GetDeletionTimestamp() == nil {
		if err := c.Delete(ctx, obj); err != nil {
			return fmt.Errorf("deleting %s %s/%s: %w", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
		}
	}
	return nil
}

// step is one change of steps.yaml.
type step struct {
	Name        string `json:"name"`
	VisibleWhen string `json:"visibleWhen"`
	Patches     []struct {
		Kind      string `json:"kind"`
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
		Status    any    `json:"status"`
	} `json:"patches"`
}

func loadSteps(now string) ([]step, error) {
	var steps []step
	if err := yaml.UnmarshalStrict([]byte(strings.ReplaceAll(stepsYAML, "TIME", now)), &steps); err != nil {
		return nil, fmt.Errorf("parsing steps.yaml: %w", err)
	}
	return steps, nil
}

// applyStep writes a step's statuses; apiVersions maps a kind to the version the fleet uses.
func applyStep(ctx context.Context, c client.Client, s step, apiVersions map[string]string) error {
	for _, p := range s.Patches {
		obj := &unstructured.Unstructured{}
		obj.SetAPIVersion(apiVersions[p.Kind])
		obj.SetKind(p.Kind)
		if err := c.Get(ctx, client.ObjectKey{Namespace: p.Namespace, Name: p.Name}, obj); err != nil {
			return fmt.Errorf("step %q: reading %s %s/%s: %w", s.Name, p.Kind, p.Namespace, p.Name, err)
		}
		if err := writeStatus(ctx, c, obj, p.Status); err != nil {
			return fmt.Errorf("step %q: %w", s.Name, err)
		}
	}
	return nil
}

// timestamp is the conditions' lastTransitionTime for a moment.
func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
