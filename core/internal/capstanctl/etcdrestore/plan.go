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

package etcdrestore

import (
	"context"
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/etcd"
	"capstan.dev/core/internal/capstanctl/etcdsnapshot"
)

// PausedByAnnotation marks a Cluster the restore paused (its value the restore's token), so a
// rerun after an interrupted restore knows the pause is its own and takes it up.
const PausedByAnnotation = "etcd-restore.capstan.dev/paused"

// defaultDataDir is kubeadm's etcd data directory when the ClusterConfiguration names none.
const defaultDataDir = "/var/lib/etcd"

// Options are what `capstanctl etcd restore` was given.
type Options struct {
	Namespace, Name string
	// Snapshot is the snapshot file to restore.
	Snapshot string
	// Image runs the restore on each node; empty means the workload's kube-proxy image.
	Image string
}

// Plan is a checked restore: what will be done, and how the workload cluster is reached.
type Plan struct {
	Target   *etcdsnapshot.Target
	Snapshot string
	Info     etcd.SnapshotInfo
	// Members are the live etcd members, sorted by name (kubeadm names a member after its Node):
	// each is restored in place, under its name and peer URLs.
	Members []etcd.Member
	// DataDir is etcd's data directory on the nodes.
	DataDir string
	Image   string

	workload  *rest.Config
	clientset kubernetes.Interface
	connect   etcd.ConnectFunc
}

// Prepare checks everything a restore needs, cheapest first, and changes nothing: the snapshot
// verifies; the Cluster's control plane is a KubeadmControlPlane with stacked etcd, initialized,
// not paused by someone else, not rolling out, scaling or remediating; the snapshot is of this
// cluster; every etcd member is a control plane Machine's Node and healthy.
func Prepare(ctx context.Context, mgmt client.Reader, o Options) (*Plan, error) {
	info, err := etcd.VerifySnapshot(o.Snapshot)
	if err != nil {
		return nil, fmt.Errorf("--from: %w", err)
	}
	target, err := etcdsnapshot.Resolve(ctx, mgmt, o.Namespace, o.Name)
	if err != nil {
		return nil, err
	}
	key := o.Namespace + "/" + o.Name
	if err := checkPause(target.Cluster); err != nil {
		return nil, err
	}
	if err := checkSteady(target); err != nil {
		return nil, err
	}
	cfg, caCert, caKey, err := etcdsnapshot.Credentials(ctx, mgmt, target.Cluster)
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	if err := checkSameCluster(ctx, cs, o.Snapshot, key); err != nil {
		return nil, err
	}
	p := &Plan{Target: target, Snapshot: o.Snapshot, Info: info, DataDir: dataDir(target.ControlPlane), Image: o.Image,
		workload: cfg, clientset: cs, connect: etcdsnapshot.PortForward(cfg, caCert, caKey)}
	if p.Image == "" {
		if p.Image, err = kubeProxyImage(ctx, cs, key); err != nil {
			return nil, err
		}
	}
	if p.Members, err = healthyMembers(ctx, target.Nodes, p.connect, key); err != nil {
		return nil, err
	}
	return p, nil
}

// checkPause refuses a Cluster paused by anyone but a restore: a restore pauses the Cluster
// itself, and resuming it at the end would undo the user's pause.
func checkPause(c *clusterv1.Cluster) error {
	if c.Spec.Paused != nil && *c.Spec.Paused && c.Annotations[PausedByAnnotation] == "" {
		return fmt.Errorf("cluster %s/%s is paused (spec.paused): a restore pauses the Cluster while etcd is replaced and resumes it afterwards; resume it first ('kubectl patch cluster %s -n %s --type merge -p {\"spec\":{\"paused\":false}}')",
			c.Namespace, c.Name, c.Name, c.Namespace)
	}
	return nil
}

// checkSteady refuses a control plane that is changing: its Machines must all be up to date and
// ready, as many as spec.replicas, none being deleted, and no rollout, scaling or remediation
// under way. A restore in the middle of one would bring back members and Machines the
// controller is replacing.
func checkSteady(t *etcdsnapshot.Target) error {
	kcp := t.ControlPlane
	key := kcp.GetNamespace() + "/" + kcp.GetName()
	replicas, found, _ := unstructured.NestedInt64(kcp.Object, "spec", "replicas")
	if !found {
		replicas = 1
	}
	var busy []string
	for _, field := range []string{"replicas", "readyReplicas", "upToDateReplicas"} {
		if n, _, _ := unstructured.NestedInt64(kcp.Object, "status", field); n != replicas {
			busy = append(busy, fmt.Sprintf("status.%s is %d, spec.replicas %d", field, n, replicas))
		}
	}
	conds, _, _ := unstructured.NestedSlice(kcp.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		switch m["type"] {
		case clusterv1.RollingOutCondition, clusterv1.ScalingUpCondition, clusterv1.ScalingDownCondition, clusterv1.RemediatingCondition:
			if m["status"] == string(metav1.ConditionTrue) {
				busy = append(busy, fmt.Sprintf("%s is True (%v)", m["type"], m["message"]))
			}
		}
	}
	for _, name := range t.Deleting {
		busy = append(busy, "Machine "+name+" is being deleted")
	}
	if len(busy) > 0 {
		return fmt.Errorf("KubeadmControlPlane %s is not steady (%s): a restore now would bring back members and Machines it is replacing; wait until its rollout, scaling or remediation is over ('capstanctl rollout status kubeadmcontrolplane/%s -n %s')",
			key, strings.Join(busy, "; "), kcp.GetName(), kcp.GetNamespace())
	}
	return nil
}

// dataDir is the etcd data directory kubeadm gave the members.
func dataDir(kcp *unstructured.Unstructured) string {
	if d, _, _ := unstructured.NestedString(kcp.Object, "spec", "kubeadmConfigSpec", "clusterConfiguration", "etcd", "local", "dataDir"); d != "" {
		return d
	}
	return defaultDataDir
}

// kubeProxyImage is the image of the workload's kube-proxy DaemonSet: on every node already, and
// on Capstan's node images a Debian base with the shell, tar and gzip the restore script uses.
func kubeProxyImage(ctx context.Context, cs kubernetes.Interface, cluster string) (string, error) {
	ds, err := cs.AppsV1().DaemonSets(metav1.NamespaceSystem).Get(ctx, "kube-proxy", metav1.GetOptions{})
	if err != nil || len(ds.Spec.Template.Spec.Containers) == 0 {
		return "", fmt.Errorf("cluster %s: reading the image of DaemonSet kube-system/kube-proxy, the default --image (%v): pass --image, an image on the control plane nodes with sh, tar and gzip", cluster, err)
	}
	return ds.Spec.Template.Spec.Containers[0].Image, nil
}

// healthyMembers lists the etcd members through a healthy one and checks each is a control
// plane Machine's Node and healthy itself: every member is restored, so every one must be
// reachable now.
func healthyMembers(ctx context.Context, nodes []string, connect etcd.ConnectFunc, cluster string) ([]etcd.Member, error) {
	first, err := etcd.ChooseFollower(ctx, nodes, connect)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: %w", cluster, err)
	}
	members, err := first.Client.Members(ctx)
	first.Client.Close()
	if err != nil {
		return nil, fmt.Errorf("cluster %s: listing the etcd members: %w", cluster, err)
	}
	sort.Slice(members, func(i, j int) bool { return members[i].Name < members[j].Name })
	isNode := map[string]bool{}
	for _, n := range nodes {
		isNode[n] = true
	}
	var problems []string
	for _, m := range members {
		if !isNode[m.Name] {
			problems = append(problems, fmt.Sprintf("member %s (%x) is no control plane Machine's Node", m.Name, m.ID))
			continue
		}
		delete(isNode, m.Name)
		healthy, err := etcd.ChooseFollower(ctx, []string{m.Name}, connect)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		healthy.Client.Close()
	}
	for n := range isNode {
		problems = append(problems, "Node "+n+" has no etcd member")
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return nil, fmt.Errorf("cluster %s: every etcd member must be a healthy control plane Node to be restored in place: %s", cluster, strings.Join(problems, "; "))
	}
	return members, nil
}
