package desired

import (
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/owner"
)

// defaultNodeStartupTimeoutSeconds is what the MachineHealthCheck webhook defaults upstream;
// the topology sets it itself so that defaulting never makes a difference to apply.
const defaultNodeStartupTimeoutSeconds = 600

// controlPlaneHealthCheck is the control plane's MachineHealthCheck, nil unless the control plane
// is machine-based and the class or the topology defines a health check the topology does not
// disable. A topology definition replaces the class's wholesale.
func controlPlaneHealthCheck(in *Input, s *State) *clusterv1.MachineHealthCheck {
	if s.ControlPlaneMachineInfrastructure == nil {
		return nil
	}
	class, topo := in.Class.Spec.ControlPlane.HealthCheck, in.Cluster.Spec.Topology.ControlPlane.HealthCheck
	checks, remediation := class.Checks, class.Remediation
	topoDefines := !isZero(topo.Checks) || !isZero(topo.Remediation)
	if topoDefines {
		checks, remediation = topo.Checks, topo.Remediation
	}
	if (!topoDefines && isZero(class)) || !ptr.Deref(topo.Enabled, true) {
		return nil
	}
	selector := map[string]string{clusterv1.ClusterTopologyOwnedLabel: "", clusterv1.MachineControlPlaneLabel: ""}
	return newHealthCheck(in.Cluster, s.ControlPlane.GetName(), selector, checks, remediation)
}

// machineDeploymentHealthCheck is a MachineDeployment's MachineHealthCheck (nil when none is
// enabled) and the remediation's maxInFlight, which goes on the MachineDeployment (upstream
// puts it there, not on the MachineHealthCheck).
func machineDeploymentHealthCheck(in *Input, class *clusterv1.MachineDeploymentClass, mdt *clusterv1.MachineDeploymentTopology, mdName string) (*clusterv1.MachineHealthCheck, *intstr.IntOrString) {
	checks, remediation := class.HealthCheck.Checks, class.HealthCheck.Remediation
	topoDefines := !isZero(mdt.HealthCheck.Checks) || !isZero(mdt.HealthCheck.Remediation)
	if topoDefines {
		checks, remediation = mdt.HealthCheck.Checks, mdt.HealthCheck.Remediation
	}
	if (!topoDefines && isZero(class.HealthCheck)) || !ptr.Deref(mdt.HealthCheck.Enabled, true) {
		return nil, nil
	}
	selector := map[string]string{clusterv1.ClusterTopologyOwnedLabel: "", clusterv1.ClusterTopologyMachineDeploymentNameLabel: mdt.Name}
	return newHealthCheck(in.Cluster, mdName, selector, checks,
		clusterv1.HealthCheckRemediation{TriggerIf: remediation.TriggerIf, TemplateRef: remediation.TemplateRef}), remediation.MaxInFlight
}

// newHealthCheck builds a MachineHealthCheck with the defaults upstream's webhook would add.
func newHealthCheck(c *clusterv1.Cluster, name string, selector map[string]string, checks clusterv1.HealthCheckChecks, remediation clusterv1.HealthCheckRemediation) *clusterv1.MachineHealthCheck {
	startup := checks.NodeStartupTimeoutSeconds
	if startup == nil {
		startup = ptr.To[int32](defaultNodeStartupTimeoutSeconds)
	}
	return &clusterv1.MachineHealthCheck{
		TypeMeta: metav1.TypeMeta{APIVersion: clusterv1.GroupVersion.String(), Kind: "MachineHealthCheck"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: c.Namespace, Name: name,
			Labels:          topologyLabels(nil, c.Name),
			OwnerReferences: []metav1.OwnerReference{owner.ClusterReference(c)},
		},
		Spec: clusterv1.MachineHealthCheckSpec{
			ClusterName: c.Name,
			Selector:    metav1.LabelSelector{MatchLabels: selector},
			Checks: clusterv1.MachineHealthCheckChecks{
				NodeStartupTimeoutSeconds:  startup,
				UnhealthyNodeConditions:    checks.UnhealthyNodeConditions,
				UnhealthyMachineConditions: checks.UnhealthyMachineConditions,
			},
			Remediation: clusterv1.MachineHealthCheckRemediation{
				TriggerIf: clusterv1.MachineHealthCheckRemediationTriggerIf{
					UnhealthyLessThanOrEqualTo: remediation.TriggerIf.UnhealthyLessThanOrEqualTo,
					UnhealthyInRange:           remediation.TriggerIf.UnhealthyInRange,
				},
				TemplateRef: remediation.TemplateRef,
			},
		},
	}
}

func isZero(v any) bool { return reflect.ValueOf(v).IsZero() }
