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

package kubeadmcontrolplane

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/etcd"
	"capstan.dev/contracts/kcprollout"
	"capstan.dev/contracts/secret"
)

// EtcdClientFunc opens a client to the etcd of cluster through the member on node nodeName.
type EtcdClientFunc func(ctx context.Context, cluster *clusterv1.Cluster, nodeName string) (etcd.Client, error)

// etcdResult is what reading the etcd members found.
type etcdResult struct {
	members []etcd.Member // sorted by name, then ID
	via     string        // the node whose etcd Pod answered
	err     error         // no member could be reached or listed
	// unhealthy says, by memberKey, why a member is not healthy; a healthy member is absent.
	unhealthy map[string]string
}

// memberHealthy reports whether the member named name is listed and healthy, and why not.
func (e *etcdResult) memberHealthy(name string) (bool, string) {
	mem, ok := e.memberNamed(name)
	if !ok {
		return false, fmt.Sprintf("etcd has no member named %s", name)
	}
	if why, sick := e.unhealthy[memberKey(mem)]; sick {
		return false, fmt.Sprintf("etcd member %s (%x) is not healthy: %s", name, mem.ID, why)
	}
	return true, ""
}

// memberNamed returns the member whose name is name.
func (e *etcdResult) memberNamed(name string) (etcd.Member, bool) {
	for _, m := range e.members {
		if m.Name == name {
			return m, true
		}
	}
	return etcd.Member{}, false
}

// etcdPlan is the member reconciliation's decision for one pass.
type etcdPlan struct {
	// wait names the Machines without a nodeRef: the expected members are not all known yet.
	wait []*clusterv1.Machine
	// unexpected are the named members no Machine's nodeRef names, sorted.
	unexpected []etcd.Member
	// remove is the one unexpected member to remove in this pass, if any.
	remove *etcd.Member
	// blocked says why an unexpected member is not removed.
	blocked string
	// missing are the Machines (not being deleted) with a nodeRef but no member of that name.
	missing []*clusterv1.Machine
}

// planEtcdMembers decides the member reconciliation, as upstream does since #3971: the expected
// members are the nodeRef names of the KubeadmControlPlane's Machines (a NodeRef on a Machine it
// controls proves the Node is a control plane node, whatever its labels say). While a Machine
// that is not being deleted lacks a nodeRef nothing is removed: its member may be the one that
// looks unexpected. Members without a name (added, not started: a join in progress) are left
// alone. At most one unexpected member is removed per pass, never the last one, and only when
// the members backed by a Machine keep the quorum of the smaller cluster.
func planEtcdMembers(machines []*clusterv1.Machine, members []etcd.Member) etcdPlan {
	var p etcdPlan
	expected := map[string]bool{}
	for _, m := range machines {
		switch {
		case hasNode(m):
			expected[m.Status.NodeRef.Name] = true
		case !deleting(m):
			p.wait = append(p.wait, m)
		}
	}
	present := map[string]bool{}
	backed := 0
	for _, mem := range members {
		present[mem.Name] = true
		switch {
		case mem.Name == "":
		case expected[mem.Name]:
			backed++
		default:
			p.unexpected = append(p.unexpected, mem)
		}
	}
	sort.Slice(p.unexpected, func(i, j int) bool {
		a, b := p.unexpected[i], p.unexpected[j]
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.ID < b.ID
	})
	for _, m := range machines {
		if hasNode(m) && !deleting(m) && !present[m.Status.NodeRef.Name] {
			p.missing = append(p.missing, m)
		}
	}
	switch {
	case len(p.unexpected) == 0:
	case len(p.wait) > 0:
		p.blocked = fmt.Sprintf("waiting for %s to have a nodeRef before removing any member", machineNames(p.wait))
	case len(members) <= 1:
		p.blocked = "it is the last member"
	case backed < kcprollout.Quorum(len(members)-1):
		p.blocked = fmt.Sprintf("only %d of %d members belong to a Machine, fewer than the %d the remaining cluster needs for quorum: restore the Machines' etcd members or the cluster from a backup",
			backed, len(members), kcprollout.Quorum(len(members)-1))
	default:
		p.remove = &p.unexpected[0]
	}
	return p
}

// reconcileEtcdMembers reads the members through one of the Machines' etcd Pods and removes
// at most one member that no Machine accounts for. What it finds goes to the scope for the
// health conditions and the preflight checks.
func (r *Reconciler) reconcileEtcdMembers(ctx context.Context, s *scope) (ctrl.Result, error) {
	c, err := r.etcdClient(ctx, s, "")
	if err != nil {
		s.etcd = &etcdResult{err: err}
		return ctrl.Result{RequeueAfter: r.WaitRequeue}, nil
	}
	members, err := c.Members(ctx)
	if err != nil {
		s.etcd = &etcdResult{err: err, via: s.etcdVia}
		return ctrl.Result{RequeueAfter: r.WaitRequeue}, nil
	}
	sortMembers(members)
	s.etcd = &etcdResult{members: members, via: s.etcdVia, unhealthy: r.checkMembersHealth(ctx, s, c, members)}
	plan := planEtcdMembers(s.machines, members)
	if plan.remove != nil {
		what := fmt.Sprintf("Removing etcd member %s", memberKey(*plan.remove))
		if why := etcdRemovalBlocked(s.etcd, *plan.remove, what, nil); why != "" {
			plan.blocked, plan.remove = why, nil
		}
	}
	s.etcdPlan = &plan
	if plan.remove == nil {
		if len(plan.wait) > 0 || len(plan.unexpected) > 0 || len(plan.missing) > 0 {
			return ctrl.Result{RequeueAfter: r.WaitRequeue}, nil // nothing watches etcd: look again
		}
		return ctrl.Result{}, nil
	}
	mem := *plan.remove
	ctrl.LoggerFrom(ctx).Info("Removing an etcd member no Machine accounts for", "member", mem.Name, "memberID", fmt.Sprintf("%x", mem.ID))
	if err := c.RemoveMember(ctx, mem.ID); err != nil && !errors.Is(err, etcd.ErrMemberNotFound) {
		plan.blocked = fmt.Sprintf("removing member %s failed: %v", mem.Name, err)
		plan.remove = nil
		return ctrl.Result{RequeueAfter: r.WaitRequeue}, nil
	}
	s.etcdRemoved = mem.Name
	r.recordEtcdMemberRemoved(s, nil, mem.Name)
	return ctrl.Result{RequeueAfter: r.WaitRequeue}, nil // the next pass checks the result and the next member
}

func sortMembers(members []etcd.Member) {
	sort.Slice(members, func(i, j int) bool {
		if members[i].Name != members[j].Name {
			return members[i].Name < members[j].Name
		}
		return members[i].ID < members[j].ID
	})
}

// etcdClient returns the reconcile's etcd client, opening one through the first Machine (by
// name) with a Node that is not being deleted and whose node is not exclude, trying the next
// when one cannot be dialled or its member does not answer. The client is closed when the reconcile ends.
func (r *Reconciler) etcdClient(ctx context.Context, s *scope, exclude string) (etcd.Client, error) {
	if s.etcdConn != nil && s.etcdVia != exclude {
		return s.etcdConn, nil
	}
	var errs []error
	for _, m := range s.machines {
		node := m.Status.NodeRef.Name
		if !hasNode(m) || deleting(m) || node == exclude {
			continue
		}
		c, err := r.EtcdClientFor(ctx, s.cluster, node)
		if err == nil {
			// A member that does not answer for itself (crash-looping behind a Pod that still
			// accepts the port-forward) is passed over, as upstream's client generator does.
			if _, err = c.Status(ctx); err != nil {
				c.Close()
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("through Pod %s/%s: %w", metav1.NamespaceSystem, etcd.PodName(node), err))
			continue
		}
		if s.etcdConn != nil {
			s.etcdConn.Close()
		}
		s.etcdConn, s.etcdVia = c, node
		return c, nil
	}
	if len(errs) == 0 {
		return nil, errors.New("no control plane Machine with a Node to reach etcd through")
	}
	return nil, fmt.Errorf("connecting to etcd: %w", errors.Join(errs...))
}

// realEtcdClient reaches the member on nodeName through the workload API server: a port-forward
// to Pod kube-system/etcd-<node>:2379, with a client certificate signed by <cluster>-etcd.
func (r *Reconciler) realEtcdClient(ctx context.Context, cluster *clusterv1.Cluster, nodeName string) (etcd.Client, error) {
	key := client.ObjectKeyFromObject(cluster)
	cfg, err := r.Workload.GetRESTConfig(ctx, key)
	if err != nil {
		return nil, err
	}
	sec := &corev1.Secret{}
	secKey := client.ObjectKey{Namespace: cluster.Namespace, Name: secret.Name(cluster.Name, secret.EtcdCA)}
	if err := r.APIReader.Get(ctx, secKey, sec); err != nil {
		return nil, fmt.Errorf("reading Secret %s: %w", secKey, err)
	}
	return etcd.DialPod(ctx, cfg, sec.Data[secret.TLSCrtDataName], sec.Data[secret.TLSKeyDataName], nodeName, r.Now())
}

// membersMessage lists member names for messages.
func membersMessage(members []etcd.Member) string {
	names := make([]string, 0, len(members))
	for _, m := range members {
		names = append(names, fmt.Sprintf("%s (%x)", m.Name, m.ID))
	}
	return strings.Join(names, ", ")
}

// etcdManaged reports whether etcd runs stacked on the control plane Machines, so that the
// controller reconciles its members and guards its quorum; with clusterConfiguration.etcd.external
// it does neither, as upstream.
func (s *scope) etcdManaged() bool { return etcdManaged(s.kcp) }

func etcdManaged(kcp *controlplanev1.KubeadmControlPlane) bool {
	return !kcp.Spec.KubeadmConfigSpec.ClusterConfiguration.Etcd.External.IsDefined()
}
