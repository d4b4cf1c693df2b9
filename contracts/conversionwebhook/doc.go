// Package conversionwebhook serves a provider's CRD conversion webhook from the provider's own
// manager, with no cert-manager: it issues its own CA and serving certificate, rotates both
// before they expire, and keeps the provider's CRDs pointed at itself (the Webhook conversion
// strategy, the client config for where it runs, the CA bundle, and the older versions turned
// on). It owns the webhook server, the certificate files and those CRD fields; the conversions
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
// The certificate lives in memory only (the server asks for it on every handshake, so a rotation
// takes effect at once). Safe to kill -9: nothing is persisted but the CRD fields, re-checked
// every resync. Several replicas, or a restarted process, each have
// their own CA: the bundle keeps up to three unexpired CAs, so every replica behind the Service
// stays trusted, and a rotation never leaves the API server trusting only a certificate the
// server does not serve yet.
package conversionwebhook
