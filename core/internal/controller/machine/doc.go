// Package machine reconciles Machines: it takes ownership of a Machine's bootstrap
// config and infrastructure machine (read as unstructured through the contract),
// copies what they report into the Machine, finds the Machine's Node in the
// workload cluster by providerID, keeps the Machine's managed labels and annotations
// (and the interruptible label its infrastructure machine asks for) on the Node, and on
// deletion drains the Node, waits for its volumes to detach and removes the Node after
// the infrastructure is gone. The drain follows the MachineDrainRules of the Machine's
// namespace and the Pods' cluster.x-k8s.io/drain label (Skip, WaitCompleted, eviction
// groups by order), as upstream, decided by package drainrules (which `capstanctl plan` shares
// to predict drains); a refused eviction is reported and the other Pods are
// evicted all the same. A Node is neither drained nor deleted while the Cluster or its
// control plane is being deleted or no control-plane Machine is left. It never reads a
// provider type and never deletes anything that is not the Machine's own.
package machine
