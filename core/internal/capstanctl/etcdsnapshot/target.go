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

package etcdsnapshot

import (
	"context"
	"errors"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/remote"
	"capstan.dev/contracts/secret"
	"capstan.dev/core/internal/capstanctl/clusterclient"
)

// KubeadmControlPlaneGVK is the one control plane kind whose etcd this command reaches.
var KubeadmControlPlaneGVK = schema.GroupVersionKind{Group: "controlplane.cluster.x-k8s.io", Version: "v1beta2", Kind: "KubeadmControlPlane"}

// externalEtcdField is where a KubeadmControlPlane names an external etcd.
var externalEtcdField = []string{"spec", "kubeadmConfigSpec", "clusterConfiguration", "etcd", "external"}

// Target is a cluster whose etcd can be snapshotted: checked, with what reaching it needs.
type Target struct {
	Cluster *clusterv1.Cluster
	// ControlPlane is the Cluster's KubeadmControlPlane, as read.
	ControlPlane *unstructured.Unstructured
	// Nodes are the Node names of the control plane Machines that have one and are not being
	// deleted, sorted by Machine name: the etcd members to try.
	Nodes []string
	// Deleting are the names of the control plane Machines being deleted, sorted.
	Deleting []string
}

// Resolve reads the Cluster namespace/name and refuses one whose etcd this command cannot
// snapshot. It reads; it changes nothing.
func Resolve(ctx context.Context, c client.Reader, namespace, name string) (*Target, error) {
	cluster, err := clusterclient.GetCluster(ctx, c, namespace, name)
	if err != nil {
		return nil, err
	}
	key := fmt.Sprintf("%s/%s", namespace, name)
	ref := cluster.Spec.ControlPlaneRef
	switch {
	case !ref.IsDefined():
		return nil, fmt.Errorf("cluster %s has no spec.controlPlaneRef: only a KubeadmControlPlane's stacked etcd can be snapshotted", key)
	case ref.Kind != KubeadmControlPlaneGVK.Kind || ref.APIGroup != KubeadmControlPlaneGVK.Group:
		return nil, fmt.Errorf("cluster %s's control plane is a %s (%s): only a KubeadmControlPlane's stacked etcd can be snapshotted; back up that control plane's etcd with its provider's tools",
			key, ref.Kind, ref.APIGroup)
	}
	kcp := &unstructured.Unstructured{}
	kcp.SetGroupVersionKind(KubeadmControlPlaneGVK)
	kcpKey := client.ObjectKey{Namespace: namespace, Name: ref.Name}
	if err := c.Get(ctx, kcpKey, kcp); err != nil {
		return nil, clusterclient.Explain(err, fmt.Sprintf("KubeadmControlPlane %s of cluster %s", kcpKey, key))
	}
	if ext, found, _ := unstructured.NestedMap(kcp.Object, externalEtcdField...); found && len(ext) > 0 {
		return nil, fmt.Errorf("KubeadmControlPlane %s uses an external etcd (spec.kubeadmConfigSpec.clusterConfiguration.etcd.external): Capstan does not reach it; back up the external etcd with its own tools (etcdctl snapshot save)", kcpKey)
	}
	initialized, err := contract.ControlPlane().Initialized(contract.V1Beta2).Get(kcp)
	if err != nil && !errors.Is(err, contract.ErrFieldNotFound) {
		return nil, fmt.Errorf("reading KubeadmControlPlane %s: %w", kcpKey, err)
	}
	if initialized == nil || !*initialized {
		return nil, fmt.Errorf("KubeadmControlPlane %s is not initialized (status.initialization.controlPlaneInitialized is not true): its etcd has nothing to snapshot yet; wait for 'capstanctl describe cluster %s -n %s' to show the control plane up",
			kcpKey, name, namespace)
	}
	nodes, deletingMachines, err := controlPlaneNodes(ctx, c, cluster)
	if err != nil {
		return nil, err
	}
	return &Target{Cluster: cluster, ControlPlane: kcp, Nodes: nodes, Deleting: deletingMachines}, nil
}

// controlPlaneNodes lists the Node names of the Cluster's control plane Machines that have one
// and are not being deleted, by Machine name.
func controlPlaneNodes(ctx context.Context, c client.Reader, cluster *clusterv1.Cluster) (nodes, deletingMachines []string, err error) {
	machines := &clusterv1.MachineList{}
	if err := c.List(ctx, machines, client.InNamespace(cluster.Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: cluster.Name},
		client.HasLabels{clusterv1.MachineControlPlaneLabel}); err != nil {
		return nil, nil, clusterclient.Explain(err, fmt.Sprintf("the control plane Machines of cluster %s/%s", cluster.Namespace, cluster.Name))
	}
	sort.Slice(machines.Items, func(i, j int) bool { return machines.Items[i].Name < machines.Items[j].Name })
	for _, m := range machines.Items {
		switch {
		case !m.DeletionTimestamp.IsZero():
			deletingMachines = append(deletingMachines, m.Name)
		case m.Status.NodeRef.Name != "":
			nodes = append(nodes, m.Status.NodeRef.Name)
		}
	}
	if len(nodes) == 0 {
		return nil, nil, fmt.Errorf("cluster %s/%s has no control plane Machine with a Node that is not being deleted: no etcd member to snapshot", cluster.Namespace, cluster.Name)
	}
	return nodes, deletingMachines, nil
}

// Credentials reads what reaching the workload cluster's etcd needs: the REST config of
// Secret <cluster>-kubeconfig (key value) and the etcd CA of Secret <cluster>-etcd (tls.crt,
// tls.key).
func Credentials(ctx context.Context, c client.Reader, cluster *clusterv1.Cluster) (*rest.Config, []byte, []byte, error) {
	key := client.ObjectKeyFromObject(cluster)
	kubeconfig, err := secretData(ctx, c, cluster, secret.Kubeconfig, secret.KubeconfigDataName)
	if err != nil {
		return nil, nil, nil, err
	}
	cfg, err := remote.RESTConfigFromKubeconfig(key, kubeconfig[0])
	if err != nil {
		return nil, nil, nil, err
	}
	ca, err := secretData(ctx, c, cluster, secret.EtcdCA, secret.TLSCrtDataName, secret.TLSKeyDataName)
	if err != nil {
		return nil, nil, nil, err
	}
	return cfg, ca[0], ca[1], nil
}

// secretData reads the keys of Secret <cluster>-<purpose>, each of which must hold data.
func secretData(ctx context.Context, c client.Reader, cluster *clusterv1.Cluster, p secret.Purpose, keys ...string) ([][]byte, error) {
	s := &corev1.Secret{}
	key := client.ObjectKey{Namespace: cluster.Namespace, Name: secret.Name(cluster.Name, p)}
	if err := c.Get(ctx, key, s); err != nil {
		return nil, clusterclient.Explain(err, "Secret "+key.String())
	}
	out := make([][]byte, 0, len(keys))
	for _, k := range keys {
		if len(s.Data[k]) == 0 {
			return nil, fmt.Errorf("Secret %s has no data under key %q: the control plane provider writes it; is the cluster's control plane up?", key, k)
		}
		out = append(out, s.Data[k])
	}
	return out, nil
}
