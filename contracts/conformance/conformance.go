package conformance

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// TB is the part of a test the checks use. *testing.T has it all; so can a
// recorder that a test of the kit itself runs it with.
type TB interface {
	Helper()
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
	Cleanup(func())
	Failed() bool
	Skipped() bool
}

// T is a TB that runs subtests of its own type, as *testing.T does
// (Run(string, func(*testing.T)) bool). The entry points are generic over it so
// that callers pass their *testing.T unchanged.
type T[Self any] interface {
	TB
	Run(name string, f func(Self)) bool
}

// Check names one subtest. Input.Skip takes them as keys.
type Check string

// The checks, in the order they run. Not every kind runs every check; each entry
// point's doc comment lists its own.
const (
	// CheckCRD: the CRD is named <plural>.<group>, namespaced, lists as <Kind>List,
	// serves the version under test, and carries cluster.x-k8s.io/v1beta2 naming
	// served versions.
	CheckCRD Check = "CRD"
	// CheckTemplateCRD: the <Kind>Template CRD exists under the same rules
	// (mandatory for InfraMachine and BootstrapConfig).
	CheckTemplateCRD Check = "TemplateCRD"
	// CheckSchema: the CRD schema declares every contract field with its contract
	// type, or preserves unknown fields there, so the API server neither rejects nor
	// prunes what the core reads.
	CheckSchema Check = "Schema"
	// CheckWaitsForOwner: an object labelled with its Cluster but without the owner
	// reference the core sets is not provisioned during the observation window.
	CheckWaitsForOwner Check = "WaitsForOwner"
	// CheckProvisioned: once the owner reference is set, the initialization signal
	// (status.initialization.provisioned, or dataSecretCreated for bootstrap)
	// becomes true within the timeout.
	CheckProvisioned Check = "Provisioned"
	// CheckFinalizer: the object carries a finalizer no later than the version that
	// first reports the initialization signal, so deletion cannot leak what was
	// provisioned (infrastructure kinds only).
	CheckFinalizer Check = "Finalizer"
	// CheckProviderID: spec.providerID is set together with provisioned, has the
	// form <scheme>://<id>, does not change afterwards, and equals the Node's
	// (InfraMachine only).
	CheckProviderID Check = "ProviderID"
	// CheckControlPlaneEndpoint: spec.controlPlaneEndpoint has a host and a port
	// when provisioned is first true (InfraCluster owning its endpoint only).
	CheckControlPlaneEndpoint Check = "ControlPlaneEndpoint"
	// CheckDataSecret: status.dataSecretName names a Secret in the config's
	// namespace of type cluster.x-k8s.io/secret with keys value and format, the
	// cluster-name label and a controller owner reference to the config
	// (BootstrapConfig only).
	CheckDataSecret Check = "DataSecret"
	// CheckFieldTypes: every contract field present on the provisioned object has
	// its contract type (addresses of a known type, conditions well formed, ...).
	CheckFieldTypes Check = "FieldTypes"
	// CheckOwnerAndLabel: the provider keeps the owner reference and the
	// cluster-name label the core set.
	CheckOwnerAndLabel Check = "OwnerAndLabel"
	// CheckPausedByAnnotation: an object annotated cluster.x-k8s.io/paused sees no
	// spec or status change (other than its Paused condition) during the window,
	// and is provisioned once the annotation is removed.
	CheckPausedByAnnotation Check = "PausedByAnnotation"
	// CheckPausedByCluster: the same with Cluster.spec.paused=true.
	CheckPausedByCluster Check = "PausedByCluster"
	// CheckPausedCondition: while paused the object reports the Paused condition
	// True, and once resumed not True.
	CheckPausedCondition Check = "PausedCondition"
	// CheckDelete: a deleted object loses its finalizers and is gone within the
	// timeout.
	CheckDelete Check = "Delete"
)

// Scenario names one set of objects the kit creates; each has a Cluster of its own.
type Scenario string

const (
	// ScenarioOwned is created without an owner reference (WaitsForOwner), then
	// adopted; the provisioning, field and deletion checks look at it.
	ScenarioOwned Scenario = "own"
	// ScenarioPausedByAnnotation is created owned and annotated as paused.
	ScenarioPausedByAnnotation Scenario = "pa"
	// ScenarioPausedByCluster is created owned, in a Cluster with spec.paused=true.
	ScenarioPausedByCluster Scenario = "pc"
)

// DefaultBootstrapData is the bootstrap data the kit gives InfraMachines: a
// cloud-config that only writes the success sentinel the contract asks bootstrap
// data to write.
const DefaultBootstrapData = `#cloud-config
runcmd:
- mkdir -p /run/cluster-api && echo success > /run/cluster-api/bootstrap-success.complete
`

// Defaults for the Input durations.
const (
	DefaultTimeout     = 60 * time.Second
	DefaultPauseWindow = 5 * time.Second
)

// Input says what to check and how to make it work.
type Input struct {
	// Client reaches the API server the provider's controller runs against, as an
	// administrator; it must watch (envtest's Environment.Client does) and its
	// scheme must hold the core v1beta2 types and core/v1.
	Client client.WithWatch

	// GVK is the provider kind under test, at the version to create objects in.
	GVK schema.GroupVersionKind

	// NewObject returns a valid, minimal object of GVK named name in namespace, as a
	// user or a template clone would create it. The kit adds the cluster-name label,
	// owner references and the paused annotation itself.
	NewObject func(namespace, name string) *unstructured.Unstructured

	// Namespace holds every object the kit creates. Empty: a new namespace per
	// run, deleted when the test ends.
	Namespace string

	// Timeout bounds every wait for the provider: provisioning, reporting Paused,
	// deletion. Default DefaultTimeout.
	Timeout time.Duration

	// PauseWindow is how long an object must stay untouched while paused, and
	// unprovisioned while it has no owner. It should exceed the time the
	// controller takes to react to an event. Default DefaultPauseWindow.
	PauseWindow time.Duration

	// Prepare adjusts the objects of a scenario before any is created: labels
	// (e.g. cluster.x-k8s.io/watch-filter), Machine.spec.version, the
	// control-plane label, the bootstrap data, Cluster status the provider waits
	// for (the kit writes Fixture.Cluster.Status after creating the Cluster), ...
	Prepare func(f *Fixture)

	// Setup runs once the Cluster, the Machine and the bootstrap data Secret exist
	// and before the object under test is created: the external setup the
	// provider needs to be able to provision (a kubeconfig Secret, a Node in a
	// workload cluster, an InfraCluster, ...).
	Setup func(ctx context.Context, f *Fixture) error

	// ProviderIDScheme, when set, is the scheme spec.providerID must use, e.g.
	// "docker" for docker:////name (InfraMachine).
	ProviderIDScheme string

	// NodeProviderID, when set, returns the providerID the workload cluster's Node
	// of the scenario's machine carries, or "" while it has none; the kit waits
	// for it and requires it to equal spec.providerID (InfraMachine).
	NodeProviderID func(ctx context.Context, f *Fixture) (string, error)

	// ClusterProvidesEndpoint says the InfraCluster does not own the control plane
	// endpoint: it waits for Cluster.spec.controlPlaneEndpoint (the kit sets one
	// unless Prepare did) and ControlPlaneEndpoint is not checked (InfraCluster).
	ClusterProvidesEndpoint bool

	// Skip lists checks not to run, each with the reason the test log shows. A
	// skipped check proves nothing: use it while bringing a provider up.
	Skip map[Check]string
}

// Fixture is one scenario's objects. Prepare sees them unsaved; Setup,
// NodeProviderID and later code see them as created (with UIDs).
type Fixture struct {
	Scenario  Scenario
	Namespace string
	// Cluster is the scenario's Cluster. For InfraMachine and BootstrapConfig its
	// status says the infrastructure is provisioned.
	Cluster *clusterv1.Cluster
	// Machine owns the object under test (InfraMachine, BootstrapConfig); nil for
	// InfraCluster.
	Machine *clusterv1.Machine
	// BootstrapSecret is the data Secret Machine.spec.bootstrap.dataSecretName
	// names (InfraMachine only): value DefaultBootstrapData, format cloud-config,
	// unless Prepare changes it.
	BootstrapSecret *corev1.Secret
	// Object is the object under test, from Input.NewObject plus the kit's marks.
	Object *unstructured.Unstructured
}
