package machinepool

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/core/internal/coretest"
)

// TestMachinePool_NodesLoseTheUninitializedTaintAndFollowTheTemplatesTaints: the bootstrap
// provider registers every worker with node.cluster.x-k8s.io/uninitialized; a pool's Node has no
// Machine, so the pool removes it (before, it stayed forever and nothing without a toleration was
// scheduled there). The template's taints are propagated as a Machine's are: Always ones follow
// the template, OnInitialization ones are added once, and taints the pool never listed stay.
func TestMachinePool_NodesLoseTheUninitializedTaintAndFollowTheTemplatesTaints(t *testing.T) {
	f := newFixture(t)
	p := f.newPool("tainted", 1)
	always, onInit := clusterv1.MachineTaintPropagationAlways, clusterv1.MachineTaintPropagationOnInitialization
	f.setTemplateTaints(p, poolTaint("gpu", "true", always), poolTaint("init", "", onInit))
	coretest.SetStatus(t, env, p.bootstrap, map[string]any{"initialization.dataSecretCreated": true, "dataSecretName": "data"})
	foreign := corev1.Taint{Key: "example.com/maintenance", Effect: corev1.TaintEffectNoExecute}
	f.createNode("t-1", corev1.ConditionTrue)
	f.setNodeTaints("t-1", clusterv1.NodeUninitializedTaint, foreign)
	f.setInstances(p, "t-1")

	f.waitNodeTaints("t-1", "gpu:NoSchedule", foreign, plainTaint("gpu", "true"), plainTaint("init", ""))

	f.setTemplateTaints(p, poolTaint("gpu", "false", always))
	f.waitNodeTaints("t-1", "gpu:NoSchedule", foreign, plainTaint("gpu", "false"), plainTaint("init", ""))

	// An Always taint someone removed from the Node comes back.
	f.setNodeTaints("t-1", foreign, plainTaint("init", ""))
	f.waitNodeTaints("t-1", "gpu:NoSchedule", foreign, plainTaint("init", ""), plainTaint("gpu", "false"))

	f.setTemplateTaints(p)
	f.waitNodeTaints("t-1", "", foreign, plainTaint("init", ""))
}

func poolTaint(key, value string, p clusterv1.MachineTaintPropagation) clusterv1.MachineTaint {
	return clusterv1.MachineTaint{Key: key, Value: value, Effect: corev1.TaintEffectNoSchedule, Propagation: p}
}

func plainTaint(key, value string) corev1.Taint {
	return corev1.Taint{Key: key, Value: value, Effect: corev1.TaintEffectNoSchedule}
}

// setTemplateTaints writes the pool's spec.template.spec.taints, as a user would.
func (f *fixture) setTemplateTaints(p *pool, taints ...clusterv1.MachineTaint) {
	f.t.Helper()
	envtest.WaitFor(f.t, timeout, "the template taints of "+p.mp.Name, func() (bool, error) {
		cur, err := f.getPool(p)
		if err != nil {
			return false, err
		}
		cur.Spec.Template.Spec.Taints = taints
		return true, env.Client.Update(f.ctx, cur)
	})
}

// setNodeTaints replaces an instance Node's taints, as the kubelet at registration or an
// operator would.
func (f *fixture) setNodeTaints(instance string, taints ...corev1.Taint) {
	f.t.Helper()
	envtest.WaitFor(f.t, timeout, "the taints of Node "+f.nodeName(instance), func() (bool, error) {
		n := &corev1.Node{}
		if err := env.Client.Get(f.ctx, client.ObjectKey{Name: f.nodeName(instance)}, n); err != nil {
			return false, err
		}
		n.Spec.Taints = taints
		return true, env.Client.Update(f.ctx, n)
	})
}

// waitNodeTaints waits until an instance Node has exactly the taints want (in any order) and
// records the propagated Always taints as recorded.
func (f *fixture) waitNodeTaints(instance, recorded string, want ...corev1.Taint) {
	f.t.Helper()
	envtest.WaitFor(f.t, timeout, fmt.Sprintf("Node %s tainted %v", f.nodeName(instance), want), func() (bool, error) {
		n := &corev1.Node{}
		if err := env.Client.Get(f.ctx, client.ObjectKey{Name: f.nodeName(instance)}, n); err != nil {
			return false, err
		}
		got, ok := n.Annotations[clusterv1.TaintsFromMachineAnnotation]
		return ok && got == recorded && sameTaints(n.Spec.Taints, want), nil
	})
}

func sameTaints(a, b []corev1.Taint) bool {
	if len(a) != len(b) {
		return false
	}
	for _, t := range b {
		found := false
		for _, u := range a {
			found = found || (u.MatchTaint(&t) && u.Value == t.Value)
		}
		if !found {
			return false
		}
	}
	return true
}
