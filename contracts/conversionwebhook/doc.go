// Package conversionwebhook serves a provider's CRD conversion webhook from the provider's own
// manager, with no cert-manager: it issues its own CA and serving certificate, rotates both
// before they expire, and keeps the provider's CRDs pointed at itself (the Webhook conversion
// strategy, the client config for where it runs, the CA bundle, and the older versions turned
// on). It owns the webhook server, the certificate Secret and those CRD fields; the conversions
// themselves come from the caller (per kind, hub and spoke).
//
// Two shapes of deployment: a manager in a Deployment names the Service in front of it
// (--webhook-service=namespace/name, client config service + path /convert, certificate for
// <name>.<namespace>.svc); a manager run as a local process (make run, capstanctl init --dev,
// Tilt, envtest) binds a loopback IP (--webhook-bind-address=127.0.0.1:port) and the client
// config is the URL https://127.0.0.1:port/convert, with the IP in the certificate.
//
// Why not open-policy-agent/cert-controller (served by the module proxy, v0.16.0): it expects
// the certificate Secret mounted into the pod and fails the manager when the files do not appear,
// which never happens for a local process; it issues DNS names only (a loopback URL needs an IP
// SAN); it caches every CRD of the cluster in full to inject one field; and it would add a second
// Kubernetes library line (k8s.io v0.35, controller-runtime v0.23) to a module pinned on v0.37.
// What this package needs is a CA, a certificate and a merge patch: small enough to own and test.
//
// The deployed CRDs should name the webhook themselves (strategy, client config, the older
// versions served) and leave only caBundle to this package: spec.versions is an atomic list, so
// an apply of a CRD that says served: false switches the version off until the next resync.
// capstanctl init renders them so (core/config/crd, and the loopback URL for --dev).
//
// One trust root. Behind a Service (a Deployment of any number of replicas) the CA and serving
// certificate live in one Secret, <service name>-cert in the Service's namespace, read live by
// name each resync (the manager caches no Secret) and written only with the resourceVersion it
// was read at: the first replica to create it wins and the others adopt it, and of replicas that
// find it due for rotation at once, one writes the new CA and the others adopt that. The CRDs'
// bundle is derived from the Secret alone (its CA, then, until it expires, the CA before the last
// rotation), so every replica computes the same bytes, one of them writes each CRD once, and
// from then on no replica writes anything (a CRD write closes every watch on its kind). A replica
// serves the Secret's certificate only once every CRD trusts its CA; until then the one it
// served before stays, which the bundle still holds. Each write is a single API call, so kill -9
// at any instant leaves the old or the new trust root; a Secret that is deleted or unusable is
// made anew, keeping the CA the replicas served as the previous one. The CA's key is never
// stored: a rotation makes a new CA. A local process (no Service: the API server calls its
// loopback URL, which no other process serves) keeps the same in memory.
package conversionwebhook
