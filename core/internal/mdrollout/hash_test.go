package mdrollout

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

func template() *clusterv1.MachineTemplateSpec {
	return &clusterv1.MachineTemplateSpec{
		ObjectMeta: clusterv1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec: clusterv1.MachineSpec{
			ClusterName: "c1",
			Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: "bootstrap.cluster.x-k8s.io", Kind: "GenericBootstrapConfigTemplate", Name: "b",
			}},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "GenericInfrastructureMachineTemplate", Name: "i",
			},
			Version: "v1.37.2",
		},
	}
}

func TestTemplateHash_ChangesOnlyWithRolloutFields(t *testing.T) {
	base := TemplateHash(template())
	require.Equal(t, base, TemplateHash(template()), "stable")
	require.Empty(t, validation.IsValidLabelValue(base), "usable as a label value")
	require.LessOrEqual(t, len(base), 10)

	inPlace := map[string]func(*clusterv1.MachineTemplateSpec){
		"labels":          func(t *clusterv1.MachineTemplateSpec) { t.Labels["tier"] = "x" },
		"annotations":     func(t *clusterv1.MachineTemplateSpec) { t.Annotations = map[string]string{"a": "b"} },
		"minReadySeconds": func(t *clusterv1.MachineTemplateSpec) { t.Spec.MinReadySeconds = ptr.To[int32](10) },
		"readinessGates": func(t *clusterv1.MachineTemplateSpec) {
			t.Spec.ReadinessGates = []clusterv1.MachineReadinessGate{{ConditionType: "X"}}
		},
		"deletion": func(t *clusterv1.MachineTemplateSpec) {
			t.Spec.Deletion.NodeDrainTimeoutSeconds = ptr.To[int32](60)
		},
		"taints": func(t *clusterv1.MachineTemplateSpec) {
			t.Spec.Taints = []clusterv1.MachineTaint{{Key: "gpu", Effect: corev1.TaintEffectNoSchedule, Propagation: clusterv1.MachineTaintPropagationAlways}}
		},
	}
	for name, change := range inPlace {
		tmpl := template()
		change(tmpl)
		require.Equal(t, base, TemplateHash(tmpl), "%s changes in place, not by rollout", name)
	}

	rollout := map[string]func(*clusterv1.MachineTemplateSpec){
		"version":        func(t *clusterv1.MachineTemplateSpec) { t.Spec.Version = "v1.37.3" },
		"infrastructure": func(t *clusterv1.MachineTemplateSpec) { t.Spec.InfrastructureRef.Name = "i2" },
		"bootstrap":      func(t *clusterv1.MachineTemplateSpec) { t.Spec.Bootstrap.ConfigRef.Name = "b2" },
		"failureDomain":  func(t *clusterv1.MachineTemplateSpec) { t.Spec.FailureDomain = "fd1" },
	}
	for name, change := range rollout {
		tmpl := template()
		change(tmpl)
		require.NotEqual(t, base, TemplateHash(tmpl), "%s rolls out", name)
	}
}

func TestMachineSetSuffix_RolloutAfterGivesANewStableName(t *testing.T) {
	h := TemplateHash(template())
	require.Equal(t, h, MachineSetSuffix(h, nil))
	after := time.Date(2026, 3, 9, 9, 0, 0, 0, time.UTC)
	s1 := MachineSetSuffix(h, &after)
	require.NotEqual(t, h, s1)
	require.Equal(t, s1, MachineSetSuffix(h, ptr.To(after.In(time.FixedZone("x", 3600)))), "same instant, same name")
	later := after.Add(time.Hour)
	require.NotEqual(t, s1, MachineSetSuffix(h, &later))
}
