package framework

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestParseManifest_SkipsEmptyDocumentsAndRejectsObjectsWithoutKind(t *testing.T) {
	objs, err := ParseManifest([]byte("# comment only\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: b\n"))
	require.NoError(t, err)
	require.Len(t, objs, 2)
	require.Equal(t, "ConfigMap", objs[0].GetKind())
	require.Equal(t, "b", objs[1].GetName())

	_, err = ParseManifest([]byte("apiVersion: v1\nmetadata:\n  name: a\n"))
	require.ErrorContains(t, err, "document 0 has no apiVersion/kind")
}

func TestProgress_PrintsOnlyChangesAndWhatIsGone(t *testing.T) {
	out := &bytes.Buffer{}
	p := &Progress{Out: out, Now: func() time.Time { return time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC) }}
	p.Report(map[string]string{"Machine a": "Provisioning", "Machine b": "Pending"})
	p.Report(map[string]string{"Machine a": "Provisioning", "Machine b": "Running"})
	p.Report(map[string]string{"Machine b": "Running"})
	p.Report(map[string]string{"Machine b": "Running"})
	require.Equal(t, "10:00:00 Machine a: Provisioning\n10:00:00 Machine b: Pending\n"+
		"10:00:00 Machine b: Running\n"+
		"10:00:00 Machine a: gone\n", out.String())
}

func TestDescribe_SaysWhatIsWaitedFor(t *testing.T) {
	require.Equal(t, "Running, Ready", describe("Running", []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue}}, "Ready"))
	require.Equal(t, "Provisioning, not Ready (WaitingForBootstrapData): no data secret yet",
		describe("Provisioning", []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse, Reason: "WaitingForBootstrapData", Message: "no data secret yet\nmore"}}, "Ready"))
	require.Equal(t, "Pending, Ready unknown", describe("Pending", nil, "Ready"))
}

func TestNodeReadiness_FromTheReadyCondition(t *testing.T) {
	node := func(conds ...corev1.NodeCondition) *corev1.Node {
		return &corev1.Node{Status: corev1.NodeStatus{Conditions: conds}}
	}
	none := node(corev1.NodeCondition{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse})
	notReady := node(corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: "KubeletNotReady"})
	ready := node(corev1.NodeCondition{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse},
		corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue})

	require.False(t, NodeIsReady(none))
	require.Equal(t, "NotReady (no Ready condition yet)", nodeReadiness(none))
	require.False(t, NodeIsReady(notReady))
	require.Equal(t, "NotReady (KubeletNotReady)", nodeReadiness(notReady))
	require.True(t, NodeIsReady(ready))
	require.Equal(t, "Ready", nodeReadiness(ready))
}
