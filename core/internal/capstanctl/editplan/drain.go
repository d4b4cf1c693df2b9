package editplan

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/remote"
	"capstan.dev/contracts/secret"
	"capstan.dev/core/internal/capstanctl/clusterclient"
	"capstan.dev/core/internal/drainrules"
)

// workloadTimeout bounds each request to a workload cluster: one that cannot be reached makes
// a note on the plan, and must not hold the whole plan for the default minute.
const workloadTimeout = 10 * time.Second

// drainReader tells what will hold the drains of the Machines a plan deletes. It reads each
// workload cluster (and its PodDisruptionBudgets) at most once per plan, and only reads.
type drainReader struct {
	mgmt      client.Client
	now       time.Time
	workloads map[client.ObjectKey]*workload
}

// workload is one workload cluster as the plan read it; err says why it could not be.
type workload struct {
	cluster *clusterv1.Cluster
	c       client.Client
	pdbs    []policyv1.PodDisruptionBudget
	err     error
}

func newDrainReader(mgmt client.Client, now time.Time) *drainReader {
	return &drainReader{mgmt: mgmt, now: now, workloads: map[client.ObjectKey]*workload{}}
}

// addHolds fills p.DrainHolds for the Machines p replaces or removes that have a Node. A
// workload cluster that cannot be read is a note on p naming the Cluster and the error; an
// error reading the management cluster fails the plan, as any other read of it does.
func (r *drainReader) addHolds(ctx context.Context, p *ObjectPlan, namespace string) error {
	unreachable := map[client.ObjectKey]bool{}
	for _, name := range p.Deleted() {
		m := &clusterv1.Machine{}
		if err := r.mgmt.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, m); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return clusterclient.Explain(err, "Machine "+namespace+"/"+name)
		}
		if _, skip := m.Annotations[clusterv1.ExcludeNodeDrainingAnnotation]; skip || !m.Status.NodeRef.IsDefined() {
			continue // the controller does not drain it
		}
		key := client.ObjectKey{Namespace: namespace, Name: m.Spec.ClusterName}
		w, err := r.workload(ctx, key)
		if err != nil {
			return err
		}
		var holds []string
		if w.err == nil {
			holds, w.err = r.holds(ctx, w, m)
		}
		if w.err != nil {
			if !unreachable[key] {
				unreachable[key] = true
				p.Notes = append(p.Notes, fmt.Sprintf("what holds the drains of the Machines of Cluster %s is not known: its workload cluster cannot be read: %v", key, w.err))
			}
			continue
		}
		if len(holds) > 0 {
			if p.DrainHolds == nil {
				p.DrainHolds = map[string][]string{}
			}
			p.DrainHolds[m.Name] = holds
		}
	}
	return nil
}

// workload connects to the workload cluster of Cluster key once, from its kubeconfig Secret
// as the controllers do; a failure to reach it is kept in the workload's err.
func (r *drainReader) workload(ctx context.Context, key client.ObjectKey) (*workload, error) {
	if w, ok := r.workloads[key]; ok {
		return w, nil
	}
	cluster, err := clusterclient.GetCluster(ctx, r.mgmt, key.Namespace, key.Name)
	if err != nil {
		return nil, err
	}
	w := &workload{cluster: cluster}
	r.workloads[key] = w
	s := &corev1.Secret{}
	secretKey := client.ObjectKey{Namespace: key.Namespace, Name: secret.Name(key.Name, secret.Kubeconfig)}
	if err := r.mgmt.Get(ctx, secretKey, s); err != nil {
		w.err = fmt.Errorf("reading Secret %s: %w", secretKey, err)
		return w, nil
	}
	cfg, err := remote.RESTConfigFromKubeconfig(key, s.Data[secret.KubeconfigDataName])
	if err != nil {
		w.err = err
		return w, nil
	}
	cfg.Timeout = workloadTimeout
	if w.c, err = client.New(cfg, client.Options{Scheme: scheme.Scheme}); err != nil {
		w.err = fmt.Errorf("connecting to %s: %w", cfg.Host, err)
		return w, nil
	}
	pdbs := &policyv1.PodDisruptionBudgetList{}
	if err := w.c.List(ctx, pdbs); err != nil {
		w.err = fmt.Errorf("listing PodDisruptionBudgets at %s: %w", cfg.Host, err)
		return w, nil
	}
	w.pdbs = pdbs.Items
	return w, nil
}

// holds says, Pod by Pod, what will hold the drain of m's Node, decided by drainrules as the
// Machine controller decides it; the error is a failure to read the workload cluster.
//
// A MachineDrainRule the controller cannot use holds the whole drain, so it is a hold, not an
// error. A Pod the drain evicts is held by PodDisruptionBudgets as the eviction API holds it:
// one budget that allows no disruption right now, or more than one budget (which the eviction
// API refuses whatever they allow); a Pod not running yet is evicted whatever the budgets say.
func (r *drainReader) holds(ctx context.Context, w *workload, m *clusterv1.Machine) ([]string, error) {
	node := &corev1.Node{}
	if err := w.c.Get(ctx, client.ObjectKey{Name: m.Status.NodeRef.Name}, node); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil // nothing left to drain
		}
		return nil, fmt.Errorf("reading Node %s: %w", m.Status.NodeRef.Name, err)
	}
	rules, err := drainrules.MatchingRules(ctx, r.mgmt, m, w.cluster)
	if err != nil {
		return []string{"the drain cannot start: " + err.Error()}, nil
	}
	pods, err := drainrules.PodsOnNode(ctx, w.c, node, rules, r.now)
	if err != nil {
		return nil, err
	}
	plan := drainrules.PlanPass(pods)
	var holds []string
	for _, d := range plan.WaitCompleted {
		holds = append(holds, drainrules.DescribePod(d, false)+": waited for until it completes, never evicted")
	}
	for _, d := range plan.Terminating {
		holds = append(holds, drainrules.DescribePod(d, false)+": terminating, waited for until it is gone")
	}
	for _, d := range plan.Later {
		holds = append(holds, drainrules.DescribePod(d, true)+": evicted only once the Pods of lower drain orders are gone")
	}
	for _, d := range pods {
		if d.Behavior == clusterv1.MachineDrainRuleDrainBehaviorSkip && !d.Left {
			holds = append(holds, drainrules.DescribePod(d, false)+": skipped, left running on the Node")
		}
	}
	for _, d := range append(append([]drainrules.PodDrain{}, plan.EvictNow...), plan.Later...) {
		if d.Pod.Status.Phase == corev1.PodPending {
			continue
		}
		pod := d.Pod.Namespace + "/" + d.Pod.Name
		switch pdbs := drainrules.SelectingPDBs(w.pdbs, d.Pod); {
		case len(pdbs) > 1:
			names := make([]string, len(pdbs))
			for i, pdb := range pdbs {
				names[i] = pdb.Name
			}
			holds = append(holds, fmt.Sprintf("%s: eviction refused: more than one PodDisruptionBudget selects it (%s), which the eviction API does not support",
				pod, strings.Join(names, ", ")))
		case len(pdbs) == 1 && pdbs[0].Status.DisruptionsAllowed == 0:
			holds = append(holds, fmt.Sprintf("%s: eviction refused until PodDisruptionBudget %s allows a disruption (status.disruptionsAllowed is 0 now)",
				pod, pdbs[0].Name))
		}
	}
	sort.Strings(holds)
	return holds, nil
}
