// Package external reads the provider objects a Capstan object references
// (infrastructureRef, bootstrap.configRef, controlPlaneRef) as unstructured, at the
// API version the provider's CRD declares for the contract, and adds one watch per
// referenced GroupKind the first time a controller meets it. It knows no provider
// type: everything it learns comes from the CRD's contract label.
package external
