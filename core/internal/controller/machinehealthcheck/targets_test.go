package machinehealthcheck

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

func TestHealth_JudgesEachCheckAndSaysWhenToLookAgain(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) metav1.Time { return metav1.NewTime(now.Add(-d)) }
	readyCluster := func() *clusterv1.Cluster {
		c := &clusterv1.Cluster{}
		c.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
		c.Status.Initialization.ControlPlaneInitialized = ptr.To(true)
		return c
	}
	mhcWith := func(mut func(*clusterv1.MachineHealthCheck)) *clusterv1.MachineHealthCheck {
		m := &clusterv1.MachineHealthCheck{}
		m.Spec.Checks.NodeStartupTimeoutSeconds = ptr.To[int32](600)
		m.Spec.Checks.UnhealthyNodeConditions = []clusterv1.UnhealthyNodeCondition{
			{Type: corev1.NodeReady, Status: corev1.ConditionFalse, TimeoutSeconds: ptr.To[int32](300)},
			{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, TimeoutSeconds: ptr.To[int32](300)},
		}
		if mut != nil {
			mut(m)
		}
		return m
	}
	machine := func(created time.Duration, mut ...func(*clusterv1.Machine)) *clusterv1.Machine {
		m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "m", CreationTimestamp: ago(created)}}
		for _, f := range mut {
			f(m)
		}
		return m
	}
	node := func(status corev1.ConditionStatus, since time.Duration) *corev1.Node {
		return &corev1.Node{Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: status, LastTransitionTime: ago(since)},
		}}}
	}

	tests := []struct {
		name          string
		target        target
		mhc           *clusterv1.MachineHealthCheck
		cluster       *clusterv1.Cluster
		wantUnhealthy bool
		wantReason    string
		wantMessage   string
		wantNext      time.Duration
	}{
		{
			name: "remediate annotation wins over everything",
			target: target{machine: machine(time.Minute, func(m *clusterv1.Machine) {
				m.Annotations = map[string]string{clusterv1.RemediateMachineAnnotation: ""}
			}), node: node(corev1.ConditionTrue, time.Hour)},
			wantUnhealthy: true, wantReason: clusterv1.MachineHealthCheckHasRemediateAnnotationReason,
			wantMessage: "Health check failed: marked for remediation via cluster.x-k8s.io/remediate-machine annotation",
		},
		{
			name: "node deleted",
			target: target{machine: machine(time.Hour, func(m *clusterv1.Machine) {
				m.Status.NodeRef.Name = "n1"
			}), nodeMissing: true},
			wantUnhealthy: true, wantReason: clusterv1.MachineHealthCheckNodeDeletedReason,
			wantMessage: "Health check failed: Node n1 has been deleted",
		},
		{
			name:     "no node yet, within the startup timeout: look again when it expires",
			target:   target{machine: machine(4 * time.Minute)},
			wantNext: 6*time.Minute + requeueSlack, wantReason: clusterv1.MachineHealthCheckSucceededReason,
		},
		{
			name:          "no node after the startup timeout",
			target:        target{machine: machine(11 * time.Minute)},
			wantUnhealthy: true, wantReason: clusterv1.MachineHealthCheckNodeStartupTimeoutReason,
			wantMessage: "Health check failed: Node failed to report startup in 10m0s",
		},
		{
			name: "startup counts from the Machine's infrastructure becoming ready",
			target: target{machine: machine(11*time.Minute, func(m *clusterv1.Machine) {
				m.Status.Conditions = []metav1.Condition{{Type: clusterv1.MachineInfrastructureReadyCondition,
					Status: metav1.ConditionTrue, LastTransitionTime: ago(2 * time.Minute)}}
			})},
			wantNext: 8*time.Minute + requeueSlack, wantReason: clusterv1.MachineHealthCheckSucceededReason,
		},
		{
			name:   "startup counts from the control plane becoming initialized",
			target: target{machine: machine(11 * time.Minute)},
			cluster: func() *clusterv1.Cluster {
				c := readyCluster()
				c.Status.Conditions = []metav1.Condition{{Type: clusterv1.ClusterControlPlaneInitializedCondition,
					Status: metav1.ConditionTrue, LastTransitionTime: ago(time.Minute)}}
				return c
			}(),
			wantNext: 9*time.Minute + requeueSlack, wantReason: clusterv1.MachineHealthCheckSucceededReason,
		},
		{
			name:       "startup timeout 0 disables the check",
			target:     target{machine: machine(time.Hour)},
			mhc:        mhcWith(func(m *clusterv1.MachineHealthCheck) { m.Spec.Checks.NodeStartupTimeoutSeconds = ptr.To[int32](0) }),
			wantReason: clusterv1.MachineHealthCheckSucceededReason,
		},
		{
			name:   "a worker is not blamed before the control plane is initialized",
			target: target{machine: machine(time.Hour)},
			cluster: func() *clusterv1.Cluster {
				c := readyCluster()
				c.Status.Initialization.ControlPlaneInitialized = nil
				return c
			}(),
			wantReason: clusterv1.MachineHealthCheckSucceededReason,
		},
		{
			name: "the first control-plane Machine is checked before the control plane is initialized",
			target: target{machine: machine(time.Hour, func(m *clusterv1.Machine) {
				m.Labels = map[string]string{clusterv1.MachineControlPlaneLabel: ""}
			})},
			cluster: func() *clusterv1.Cluster {
				c := readyCluster()
				c.Status.Initialization.ControlPlaneInitialized = nil
				return c
			}(),
			wantUnhealthy: true, wantReason: clusterv1.MachineHealthCheckNodeStartupTimeoutReason,
			wantMessage: "Health check failed: Node failed to report startup in 10m0s",
		},
		{
			name:       "healthy node",
			target:     target{machine: machine(time.Hour), node: node(corev1.ConditionTrue, time.Hour)},
			wantReason: clusterv1.MachineHealthCheckSucceededReason,
		},
		{
			name:       "node not ready within the timeout: look again when it expires",
			target:     target{machine: machine(time.Hour), node: node(corev1.ConditionFalse, 4*time.Minute)},
			wantReason: clusterv1.MachineHealthCheckSucceededReason, wantNext: time.Minute + requeueSlack,
		},
		{
			name:          "node not ready past the timeout",
			target:        target{machine: machine(time.Hour), node: node(corev1.ConditionUnknown, 5*time.Minute)},
			wantUnhealthy: true, wantReason: clusterv1.MachineHealthCheckUnhealthyNodeReason,
			wantMessage: "Health check failed: Condition Ready on Node is reported as Unknown for more than 5m0s",
		},
		{
			name: "machine condition past its timeout",
			target: target{machine: machine(time.Hour, func(m *clusterv1.Machine) {
				m.Status.Conditions = []metav1.Condition{{Type: "EtcdMemberHealthy", Status: metav1.ConditionFalse, LastTransitionTime: ago(time.Minute)}}
			}), node: node(corev1.ConditionTrue, time.Hour)},
			mhc: mhcWith(func(m *clusterv1.MachineHealthCheck) {
				m.Spec.Checks.UnhealthyMachineConditions = []clusterv1.UnhealthyMachineCondition{
					{Type: "EtcdMemberHealthy", Status: metav1.ConditionFalse, TimeoutSeconds: ptr.To[int32](30)}}
			}),
			wantUnhealthy: true, wantReason: unhealthyMachineReason,
			wantMessage: "Health check failed: Condition EtcdMemberHealthy on Machine is reported as False for more than 30s",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mhc, cluster := tt.mhc, tt.cluster
			if mhc == nil {
				mhc = mhcWith(nil)
			}
			if cluster == nil {
				cluster = readyCluster()
			}
			unhealthy, c, next := health(&tt.target, mhc, cluster, now)
			require.Equal(t, tt.wantUnhealthy, unhealthy)
			require.Equal(t, clusterv1.MachineHealthCheckSucceededCondition, c.Type)
			require.Equal(t, tt.wantReason, c.Reason)
			require.Equal(t, tt.wantMessage, c.Message)
			require.Equal(t, tt.wantNext, next)
			if unhealthy {
				require.Equal(t, metav1.ConditionFalse, c.Status)
			} else {
				require.Equal(t, metav1.ConditionTrue, c.Status)
			}
		})
	}
}

func TestSoonest_IgnoresZeroAndAddsSlack(t *testing.T) {
	require.Equal(t, time.Duration(0), soonest(nil))
	require.Equal(t, time.Duration(0), soonest([]time.Duration{0, 0}))
	require.Equal(t, 2*time.Second+requeueSlack, soonest([]time.Duration{0, 5 * time.Second, 2 * time.Second}))
}
