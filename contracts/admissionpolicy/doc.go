// Package admissionpolicy reads, installs and waits for the MutatingAdmissionPolicies (with their
// bindings) that providers ship in config/admission: the defaulting upstream Cluster API does in
// mutating webhooks, done by the API server itself. Test environments (package envtest), the
// local management plane (hack/tools/cmd/mgmt) and `capstanctl init` use it, so that every
// way of running Capstan defaults objects from the same files.
//
// The API server does not apply a policy the moment it is created: it reloads policies about
// once a second, and it types custom resources by their OpenAPI schema, which it re-reads every
// five seconds; until then a request for a kind a policy matches fails with 503 "Resource kind
// ... not found". WaitInEffect waits for both, so that nothing created right after an install
// is refused or left without its defaults. The package owns no policy content.
package admissionpolicy
