// Package variables checks ClusterClass variable definitions and Cluster topology variable
// values, as upstream Cluster API's webhooks do, with pure functions over the API types: a
// definition's schema is converted to a CRD schema (apiextensions-apiserver) and must be
// structural, with defaults that match it and CEL rules that compile; a value is defaulted,
// checked against its schema (types, enums, formats, required fields, unknown fields) and its
// x-kubernetes-validations rules. Errors carry the field path (spec.variables[0].schema... or
// spec.topology.variables[name].value...) and the variable name.
//
// It owns no I/O and no API writes: the ClusterClass controller publishes what it finds as
// conditions and status.variables, and the topology controller uses it on Clusters.
package variables
