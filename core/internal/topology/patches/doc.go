// Package patches applies a ClusterClass's inline patches (spec.patches[].definitions) to the
// template copies of a topology Cluster's desired state, as upstream Cluster API's inline patch
// engine does: each definition selects templates by apiVersion, kind and matchResources, and its
// JSON patches (add, replace, remove) take a literal value, a variable (with nested paths and
// builtin.* variables) or a Go template's output; enabledIf decides per template whether a patch
// applies. Patches run in class order, each seeing the earlier ones' results.
//
// It is pure: no I/O. External patches (Runtime SDK extensions) are not implemented here; a
// class that uses them gets an error saying so.
package patches
