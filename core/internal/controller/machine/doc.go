// Package machine reconciles Machines: it takes ownership of a Machine's bootstrap
// config and infrastructure machine (read as unstructured through the contract),
// copies what they report into the Machine, finds the Machine's Node in the
// workload cluster by providerID, keeps managed labels on the Node, and on deletion
// drains and removes the Node after the infrastructure is gone. The drain follows the
// MachineDrainRules of the Machine's namespace and the Pods' cluster.x-k8s.io/drain label
// (Skip, WaitCompleted, eviction groups by order), as upstream. It never reads a
// provider type and never deletes anything that is not the Machine's own.
package machine
