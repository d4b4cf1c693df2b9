// Package move moves the Cluster API objects of one namespace from a source management
// cluster to a target one, as upstream `clusterctl move` does: it discovers the objects
// (every object of a Cluster API CRD in the namespace, plus the Secrets and ConfigMaps
// that belong to them), checks the target can take them, pauses them in the source,
// copies them to the target owners first with their status and with owner references
// rewritten to the copies' UIDs, resumes the copies and deletes the originals without
// running their finalizers. It owns that sequence and nothing else: it never installs
// providers, never touches objects outside the namespace, and never changes objects of
// the namespace that do not move.
//
// Every step can be run again: copies carry MovedFromUIDAnnotation, so a second run
// recognises what an interrupted one left in the target and reuses it, and the pause
// records itself (PausedByMoveAnnotation), so a second run still knows which Clusters
// were paused by the user before the move and must stay paused in the target.
//
// ToDirectory and FromDirectory are clusterctl's backup and restore (move --to-directory,
// --from-directory) on the same steps: the backup pauses what Move pauses, writes one file
// per object (FileName, status included, the UID kept because owner references name
// owners by it and clusterctl's restore reads it too) and resumes the source, which keeps
// everything; the restore reads the files, refuses before any write what it cannot
// create, then copies and resumes as Move does. Unlike clusterctl's restore, which skips
// an object already present whatever it holds, it refuses one that no restore of the same
// backup created (MovedFromUIDAnnotation tells them apart): a restore never overwrites an
// object it did not make.
package move

const (
	// MovedFromUIDAnnotation is set on every copy in the target to the UID of the object
	// it was copied from. It is how a re-run tells a copy left by an interrupted move
	// (reused) from an unrelated object of the same name (a conflict).
	MovedFromUIDAnnotation = "capstan.dev/moved-from-uid"

	// PausedByMoveAnnotation marks an object the move paused: a Cluster whose
	// spec.paused it set, or another object to which it added the paused annotation.
	// The copies lose the pause and this mark at the end; objects paused before the
	// move have no mark and stay paused.
	PausedByMoveAnnotation = "capstan.dev/move-paused"
)
