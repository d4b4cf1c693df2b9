package conformance

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
)

// fieldProblem turns an accessor error into a problem: a mistyped field breaks
// rule; a missing one is fine here (whether it must be set is another check's
// business); any other error is reported as is.
func fieldProblem(rule string, err error) []string {
	if err == nil || errors.Is(err, contract.ErrFieldNotFound) {
		return nil
	}
	return []string{fmt.Sprintf("%s: %v", rule, err)}
}

// machineFieldProblems checks the InfraMachine contract fields present on u.
func machineFieldProblems(u *unstructured.Unstructured) []string {
	im := contract.InfrastructureMachine()
	_, err := im.ProviderID().Get(u)
	out := fieldProblem("InfraMachine: provider ID (spec.providerID is a string)", err)
	_, err = im.Provisioned(contract.V1Beta2).Get(u)
	out = append(out, fieldProblem("InfraMachine: initialization completed (status.initialization.provisioned is a bool)", err)...)
	_, err = im.FailureDomain().Get(u)
	out = append(out, fieldProblem("InfraMachine: failure domain (status.failureDomain is a string)", err)...)
	addrs, err := im.Addresses().Get(u)
	const addrRule = "InfraMachine: addresses (status.addresses is a list of {type, address})"
	out = append(out, fieldProblem(addrRule, err)...)
	for i, a := range addrs {
		if !knownAddressTypes[a.Type] {
			out = append(out, fmt.Sprintf("%s: status.addresses[%d].type is %q, want one of Hostname, ExternalIP, InternalIP, ExternalDNS, InternalDNS (the Machine's validation rejects any other)", addrRule, i, a.Type))
		}
		if a.Address == "" {
			out = append(out, fmt.Sprintf("%s: status.addresses[%d].address is empty", addrRule, i))
		}
	}
	return append(out, conditionProblems("InfraMachine", u)...)
}

var knownAddressTypes = map[string]bool{
	string(clusterv1.MachineHostName): true, string(clusterv1.MachineExternalIP): true, string(clusterv1.MachineInternalIP): true,
	string(clusterv1.MachineExternalDNS): true, string(clusterv1.MachineInternalDNS): true,
}

// clusterFieldProblems checks the InfraCluster contract fields present on u.
func clusterFieldProblems(u *unstructured.Unstructured) []string {
	ic := contract.InfrastructureCluster()
	_, err := ic.ControlPlaneEndpoint().Get(u)
	out := fieldProblem("InfraCluster: control plane endpoint (spec.controlPlaneEndpoint is {host string, port int32})", err)
	_, err = ic.Provisioned(contract.V1Beta2).Get(u)
	out = append(out, fieldProblem("InfraCluster: initialization completed (status.initialization.provisioned is a bool)", err)...)
	_, err = ic.FailureDomains(contract.V1Beta2).Get(u)
	out = append(out, fieldProblem("InfraCluster: failure domains (status.failureDomains is a list of {name, controlPlane, attributes})", err)...)
	return append(out, conditionProblems("InfraCluster", u)...)
}

// bootstrapFieldProblems checks the BootstrapConfig contract fields present on u.
func bootstrapFieldProblems(u *unstructured.Unstructured) []string {
	b := contract.Bootstrap()
	_, err := b.DataSecretName().Get(u)
	out := fieldProblem("BootstrapConfig: data secret (status.dataSecretName is a string)", err)
	_, err = b.DataSecretCreated(contract.V1Beta2).Get(u)
	out = append(out, fieldProblem("BootstrapConfig: initialization completed (status.initialization.dataSecretCreated is a bool)", err)...)
	return append(out, conditionProblems("BootstrapConfig", u)...)
}

// conditionProblems checks status.conditions, which the core reads (Ready is
// mirrored to the owner) as metav1.Condition: type and status required, status
// one of True, False, Unknown, the other fields of their types.
func conditionProblems(role string, u *unstructured.Unstructured) []string {
	rule := role + ": conditions (status.conditions is a list of metav1.Condition)"
	raw, found, err := unstructured.NestedFieldNoCopy(u.Object, "status", "conditions")
	if err != nil || !found || raw == nil {
		return nil // a mistyped status is reported by the other fields
	}
	list, ok := raw.([]any)
	if !ok {
		return []string{fmt.Sprintf("%s: status.conditions is a %T, want a list", rule, raw)}
	}
	var out []string
	for i, item := range list {
		p := fmt.Sprintf("status.conditions[%d]", i)
		m, ok := item.(map[string]any)
		if !ok {
			out = append(out, fmt.Sprintf("%s: %s is a %T, want an object", rule, p, item))
			continue
		}
		if t, ok := m["type"].(string); !ok || t == "" {
			out = append(out, fmt.Sprintf("%s: %s.type must be a non-empty string, got %v", rule, p, m["type"]))
		}
		switch s := m["status"]; s {
		case "True", "False", "Unknown":
		default:
			out = append(out, fmt.Sprintf("%s: %s.status must be True, False or Unknown, got %v", rule, p, s))
		}
		for _, key := range []string{"reason", "message", "lastTransitionTime"} {
			if v, ok := m[key]; ok && v != nil {
				if _, isString := v.(string); !isString {
					out = append(out, fmt.Sprintf("%s: %s.%s must be a string, got %T", rule, p, key, v))
				}
			}
		}
	}
	return out
}

// providerIDFormat is a Kubernetes Node providerID: <scheme>://<provider-specific id>.
var providerIDFormat = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://.+$`)

// providerIDProblems checks the form of a providerID (scheme: the one required, if any).
func providerIDProblems(id, scheme string) []string {
	const rule = "InfraMachine: provider ID (spec.providerID must match the Node's spec.providerID, which has the form <scheme>://<id>)"
	if !providerIDFormat.MatchString(id) {
		return []string{fmt.Sprintf("%s: spec.providerID is %q, which is not of the form <scheme>://<id>", rule, id)}
	}
	if scheme != "" && !strings.HasPrefix(id, scheme+"://") {
		return []string{fmt.Sprintf("%s: spec.providerID is %q, want the scheme %q (Input.ProviderIDScheme)", rule, id, scheme)}
	}
	return nil
}
