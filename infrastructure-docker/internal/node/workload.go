package node

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"capstan.dev/contracts/remote"
)

// WorkloadClusters is what the controllers need of contracts/remote.ClusterCache.
type WorkloadClusters interface {
	GetClient(ctx context.Context, cluster client.ObjectKey) (client.Client, error)
	GetClusterSource(controllerName string, mapFunc func(context.Context, client.ObjectKey) []reconcile.Request, opts ...remote.ClusterSourceOption) source.Source
}

// Retry intervals while a Node is not there or not ours.
const (
	nodePoll       = 5 * time.Second
	nodeMismatched = time.Minute
)

// NodeWait is why SetProviderID could not (yet) set a Node's providerID. The zero value means
// the Node carries it.
type NodeWait struct {
	// Message says what is awaited, for a condition.
	Message string
	// RequeueAfter is when to look again; zero when an event re-triggers the caller (the
	// ClusterCache's connect event).
	RequeueAfter time.Duration
}

// Waiting reports whether the Node does not carry the providerID yet.
func (w NodeWait) Waiting() bool { return w.Message != "" }

// SetProviderID sets spec.providerID of the workload Node named after the container: there is no
// cloud provider to do it, and the core finds the Node by it (Machine: spec.providerID;
// MachinePool: spec.providerIDList). A Node's providerID is immutable: one that carries another
// ID is reported, never changed.
func SetProviderID(ctx context.Context, workload WorkloadClusters, cluster client.ObjectKey, nodeName, providerID string) (NodeWait, error) {
	wc, err := workload.GetClient(ctx, cluster)
	if errors.Is(err, remote.ErrClusterNotConnected) {
		return NodeWait{Message: fmt.Sprintf("Waiting for a connection to the workload cluster %s to set the providerID of Node %s", cluster, nodeName)}, nil
	}
	if err != nil {
		return NodeWait{}, err
	}
	node := &corev1.Node{}
	if err := wc.Get(ctx, client.ObjectKey{Name: nodeName}, node); err != nil {
		if client.IgnoreNotFound(err) != nil {
			return NodeWait{}, fmt.Errorf("reading Node %s of the workload cluster %s: %w", nodeName, cluster, err)
		}
		return NodeWait{Message: fmt.Sprintf("Waiting for Node %s to register in the workload cluster %s", nodeName, cluster), RequeueAfter: nodePoll}, nil
	}
	switch node.Spec.ProviderID {
	case providerID:
		return NodeWait{}, nil
	case "":
		ctrl.LoggerFrom(ctx).Info("Setting the Node's providerID", "Node", node.Name, "providerID", providerID)
		before := node.DeepCopy()
		node.Spec.ProviderID = providerID
		if err := wc.Patch(ctx, node, client.MergeFrom(before)); err != nil {
			return NodeWait{}, fmt.Errorf("setting the providerID of Node %s in the workload cluster %s: %w", node.Name, cluster, err)
		}
		return NodeWait{}, nil
	default:
		return NodeWait{Message: fmt.Sprintf(
			"Node %s has providerID %q, not %q: it is not this node container's Node; remove the Node or the stale Machine",
			node.Name, node.Spec.ProviderID, providerID), RequeueAfter: nodeMismatched}, nil
	}
}
