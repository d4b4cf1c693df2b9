package conformance

import (
	"context"
	"fmt"
	"time"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/envtest"
)

var crdGVK = apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition")

// getCRD reads the CRD the core would GET for group and kind. When it is missing,
// the error names a CRD that serves the kind under another name, if any.
func (k *kit) getCRD(group, kind string) (*apiextensionsv1.CustomResourceDefinition, error) {
	ctx := context.Background()
	name := contract.CalculateCRDName(group, kind)
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(crdGVK)
	err := k.in.Client.Get(ctx, client.ObjectKey{Name: name}, u)
	if apierrors.IsNotFound(err) {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinitionList"))
		if k.in.Client.List(ctx, list) == nil {
			for _, item := range list.Items {
				g, _, _ := unstructured.NestedString(item.Object, "spec", "group")
				kd, _, _ := unstructured.NestedString(item.Object, "spec", "names", "kind")
				if g == group && kd == kind {
					return nil, fmt.Errorf("there is no CRD named %s, but CRD %s serves %s.%s: the core GETs the CRD by the name contract.CalculateCRDName gives, so its plural must be %s",
						name, item.GetName(), kind, group, name[:len(name)-len(group)-1])
				}
			}
		}
		return nil, fmt.Errorf("there is no CRD named %s: is it installed in the API server the client talks to?", name)
	}
	if err != nil {
		return nil, fmt.Errorf("getting CRD %s: %w", name, err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, crd); err != nil {
		return nil, fmt.Errorf("decoding CRD %s: %w", name, err)
	}
	return crd, nil
}

func (k *kit) checkCRD(t TB, getErr error) {
	if getErr != nil {
		t.Fatalf("%s: %v", fmt.Sprintf(ruleCRDName, k.role.name, k.role.name), getErr)
	}
	for _, p := range crdProblems(k.crd, k.in.GVK, k.role.name, true) {
		t.Errorf("%s", p)
	}
}

func (k *kit) checkTemplateCRD(t TB) {
	gvk := k.in.GVK
	gvk.Kind += "Template"
	crd, err := k.getCRD(gvk.Group, gvk.Kind)
	if err != nil {
		t.Fatalf("%s: %v", fmt.Sprintf(ruleTemplate, k.role.name, k.role.name), err)
	}
	for _, p := range crdProblems(crd, gvk, k.role.name+"Template", false) {
		t.Errorf("%s", p)
	}
}

func (k *kit) checkSchema(t TB) {
	for _, p := range schemaProblems(k.crd, k.in.GVK.Version, k.role.name, k.role.schema) {
		t.Errorf("%s", p)
	}
}

// workflowRule names the reconciliation workflow every contract page describes.
func (k *kit) workflowRule(step string) string {
	return fmt.Sprintf("%s: reconciliation workflow (%s)", k.role.name, step)
}

func (k *kit) checkWaitsForOwner(t TB) {
	rule := k.workflowRule(fmt.Sprintf("act only once the core has set the owner reference to the %s", k.role.ownerKind))
	last, violated, deleted := k.await(k.main.Object, k.in.PauseWindow, k.signal)
	switch {
	case deleted:
		t.Errorf("%s: the object was deleted while it waited for its owner", rule)
	case violated:
		t.Errorf("%s: %s became true within %s although the object has no owner reference to a %s (only the cluster-name label, as a clone from a template has); %s",
			rule, k.role.signal, k.in.PauseWindow, k.role.ownerKind, describeStatus(last))
	}
}

func (k *kit) checkProvisioned(t TB) {
	if err := k.adopt(k.main); err != nil {
		t.Fatalf("playing the core: setting the owner reference to %s %s: %v", k.role.ownerKind, k.main.Cluster.Name, err)
	}
	start := time.Now()
	last, ok, deleted := k.await(k.main.Object, k.in.Timeout, k.signal)
	switch {
	case deleted:
		t.Fatalf("%s: the object was deleted while the kit waited for %s", k.role.signalRule, k.role.signal)
	case !ok:
		t.Fatalf("%s: %s did not become true within %s after the owner reference to the %s and the cluster-name label were set; last %s",
			k.role.signalRule, k.role.signal, k.in.Timeout, k.role.ownerKind, describeStatus(last))
	}
	k.firstSignal = last
	t.Logf("%s became true %s after the owner reference was set", k.role.signal, time.Since(start).Round(time.Millisecond))
}

func (k *kit) checkFinalizer(t TB) {
	if len(k.firstSignal.GetFinalizers()) == 0 {
		t.Errorf("%s: the first version with %s=true (resourceVersion %s) has no finalizer: deleting the object at that moment would leak what was provisioned",
			k.workflowRule("add the provider's finalizer before provisioning, remove it once the infrastructure is deleted"),
			k.role.signal, k.firstSignal.GetResourceVersion())
	}
}

func (k *kit) checkFieldTypes(t TB) {
	latest, err := k.get(k.main.Object)
	if err != nil {
		t.Fatalf("reading %s: %v", k.main.Object.GetName(), err)
	}
	// The version that first reported the signal, and the current one.
	seen := map[string]bool{}
	for _, p := range append(k.role.fieldProblems(k.firstSignal), k.role.fieldProblems(latest)...) {
		if !seen[p] {
			seen[p] = true
			t.Errorf("%s", p)
		}
	}
}

func (k *kit) checkOwnerAndLabel(t TB) {
	latest, err := k.get(k.main.Object)
	if err != nil {
		t.Fatalf("reading %s: %v", k.main.Object.GetName(), err)
	}
	want := k.ownerReference(k.main)
	rule := fmt.Sprintf("All resources: owner references and labels the core sets (%s owner reference, label %s)", want.Kind, clusterv1.ClusterNameLabel)
	var found *metav1.OwnerReference
	for _, ref := range latest.GetOwnerReferences() {
		if ref.UID == want.UID {
			found = &ref
		}
	}
	switch {
	case found == nil:
		t.Errorf("%s: the owner reference to %s %s that the core set is gone (owner references now %v): the provider must add to metadata, never replace it",
			rule, want.Kind, want.Name, latest.GetOwnerReferences())
	case want.Controller != nil && (found.Controller == nil || !*found.Controller):
		t.Errorf("%s: the owner reference to %s %s is no longer a controller reference", rule, want.Kind, want.Name)
	}
	if got := latest.GetLabels()[clusterv1.ClusterNameLabel]; got != k.main.Cluster.Name {
		t.Errorf("%s: label %s is %q, want %q as the core set it", rule, clusterv1.ClusterNameLabel, got, k.main.Cluster.Name)
	}
}

// pausedState is what must not change while an object is paused: spec and status,
// except the Paused condition the provider reports.
func pausedState(u *unstructured.Unstructured) map[string]any {
	out := map[string]any{}
	if spec, ok := u.Object["spec"]; ok {
		out["spec"] = runtime.DeepCopyJSONValue(spec)
	}
	status, ok := u.Object["status"].(map[string]any)
	if !ok {
		if s, present := u.Object["status"]; present {
			out["status"] = runtime.DeepCopyJSONValue(s)
		}
		return out
	}
	status = runtime.DeepCopyJSONValue(status).(map[string]any)
	if list, ok := status["conditions"].([]any); ok {
		var kept []any
		for _, c := range list {
			if m, ok := c.(map[string]any); ok && m["type"] == clusterv1.PausedCondition {
				continue
			}
			kept = append(kept, c)
		}
		if len(kept) == 0 {
			delete(status, "conditions")
		} else {
			status["conditions"] = kept
		}
	}
	if len(status) > 0 {
		out["status"] = status
	}
	return out
}

// pausedStatus is the status of the Paused condition, "" when there is none.
func pausedStatus(u *unstructured.Unstructured) string {
	c, err := conditions.UnstructuredGet(u, clusterv1.PausedCondition)
	if err != nil || c == nil {
		return ""
	}
	return string(c.Status)
}

// checkPaused creates a paused object, requires it to stay untouched (but for
// its Paused condition) for the window, then resumes it and requires it to be
// provisioned: pause must delay reconciliation, not break it.
func (k *kit) checkPaused(t TB, s Scenario) {
	how := "the object has the annotation " + clusterv1.PausedAnnotation
	if s == ScenarioPausedByCluster {
		how = "its Cluster has spec.paused=true"
	}
	rule := fmt.Sprintf("%s: pausing (no reconciliation while %s)", k.role.name, how)
	_, waitForCondition := k.in.Skip[CheckPausedCondition]
	waitForCondition = !waitForCondition
	ev := &pauseEvidence{ran: true}
	k.paused[s] = ev
	start := time.Now()

	f := k.newScenario(t, s)
	before := pausedState(f.Object)
	deadline := k.in.Timeout
	if deadline < k.in.PauseWindow {
		deadline = k.in.PauseWindow
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	window := time.NewTimer(k.in.PauseWindow)
	defer window.Stop()
	versions := k.stream(ctx, f.Object)
	windowOver, changed := false, false
watch:
	for {
		select {
		case v, open := <-versions:
			if !open {
				break watch
			}
			if v.deleted {
				t.Fatalf("%s: the paused object was deleted", rule)
			}
			ev.lastPausedStatus = pausedStatus(v.obj)
			if ev.lastPausedStatus == string(metav1.ConditionTrue) {
				ev.trueWhilePaused = true
			}
			if diff := cmp.Diff(before, pausedState(v.obj)); diff != "" {
				t.Errorf("%s: the provider changed the object while paused (resourceVersion %s; -created +now, the Paused condition ignored):\n%s",
					rule, v.obj.GetResourceVersion(), diff)
				changed = true
				break watch
			}
			if windowOver && (ev.trueWhilePaused || !waitForCondition) {
				break watch
			}
		case <-window.C:
			windowOver = true
			if ev.trueWhilePaused || !waitForCondition {
				break watch
			}
		}
	}
	cancel()
	ev.watched = time.Since(start).Round(100 * time.Millisecond)
	if !changed {
		t.Logf("no spec or status change for %s while paused (Paused condition: %q)", k.in.PauseWindow, ev.lastPausedStatus)
	}

	k.resume(t, f)
	last, ok, deleted := k.await(f.Object, k.in.Timeout, func(u *unstructured.Unstructured) bool {
		ev.lastPausedStatus = pausedStatus(u)
		return k.signal(u) && ev.lastPausedStatus != string(metav1.ConditionTrue)
	})
	ev.notTrueOnResume = pausedStatus(last) != string(metav1.ConditionTrue)
	switch {
	case deleted:
		t.Errorf("%s: the object was deleted after it was resumed", rule)
	case !ok && !k.signal(last):
		t.Errorf("%s: once resumed, %s did not become true within %s: pausing must delay reconciliation, not stop it (does the controller watch %s?); last %s",
			rule, k.role.signal, k.in.Timeout, map[Scenario]string{ScenarioPausedByAnnotation: "its own objects", ScenarioPausedByCluster: "Clusters"}[s],
			describeStatus(last))
	}
}

// resume plays the user ending the pause.
func (k *kit) resume(t TB, f *Fixture) {
	t.Helper()
	ctx := context.Background()
	if f.Scenario == ScenarioPausedByCluster {
		envtest.Update(t, k.in.Client, f.Cluster, func() { f.Cluster.Spec.Paused = nil })
		return
	}
	p := []byte(fmt.Sprintf(`{"metadata":{"annotations":{%q:null}}}`, clusterv1.PausedAnnotation))
	if err := k.in.Client.Patch(ctx, f.Object.DeepCopy(), client.RawPatch(types.MergePatchType, p)); err != nil {
		t.Fatalf("removing the annotation %s: %v", clusterv1.PausedAnnotation, err)
	}
	if u, err := k.get(f.Object); err == nil {
		f.Object = u
	}
}

func (k *kit) checkPausedCondition(t TB) {
	rule := fmt.Sprintf("%s: pausing (surface the pause as status.conditions[Paused])", k.role.name)
	ran := 0
	for _, s := range []Scenario{ScenarioPausedByAnnotation, ScenarioPausedByCluster} {
		ev := k.paused[s]
		if ev == nil || !ev.ran {
			continue
		}
		ran++
		if !ev.trueWhilePaused {
			t.Errorf("%s: scenario %s: no Paused condition with status True appeared in the %s the paused object was watched (last Paused status %q)",
				rule, s, ev.watched, ev.lastPausedStatus)
		}
		if !ev.notTrueOnResume {
			t.Errorf("%s: scenario %s: the Paused condition is still %q after the pause ended", rule, s, ev.lastPausedStatus)
		}
	}
	if ran == 0 {
		t.Skipf("no pause scenario ran")
	}
}

func (k *kit) checkDelete(t TB) {
	rule := k.workflowRule("on delete, release what was provisioned, then remove the finalizer")
	obj := k.main.Object
	if err := k.in.Client.Delete(context.Background(), obj.DeepCopy()); err != nil {
		t.Fatalf("deleting %s: %v", obj.GetName(), err)
	}
	cur, err := k.get(obj)
	if apierrors.IsNotFound(err) {
		return
	}
	if err != nil {
		t.Fatalf("reading %s: %v", obj.GetName(), err)
	}
	last, _, deleted := k.await(cur, k.in.Timeout, func(*unstructured.Unstructured) bool { return false })
	if deleted {
		return
	}
	if _, err := k.get(obj); apierrors.IsNotFound(err) {
		return
	}
	t.Errorf("%s: %s %s/%s still exists %s after its deletion, with finalizers %v; last %s",
		rule, obj.GetKind(), obj.GetNamespace(), obj.GetName(), k.in.Timeout, last.GetFinalizers(), describeStatus(last))
}
