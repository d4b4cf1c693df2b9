// Package patches applies a ClusterClass's patches (spec.patches) to the template copies of a
// topology Cluster's desired state, as upstream Cluster API's patch engine does. Inline patches
// (definitions) select templates by apiVersion, kind and matchResources, and their JSON patches
// (add, replace, remove) take a literal value, a variable (with nested paths and builtin.*
// variables) or a Go template's output; enabledIf decides per template whether a patch applies.
// External patches send every template to a Runtime Extension's GeneratePatches handler and apply
// the JSON or merge patches it answers. Patches run in class order, inline and external
// interleaved, each seeing the earlier ones' results; each sees only the variables it defines
// (status.variables[].definitions[].from). Then the external patches' ValidateTopology handlers
// run.
//
// It is pure: the extension calls go through the ExternalPatcher the caller passes in.
package patches
