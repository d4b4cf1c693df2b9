// Package providercomponents turns a clusterctl-format components file into the objects
// `capstanctl init` applies, as clusterctl does: it substitutes the variables (${VAR},
// ${VAR:=default}, ${VAR:-default}; the environment first, then the configuration file, then
// the inline default), refusing every missing variable at once; it moves the components into
// their target namespace (the one Namespace object's, or --target-namespace), rewriting the
// namespaces of namespaced objects, of RBAC subjects, of webhook and conversion service
// references and of cert-manager's CA injection; it labels every object with the provider's
// manifest label and clusterctl's ownership label, which is how delete finds them again; and it
// builds the provider's inventory entry. It also names the objects that need cert-manager.
//
// It is pure: bytes and values in, objects out. It never reads files and never talks to a
// cluster (packages repository and install do).
package providercomponents
