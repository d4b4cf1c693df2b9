package conformance

import (
	"context"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/envtest"
)

const (
	roleInfraMachine    = "InfraMachine"
	roleInfraCluster    = "InfraCluster"
	roleBootstrapConfig = "BootstrapConfig"
)

// conditionsSchema is status.conditions as the core reads it (optional).
var conditionsSchema = []schemaField{
	{path: "status.conditions", typ: "array"},
	{path: "status.conditions[]", typ: "object", required: true},
	{path: "status.conditions[].type", typ: "string", required: true},
	{path: "status.conditions[].status", typ: "string", required: true},
}

// InfrastructureMachine checks an InfraMachine kind (e.g. DockerMachine). Checks:
// CRD, TemplateCRD, Schema, WaitsForOwner, Provisioned, Finalizer, ProviderID,
// FieldTypes, OwnerAndLabel, PausedByAnnotation, PausedByCluster, PausedCondition,
// Delete.
//
// Each scenario's Cluster has status.initialization.infrastructureProvisioned=true
// and its Machine has spec.bootstrap.dataSecretName naming Fixture.BootstrapSecret,
// so that the contract's waits are all satisfied once the owner reference is set.
func InfrastructureMachine[Self T[Self]](t Self, in Input) {
	t.Helper()
	run(t, in, &role{
		name: roleInfraMachine, ownerKind: "Machine",
		signal:     contract.InfrastructureMachine().Provisioned(contract.V1Beta2),
		signalRule: "InfraMachine: initialization completed (mandatory)",
		schema: append([]schemaField{
			{path: "spec.providerID", typ: "string", required: true},
			{path: "status.initialization.provisioned", typ: "boolean", required: true},
			{path: "status.addresses", typ: "array"},
			{path: "status.addresses[]", typ: "object", required: true},
			{path: "status.addresses[].type", typ: "string", required: true},
			{path: "status.addresses[].address", typ: "string", required: true},
			{path: "status.failureDomain", typ: "string"},
		}, conditionsSchema...),
		fieldProblems:     machineFieldProblems,
		finalizerRequired: true,
		templateRequired:  true,
		extra:             []extraCheck{{CheckProviderID, (*kit).checkProviderID}},
	})
}

// InfrastructureCluster checks an InfraCluster kind (e.g. DockerCluster). Checks:
// CRD, Schema, WaitsForOwner, Provisioned, Finalizer, ControlPlaneEndpoint (unless
// Input.ClusterProvidesEndpoint), FieldTypes, OwnerAndLabel, PausedByAnnotation,
// PausedByCluster, PausedCondition, Delete. The InfraClusterTemplate is only
// needed for ClusterClass and is not checked.
func InfrastructureCluster[Self T[Self]](t Self, in Input) {
	t.Helper()
	r := &role{
		name: roleInfraCluster, ownerKind: "Cluster",
		signal:     contract.InfrastructureCluster().Provisioned(contract.V1Beta2),
		signalRule: "InfraCluster: initialization completed (mandatory)",
		schema: append([]schemaField{
			{path: "spec.controlPlaneEndpoint", typ: "object", required: !in.ClusterProvidesEndpoint},
			{path: "spec.controlPlaneEndpoint.host", typ: "string", required: true},
			{path: "spec.controlPlaneEndpoint.port", typ: "integer", required: true},
			{path: "status.initialization.provisioned", typ: "boolean", required: true},
			{path: "status.failureDomains", typ: "array"},
			{path: "status.failureDomains[]", typ: "object", required: true},
			{path: "status.failureDomains[].name", typ: "string", required: true},
			{path: "status.failureDomains[].controlPlane", typ: "boolean"},
			{path: "status.failureDomains[].attributes", typ: "object"},
		}, conditionsSchema...),
		fieldProblems:     clusterFieldProblems,
		finalizerRequired: true,
	}
	if !in.ClusterProvidesEndpoint {
		r.extra = []extraCheck{{CheckControlPlaneEndpoint, (*kit).checkControlPlaneEndpoint}}
	}
	run(t, in, r)
}

// BootstrapConfig checks a BootstrapConfig kind (e.g. KubeadmConfig). Checks:
// CRD, TemplateCRD, Schema, WaitsForOwner, Provisioned (status.initialization.
// dataSecretCreated), DataSecret, FieldTypes, OwnerAndLabel, PausedByAnnotation,
// PausedByCluster, PausedCondition, Delete. A finalizer is not required: the data
// Secret is owned by the config and garbage-collected with it.
//
// Each scenario's Cluster has status.initialization.infrastructureProvisioned=true;
// what else the provider waits for (a control plane endpoint, the
// ControlPlaneInitialized condition, certificates, Machine.spec.version) Prepare
// and Setup provide.
func BootstrapConfig[Self T[Self]](t Self, in Input) {
	t.Helper()
	run(t, in, &role{
		name: roleBootstrapConfig, ownerKind: "Machine",
		signal:     contract.Bootstrap().DataSecretCreated(contract.V1Beta2),
		signalRule: "BootstrapConfig: initialization completed (mandatory)",
		schema: append([]schemaField{
			{path: "status.dataSecretName", typ: "string", required: true},
			{path: "status.initialization.dataSecretCreated", typ: "boolean", required: true},
		}, conditionsSchema...),
		fieldProblems:    bootstrapFieldProblems,
		templateRequired: true,
		extra:            []extraCheck{{CheckDataSecret, (*kit).checkDataSecret}},
	})
}

func (k *kit) checkProviderID(t TB) {
	const rule = "InfraMachine: provider ID (mandatory)"
	im := contract.InfrastructureMachine()
	id, err := im.ProviderID().Get(k.firstSignal)
	if err != nil {
		t.Fatalf("%s: in the first version with status.initialization.provisioned=true: %v (the core copies spec.providerID to the Machine as soon as it sees provisioned)", rule, err)
	}
	for _, p := range providerIDProblems(*id, k.in.ProviderIDScheme) {
		t.Errorf("%s", p)
	}
	latest, err := k.get(k.main.Object)
	if err != nil {
		t.Fatalf("reading %s: %v", k.main.Object.GetName(), err)
	}
	if now, err := im.ProviderID().Get(latest); err != nil || *now != *id {
		t.Errorf("%s: spec.providerID changed after provisioning (from %q; now %v, %v): the core matches the Node by it, so it must not change", rule, *id, ptrString(now), err)
	}
	if k.in.NodeProviderID == nil {
		return
	}
	var node string
	err = envtest.Poll(k.in.Timeout, func() (bool, error) {
		var err error
		node, err = k.in.NodeProviderID(context.Background(), k.main)
		return node != "", err
	})
	if err != nil {
		t.Fatalf("%s: the Node never carried a providerID (Input.NodeProviderID): %v", rule, err)
	}
	if node != *id {
		t.Errorf("%s: spec.providerID is %q but the Node carries %q: the core never finds the Node", rule, *id, node)
	}
}

func (k *kit) checkControlPlaneEndpoint(t TB) {
	const rule = "InfraCluster: control plane endpoint (spec.controlPlaneEndpoint, when the infrastructure owns the endpoint; set Input.ClusterProvidesEndpoint otherwise)"
	ep, err := contract.InfrastructureCluster().ControlPlaneEndpoint().Get(k.firstSignal)
	if err != nil {
		t.Fatalf("%s: in the first version with status.initialization.provisioned=true: %v (the core copies it to the Cluster once provisioned)", rule, err)
	}
	if !ep.IsValid() || ep.Port < 1 || ep.Port > 65535 {
		t.Errorf("%s: spec.controlPlaneEndpoint is {host: %q, port: %d} when provisioned is first true; want a host and a port in 1-65535", rule, ep.Host, ep.Port)
	}
}

func (k *kit) checkDataSecret(t TB) {
	const rule = "BootstrapConfig: data secret (mandatory)"
	name, err := contract.Bootstrap().DataSecretName().Get(k.firstSignal)
	if err != nil || *name == "" {
		t.Fatalf("%s: status.dataSecretName is not set in the first version with dataSecretCreated=true (%v): the core copies it to Machine.spec.bootstrap.dataSecretName", rule, err)
	}
	s := &corev1.Secret{}
	key := client.ObjectKey{Namespace: k.main.Object.GetNamespace(), Name: *name}
	if err := k.in.Client.Get(context.Background(), key, s); err != nil {
		t.Fatalf("%s: status.dataSecretName names Secret %s, which cannot be read in the config's namespace: %v", rule, key, err)
	}
	if s.Type != clusterv1.ClusterSecretType {
		t.Errorf("%s: Secret %s has type %q, want %q", rule, key, s.Type, clusterv1.ClusterSecretType)
	}
	if len(s.Data["value"]) == 0 {
		t.Errorf("%s: Secret %s has no data under key \"value\" (keys: %v)", rule, key, keysOf(s.Data))
	}
	if _, ok := s.Data["format"]; !ok {
		t.Errorf("%s: Secret %s has no key \"format\" (e.g. cloud-config) (keys: %v)", rule, key, keysOf(s.Data))
	}
	if got := s.Labels[clusterv1.ClusterNameLabel]; got != k.main.Cluster.Name {
		t.Errorf("%s: Secret %s has label %s=%q, want %q", rule, key, clusterv1.ClusterNameLabel, got, k.main.Cluster.Name)
	}
	ref := metav1.GetControllerOf(s)
	obj := k.main.Object
	if ref == nil || ref.UID != obj.GetUID() || ref.Kind != obj.GetKind() {
		t.Errorf("%s: Secret %s has controller owner reference %s, want one to %s %s (uid %s)", rule, key, describeRef(ref), obj.GetKind(), obj.GetName(), obj.GetUID())
	}
}

func describeRef(ref *metav1.OwnerReference) string {
	if ref == nil {
		return "<none>"
	}
	return fmt.Sprintf("%s %s (uid %s)", ref.Kind, ref.Name, ref.UID)
}

func keysOf(m map[string][]byte) []string { return slices.Sorted(maps.Keys(m)) }

func ptrString(s *string) string {
	if s == nil {
		return "<unset>"
	}
	return fmt.Sprintf("%q", *s)
}
