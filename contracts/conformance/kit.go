package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/external"
	"capstan.dev/contracts/owner"
)

// role is what differs between the contract roles: which owner the core sets,
// which signal says "done", which fields the schema must have, and the checks
// only this role runs.
type role struct {
	name      string // InfraMachine, InfraCluster, BootstrapConfig
	ownerKind string // Machine or Cluster
	// signal is the initialization field (provisioned, dataSecretCreated) and
	// signalRule the contract rule that requires it.
	signal     contract.BoolField
	signalRule string
	schema     []schemaField
	// fieldProblems checks the contract fields present on an object.
	fieldProblems     func(*unstructured.Unstructured) []string
	finalizerRequired bool
	templateRequired  bool
	// extra are the role's own checks, run after Finalizer; each needs Provisioned.
	extra []extraCheck
}

type extraCheck struct {
	check Check
	run   func(k *kit, t TB)
}

type result int

const (
	notRun result = iota
	passed
	failed
	skipped
)

// pauseEvidence is what a pause scenario saw of the Paused condition.
type pauseEvidence struct {
	ran              bool
	trueWhilePaused  bool
	notTrueOnResume  bool
	lastPausedStatus string
	watched          time.Duration
}

// kit is one run of the checks for one kind.
type kit struct {
	in      Input
	role    *role
	ns      string
	ownNS   bool
	id      string
	results map[Check]result

	crd         *apiextensionsv1.CustomResourceDefinition
	main        *Fixture
	firstSignal *unstructured.Unstructured // the first version of main with the signal true
	paused      map[Scenario]*pauseEvidence

	mu       sync.Mutex
	objects  []*unstructured.Unstructured // objects under test, deleted and awaited at cleanup
	children []client.Object              // core objects, deleted at cleanup
}

// run is the body of every entry point.
func run[Self T[Self]](t Self, in Input, r *role) {
	t.Helper()
	k, err := newKit(in, r)
	if err != nil {
		t.Fatalf("conformance %s: %v", r.name, err)
		return
	}
	t.Cleanup(func() { k.cleanup(t) })
	if err := k.namespace(); err != nil {
		t.Fatalf("conformance %s: %v", r.name, err)
		return
	}
	t.Logf("conformance %s %s: objects in namespace %s, names starting with %s", r.name, in.GVK, k.ns, k.id)

	check := func(c Check, needs []Check, fn func(TB)) {
		if reason, skip := k.in.Skip[c]; skip {
			k.results[c] = skipped
			t.Run(string(c), func(st Self) { st.Skipf("skipped by Input.Skip: %s", reason) })
			return
		}
		for _, d := range needs {
			if k.results[d] != passed {
				k.results[c] = skipped
				t.Run(string(c), func(st Self) { st.Skipf("not checked: it needs %s, which did not pass", d) })
				return
			}
		}
		res := failed
		t.Run(string(c), func(st Self) {
			defer func() {
				switch {
				case st.Failed():
					res = failed
				case st.Skipped():
					res = skipped
				default:
					res = passed
				}
			}()
			fn(st)
		})
		k.results[c] = res
	}

	crd, crdErr := k.getCRD(in.GVK.Group, in.GVK.Kind)
	k.crd = crd
	check(CheckCRD, nil, func(st TB) { k.checkCRD(st, crdErr) })
	if crdErr != nil {
		if k.results[CheckCRD] == skipped {
			t.Fatalf("%s: %v: nothing can be checked", fmt.Sprintf(ruleCRDName, r.name, r.name), crdErr)
		}
		t.Logf("conformance %s: no CRD for %s, nothing else can be checked", r.name, in.GVK.GroupKind())
		return
	}
	if r.templateRequired {
		check(CheckTemplateCRD, nil, k.checkTemplateCRD)
	}
	check(CheckSchema, nil, k.checkSchema)

	k.main = k.newScenario(t, ScenarioOwned)
	check(CheckWaitsForOwner, nil, k.checkWaitsForOwner)
	check(CheckProvisioned, nil, k.checkProvisioned)
	if r.finalizerRequired {
		check(CheckFinalizer, []Check{CheckProvisioned}, k.checkFinalizer)
	}
	for _, e := range r.extra {
		check(e.check, []Check{CheckProvisioned}, func(st TB) { e.run(k, st) })
	}
	check(CheckFieldTypes, []Check{CheckProvisioned}, k.checkFieldTypes)
	check(CheckOwnerAndLabel, []Check{CheckProvisioned}, k.checkOwnerAndLabel)
	check(CheckPausedByAnnotation, nil, func(st TB) { k.checkPaused(st, ScenarioPausedByAnnotation) })
	check(CheckPausedByCluster, nil, func(st TB) { k.checkPaused(st, ScenarioPausedByCluster) })
	check(CheckPausedCondition, nil, k.checkPausedCondition)
	check(CheckDelete, nil, k.checkDelete)
}

func newKit(in Input, r *role) (*kit, error) {
	switch {
	case in.Client == nil:
		return nil, errors.New("Input.Client is nil")
	case in.GVK.Group == "" || in.GVK.Version == "" || in.GVK.Kind == "":
		return nil, fmt.Errorf("Input.GVK %q needs group, version and kind", in.GVK)
	case in.NewObject == nil:
		return nil, errors.New("Input.NewObject is nil")
	}
	for _, gvk := range []string{"Cluster", "Machine"} {
		if !in.Client.Scheme().Recognizes(clusterv1.GroupVersion.WithKind(gvk)) {
			return nil, fmt.Errorf("the scheme of Input.Client does not know %s %s: add capstan.dev/contracts/api/core/v1beta2 (envtest.DefaultScheme has it)", clusterv1.GroupVersion, gvk)
		}
	}
	if in.Timeout <= 0 {
		in.Timeout = DefaultTimeout
	}
	if in.PauseWindow <= 0 {
		in.PauseWindow = DefaultPauseWindow
	}
	return &kit{
		in: in, role: r, ns: in.Namespace, id: "cf-" + utilrand.String(5),
		results: map[Check]result{}, paused: map[Scenario]*pauseEvidence{},
	}, nil
}

// namespace creates the run's namespace unless Input.Namespace names one.
func (k *kit) namespace() error {
	if k.ns != "" {
		return nil
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "conformance-"}}
	if err := k.in.Client.Create(context.Background(), ns); err != nil {
		return fmt.Errorf("creating a namespace: %w", err)
	}
	k.ns, k.ownNS = ns.Name, true
	return nil
}

// newScenario creates a scenario's Cluster, Machine and bootstrap data Secret as
// the core and a bootstrap provider would leave them, runs Input.Setup, and
// creates the object under test: without an owner reference for ScenarioOwned,
// adopted (and paused) for the pause scenarios.
func (k *kit) newScenario(t TB, s Scenario) *Fixture {
	t.Helper()
	ctx := context.Background()
	gvk := k.in.GVK
	name := k.id + "-" + string(s)
	f := &Fixture{Scenario: s, Namespace: k.ns}

	f.Cluster = &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: k.ns, Name: name}}
	switch k.role.name {
	case roleInfraCluster:
		f.Cluster.Spec.InfrastructureRef = clusterv1.ContractVersionedObjectReference{APIGroup: gvk.Group, Kind: gvk.Kind, Name: name}
		if k.in.ClusterProvidesEndpoint {
			f.Cluster.Spec.ControlPlaneEndpoint = clusterv1.APIEndpoint{Host: "192.0.2.10", Port: 6443}
		}
	case roleInfraMachine:
		f.Cluster.Spec.InfrastructureRef = clusterv1.ContractVersionedObjectReference{APIGroup: gvk.Group, Kind: infraClusterKind(gvk.Kind), Name: name}
		f.Cluster.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
	default:
		f.Cluster.Spec.InfrastructureRef = clusterv1.ContractVersionedObjectReference{
			APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "GenericInfrastructureCluster", Name: name}
		f.Cluster.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
	}
	if s == ScenarioPausedByCluster {
		f.Cluster.Spec.Paused = ptr.To(true)
	}

	if k.role.ownerKind == "Machine" {
		f.Machine = &clusterv1.Machine{
			ObjectMeta: metav1.ObjectMeta{Namespace: k.ns, Name: name, Labels: map[string]string{clusterv1.ClusterNameLabel: name}},
			Spec:       clusterv1.MachineSpec{ClusterName: name},
		}
		if k.role.name == roleInfraMachine {
			f.Machine.Spec.InfrastructureRef = clusterv1.ContractVersionedObjectReference{APIGroup: gvk.Group, Kind: gvk.Kind, Name: name}
			f.Machine.Spec.Bootstrap.DataSecretName = ptr.To(name + "-bootstrap")
			f.BootstrapSecret = &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Namespace: k.ns, Name: name + "-bootstrap", Labels: map[string]string{clusterv1.ClusterNameLabel: name}},
				Type:       clusterv1.ClusterSecretType,
				Data:       map[string][]byte{"value": []byte(DefaultBootstrapData), "format": []byte("cloud-config")},
			}
		} else {
			f.Machine.Spec.Bootstrap.ConfigRef = clusterv1.ContractVersionedObjectReference{APIGroup: gvk.Group, Kind: gvk.Kind, Name: name}
			f.Machine.Spec.InfrastructureRef = clusterv1.ContractVersionedObjectReference{
				APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "GenericInfrastructureMachine", Name: name}
		}
	}

	f.Object = k.in.NewObject(k.ns, name)
	if f.Object == nil {
		t.Fatalf("Input.NewObject(%q, %q) returned nil", k.ns, name)
	}
	if f.Object.GroupVersionKind() != gvk || f.Object.GetName() != name || f.Object.GetNamespace() != k.ns {
		t.Fatalf("Input.NewObject(%q, %q) returned %s %s/%s: want a %s with that namespace and name",
			k.ns, name, f.Object.GroupVersionKind(), f.Object.GetNamespace(), f.Object.GetName(), gvk)
	}
	owner.LabelCluster(f.Object, name)
	if s == ScenarioPausedByAnnotation {
		annotations := f.Object.GetAnnotations()
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[clusterv1.PausedAnnotation] = ""
		f.Object.SetAnnotations(annotations)
	}

	if k.in.Prepare != nil {
		k.in.Prepare(f)
	}

	status := f.Cluster.Status.DeepCopy()
	k.create(t, f.Cluster)
	if !equalZero(status) {
		envtest.UpdateStatus(t, k.in.Client, f.Cluster, func() { f.Cluster.Status = *status })
	}
	if f.Machine != nil {
		k.create(t, f.Machine)
	}
	if f.BootstrapSecret != nil {
		k.create(t, f.BootstrapSecret)
	}
	if k.in.Setup != nil {
		if err := k.in.Setup(ctx, f); err != nil {
			t.Fatalf("Input.Setup for scenario %s: %v", s, err)
		}
	}
	if s != ScenarioOwned {
		f.Object.SetOwnerReferences(append(f.Object.GetOwnerReferences(), k.ownerReference(f)))
	}
	k.mu.Lock()
	k.objects = append(k.objects, f.Object)
	k.mu.Unlock()
	if err := k.in.Client.Create(ctx, f.Object); err != nil {
		t.Fatalf("creating %s %s/%s from Input.NewObject: %v", gvk.Kind, k.ns, name, err)
	}
	return f
}

// ownerReference is the reference the core sets on the object under test: the
// Machine as controller (the Machine controller), or the Cluster as a plain
// owner (the Cluster controller, without ClusterClass).
func (k *kit) ownerReference(f *Fixture) metav1.OwnerReference {
	if k.role.ownerKind == "Machine" {
		return metav1.OwnerReference{APIVersion: clusterv1.GroupVersion.String(), Kind: "Machine", Name: f.Machine.Name,
			UID: f.Machine.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
	}
	return owner.ClusterReference(f.Cluster)
}

// adopt plays the core's adoption of the object: owner reference and
// cluster-name label, through the same code the core uses.
func (k *kit) adopt(f *Fixture) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		u := f.Object.DeepCopy()
		if err := k.in.Client.Get(context.Background(), client.ObjectKeyFromObject(u), u); err != nil {
			return err
		}
		if err := external.Adopt(context.Background(), k.in.Client, u, k.ownerReference(f), f.Cluster.Name, nil); err != nil {
			return err
		}
		f.Object = u
		return nil
	})
}

func (k *kit) create(t TB, obj client.Object) {
	t.Helper()
	if err := k.in.Client.Create(context.Background(), obj); err != nil {
		t.Fatalf("creating %T %s/%s: %v", obj, obj.GetNamespace(), obj.GetName(), err)
	}
	k.mu.Lock()
	k.children = append(k.children, obj)
	k.mu.Unlock()
}

// get reads the current version of obj.
func (k *kit) get(obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	u := obj.DeepCopy()
	return u, k.in.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), u)
}

// signal reads the role's initialization signal; absent or mistyped reads false.
func (k *kit) signal(u *unstructured.Unstructured) bool {
	b, err := k.role.signal.Get(u)
	return err == nil && *b
}

// cleanup deletes what the run created: first the objects under test (waiting,
// within the timeout, for their provider to release them), then the core objects
// and the run's namespace. A leftover is logged, not failed: Delete judges
// deletion.
func (k *kit) cleanup(t TB) {
	ctx := context.Background()
	k.mu.Lock()
	objects, children := k.objects, k.children
	k.mu.Unlock()
	for _, o := range objects {
		if err := k.in.Client.Delete(ctx, o); client.IgnoreNotFound(err) != nil {
			t.Logf("cleanup: deleting %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
	err := envtest.Poll(k.in.Timeout, func() (bool, error) {
		for _, o := range objects {
			if _, err := k.get(o); !apierrors.IsNotFound(err) {
				return false, fmt.Errorf("%s %s/%s still exists", o.GetKind(), o.GetNamespace(), o.GetName())
			}
		}
		return true, nil
	})
	if err != nil {
		t.Logf("cleanup: %v", err)
	}
	for i := len(children) - 1; i >= 0; i-- {
		if err := k.in.Client.Delete(ctx, children[i]); client.IgnoreNotFound(err) != nil {
			t.Logf("cleanup: deleting %T %s: %v", children[i], children[i].GetName(), err)
		}
	}
	if k.ownNS {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: k.ns}}
		if err := k.in.Client.Delete(ctx, ns); client.IgnoreNotFound(err) != nil {
			t.Logf("cleanup: deleting namespace %s: %v", k.ns, err)
		}
	}
}

// infraClusterKind guesses the InfraCluster kind of an InfraMachine kind
// (FooMachine → FooCluster) for Cluster.spec.infrastructureRef; Prepare can set
// the real one.
func infraClusterKind(machineKind string) string {
	if len(machineKind) > len("Machine") && machineKind[len(machineKind)-len("Machine"):] == "Machine" {
		return machineKind[:len(machineKind)-len("Machine")] + "Cluster"
	}
	return machineKind + "Cluster"
}

func equalZero(s *clusterv1.ClusterStatus) bool {
	return equality.Semantic.DeepEqual(*s, clusterv1.ClusterStatus{})
}

// describeStatus renders an object's status for failure messages.
func describeStatus(u *unstructured.Unstructured) string {
	if u == nil {
		return "<no object>"
	}
	status, ok := u.Object["status"]
	if !ok {
		return "status: <absent>"
	}
	b, err := json.Marshal(status)
	if err != nil {
		return fmt.Sprintf("status: %v", status)
	}
	const max = 2000
	if len(b) > max {
		return "status: " + string(b[:max]) + "..."
	}
	return "status: " + string(b)
}
