package editplan

import (
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/kcprollout"
)

// etcdMemberHealthyCondition is the KubeadmControlPlane controller's per-Machine etcd member
// condition (upstream's name; its constant lives in the bootstrap-kubeadm module).
const etcdMemberHealthyCondition = "EtcdMemberHealthy"

// kcpSim is a KubeadmControlPlane's Machines as the simulation moves them.
type kcpSim struct {
	machines []*clusterv1.Machine
	// outdated is why each outdated Machine is, by name; new Machines are never outdated.
	outdated          map[string]string
	domains           []string
	desired, maxSurge int
	stacked           bool
}

func (s *kcpSim) isOutdated(m *clusterv1.Machine) bool { return s.outdated[m.Name] != "" }

// run takes the controller's decisions (kcprollout.Decide, SelectForScaleDown,
// FailureDomainForScaleUp) until there is none left: each step adds or removes one Machine,
// once the previous step's Machine has joined or gone, as the controller's preflight waits.
func (s *kcpSim) run(now time.Time) rollout {
	var out rollout
	for i := range 2*(len(s.machines)+s.desired) + 4 {
		switch kcprollout.Decide(len(s.machines), s.desired, s.maxSurge, slices.ContainsFunc(s.machines, s.isOutdated)) {
		case kcprollout.None:
			return out
		case kcprollout.ScaleUp:
			var upToDate []*clusterv1.Machine
			for _, m := range s.machines {
				if !s.isOutdated(m) {
					upToDate = append(upToDate, m)
				}
			}
			m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Name: newMachineName, CreationTimestamp: metav1.NewTime(now.Add(time.Duration(i+1) * time.Second))},
				Spec: clusterv1.MachineSpec{FailureDomain: kcprollout.FailureDomainForScaleUp(s.domains, upToDate)}}
			s.machines = append(s.machines, m)
			step := Step{Create: 1}
			if len(s.machines) > s.desired {
				step.Surge = 1
			}
			out.created++
			out.steps = append(out.steps, s.withEtcd(step))
		case kcprollout.ScaleDown:
			chosen := kcprollout.SelectForScaleDown(s.machines, s.isOutdated, s.domains)
			s.machines = slices.DeleteFunc(s.machines, func(m *clusterv1.Machine) bool { return m == chosen })
			if s.isOutdated(chosen) {
				out.replaced = append(out.replaced, chosen.Name)
			} else {
				out.removed = append(out.removed, chosen.Name)
			}
			out.steps = append(out.steps, s.withEtcd(Step{Delete: []string{chosen.Name}}))
		}
	}
	out.stuck = true
	return out
}

// withEtcd adds the etcd members and quorum after the step, with stacked etcd: one member per
// Machine (a deleted Machine's member goes at its pre-terminate hook, before the Machine is gone).
func (s *kcpSim) withEtcd(step Step) Step {
	if s.stacked {
		step.EtcdMembers = len(s.machines)
		step.EtcdQuorum = kcprollout.Quorum(len(s.machines))
	}
	return step
}

// quorumNotes warns about the steps after which etcd tolerates fewer failed members than it
// does today, with members today (none with two members, or with maxSurge 0 below the spec's
// count).
func (s *kcpSim) quorumNotes(today int, steps []Step) []string {
	if !s.stacked {
		return nil
	}
	tolerates := func(n int) int { return n - kcprollout.Quorum(n) }
	var out []string
	for i, st := range steps {
		if st.EtcdMembers > 0 && tolerates(st.EtcdMembers) < tolerates(today) {
			out = append(out, fmt.Sprintf("after step %d etcd has %d members (quorum %d) and tolerates %d failed member(s), %d today: a member lost then stops the control plane's API",
				i+1, st.EtcdMembers, st.EtcdQuorum, tolerates(st.EtcdMembers), tolerates(today)))
		}
	}
	return out
}

// etcdHealthNotes names the Machines whose etcd member the controller reports unhealthy: it
// takes no step while another Machine's member is (its preflight).
func etcdHealthNotes(machines []*clusterv1.Machine) []string {
	var out []string
	for _, m := range machines {
		if !m.Status.NodeRef.IsDefined() || !m.DeletionTimestamp.IsZero() {
			continue
		}
		if c := conditions.Get(m, etcdMemberHealthyCondition); c != nil && c.Status != metav1.ConditionTrue {
			out = append(out, fmt.Sprintf("the etcd member of Machine %s is not healthy now (%s: %s): the controller takes no step while it is not",
				m.Name, c.Reason, c.Message))
		}
	}
	return out
}
