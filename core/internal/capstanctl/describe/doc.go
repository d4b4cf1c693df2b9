// Package describe shows a Cluster and everything that makes it up as a tree:
//
//	Cluster
//	├─ClusterInfrastructure - <spec.infrastructureRef kind>/<name>
//	├─ClusterResourceSets (with --show-resourcesets: those the Cluster's binding lists)
//	├─ControlPlane - <spec.controlPlaneRef kind>/<name>
//	│ └─Machines labelled cluster.x-k8s.io/control-plane
//	└─Workers
//	  ├─MachineDeployment → its Machines (cluster.x-k8s.io/deployment-name)
//	  ├─MachinePool → its Machines, if any (cluster.x-k8s.io/pool-name or owner)
//	  └─Machines of the Cluster owned by none of the above
//
// It is split in three: Read fetches the objects through a controller-runtime
// client (provider objects as unstructured, at the version their CRD's contract
// label names, through capstan.dev/contracts/external); Build is a pure function
// from those objects to a Node tree; PrintTable draws the tree. The tree is also the
// data of `-o yaml|json`, so the table and the data never disagree.
//
// READY is the status of the object's Ready condition. Objects without one but
// with an Available condition (Cluster, KubeadmControlPlane, MachineDeployment,
// MachinePool in v1beta2 have no Ready) show Available instead; which one was used is
// recorded as readyCondition in the data output. The rule is applied to every kind,
// not only those four, so a provider object that follows the same convention
// reads the same way. ClusterResourceSets have neither: they show ResourcesApplied.
//
// Grouping (on by default) collapses sibling Machines whose READY, REASON, MESSAGE
// and deleting state are identical into one row "N Machines..."; the group's SINCE
// is the newest transition among them (the group has been in that state at least
// that long), and its member names are kept in groupedNames. Machines whose
// conditions are shown (--show-conditions) are never grouped.
//
// Every list is sorted by name, so the same objects always give the same output.
// The package only reads: it never writes to the management cluster.
package describe
