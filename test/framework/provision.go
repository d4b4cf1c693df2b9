package framework

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// WaitInput says which cluster to wait for and what to install into it once its API answers.
type WaitInput struct {
	// Mgmt reads the management cluster.
	Mgmt client.Client
	// Cluster names the Cluster object.
	Cluster client.ObjectKey
	// CNI is applied to the workload cluster as soon as its API server answers (nodes stay
	// NotReady without a network plugin, as in upstream's quickstart).
	CNI []*unstructured.Unstructured
	// Progress, when set, gets a line per change.
	Progress *Progress
	// Interval between two reads; 2s when zero.
	Interval time.Duration
}

// WaitForNodesReady waits until the Cluster has as many Machines as its control plane and
// workers desire, each with a Node, and every Node of the workload cluster is Ready. It
// returns the workload kubeconfig. When ctx ends first, the error carries what was last seen,
// so a timeout says what was being waited for.
func WaitForNodesReady(ctx context.Context, in WaitInput) ([]byte, error) {
	interval := in.Interval
	if interval == 0 {
		interval = 2 * time.Second
	}
	var (
		kubeconfig []byte
		workload   client.Client
		cniDone    = len(in.CNI) == 0
		lastErr    error
		lastState  map[string]string
	)
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		if workload == nil {
			kc, err := WorkloadKubeconfig(ctx, in.Mgmt, in.Cluster)
			switch {
			case err == nil:
				kubeconfig = kc
				if workload, err = WorkloadClient(kc, clientgoscheme.Scheme); err != nil {
					return nil, err
				}
			case !errors.Is(err, ErrNoKubeconfig):
				lastErr = err
			}
		}
		if workload != nil && !cniDone {
			if err := Apply(ctx, workload, in.CNI); err != nil {
				lastErr = fmt.Errorf("installing the CNI (retried until the API server answers): %w", err)
			} else {
				cniDone = true
				if in.Progress != nil {
					in.Progress.Event("CNI applied to the workload cluster")
				}
			}
		}
		state, err := ClusterState(ctx, in.Mgmt, in.Cluster, workload)
		if err != nil {
			lastErr = err
		} else {
			lastState = state
			if in.Progress != nil {
				in.Progress.Report(state)
			}
			if cniDone {
				ready, err := allNodesReady(ctx, in.Mgmt, in.Cluster, workload)
				if err != nil {
					lastErr = err
				} else if ready {
					return kubeconfig, nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil, timeoutError(in.Cluster, lastState, lastErr)
		case <-ticker.C:
		}
	}
}

// allNodesReady is true when every desired Machine exists with a Node, and every Node of the
// workload cluster is Ready.
func allNodesReady(ctx context.Context, mgmt client.Reader, key client.ObjectKey, workload client.Reader) (bool, error) {
	cluster := &clusterv1.Cluster{}
	if err := mgmt.Get(ctx, key, cluster); err != nil {
		return false, err
	}
	desired := int32(0)
	if cp := cluster.Status.ControlPlane; cp != nil && cp.DesiredReplicas != nil {
		desired += *cp.DesiredReplicas
	}
	if w := cluster.Status.Workers; w != nil && w.DesiredReplicas != nil {
		desired += *w.DesiredReplicas
	}
	machines := &clusterv1.MachineList{}
	if err := mgmt.List(ctx, machines, client.InNamespace(key.Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: key.Name}); err != nil {
		return false, err
	}
	if desired == 0 || int32(len(machines.Items)) != desired {
		return false, nil
	}
	for _, m := range machines.Items {
		if m.Status.NodeRef.Name == "" || !m.DeletionTimestamp.IsZero() {
			return false, nil
		}
	}
	nodes := &corev1.NodeList{}
	if err := workload.List(ctx, nodes); err != nil {
		return false, err
	}
	if int32(len(nodes.Items)) != desired {
		return false, nil
	}
	for i := range nodes.Items {
		if !NodeIsReady(&nodes.Items[i]) {
			return false, nil
		}
	}
	return true, nil
}

func timeoutError(key client.ObjectKey, state map[string]string, lastErr error) error {
	lines := make([]string, 0, len(state))
	for k, v := range state {
		lines = append(lines, "  "+k+": "+v)
	}
	sort.Strings(lines)
	msg := fmt.Sprintf("cluster %s: not every node became Ready in time; last seen:\n%s", key, strings.Join(lines, "\n"))
	if lastErr != nil {
		msg += "\nlast error: " + lastErr.Error()
	}
	return errors.New(msg)
}

// Scheme reads core Cluster API objects and Kubernetes built-ins.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(clusterv1.AddToScheme(s))
	return s
}
