package conversionwebhook

import (
	"bytes"
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// trustRoot is what every replica serves and every CRD trusts: one CA and its serving
// certificate, and during the overlap after a rotation the CA before it.
type trustRoot struct {
	current  *servingCertificate
	previous []byte // PEM of the CA before the last rotation; trusted until it expires
}

// bundle is the CA bundle of the CRDs: the current CA, then the previous one while it is
// unexpired. It depends on the trust root alone, so every replica writes the same bytes.
func (r *trustRoot) bundle(now time.Time) []byte {
	out := append([]byte(nil), r.current.caPEM...)
	if len(r.previous) > 0 && unexpired(r.previous, now) && !bytes.Equal(r.previous, r.current.caPEM) {
		out = append(out, r.previous...)
	}
	return out
}

// rotated is the trust root after a rotation to next: the current CA becomes the previous one.
func (r *trustRoot) rotated(next *servingCertificate) *trustRoot {
	return &trustRoot{current: next, previous: r.current.caPEM}
}

// trustStore keeps the trust root. load returns it (making one if there is none, or if the one
// there is unusable: after ifUnusable, the CA the caller serves, which stays trusted as the
// previous one); rotate replaces it by root.rotated(next) unless another replica rotated first,
// and returns what is there then.
type trustStore interface {
	load(ctx context.Context, ifUnusable []byte) (*trustRoot, error)
	rotate(ctx context.Context, root *trustRoot, next *servingCertificate) (*trustRoot, error)
}

// memoryStore is the trust root of a local process: the API server calls its URL, which no other
// process serves, so it is the only writer.
type memoryStore struct{ root *trustRoot }

func (m *memoryStore) load(context.Context, []byte) (*trustRoot, error) { return m.root, nil }

func (m *memoryStore) rotate(_ context.Context, root *trustRoot, next *servingCertificate) (*trustRoot, error) {
	m.root = root.rotated(next)
	return m.root, nil
}

// Keys of the shared Secret: the serving pair under the kubernetes.io/tls names, its CA, and
// the CA before the last rotation.
const (
	secretCAKey         = "ca.crt"
	secretPreviousCAKey = "previous-ca.crt"
)

// secretStore is the trust root of replicas behind a Service, shared through one Secret. It is
// read live (the manager caches no Secret) and written with the resourceVersion it was read at:
// the first replica to create it, or to rotate it, wins, and the others adopt what it wrote.
// Each write is one atomic API call, so a process killed at any point leaves either the old or
// the new trust root, never half of one.
type secretStore struct {
	reader   client.Reader
	writer   client.Writer
	key      types.NamespacedName
	hosts    []string
	validity time.Duration
	now      func() time.Time
}

func (s *secretStore) load(ctx context.Context, ifUnusable []byte) (*trustRoot, error) {
	secret := &corev1.Secret{}
	err := s.reader.Get(ctx, s.key, secret)
	if apierrors.IsNotFound(err) {
		return s.create(ctx, ifUnusable)
	}
	if err != nil {
		return nil, fmt.Errorf("reading Secret %s: %w", s.key, err)
	}
	root, err := s.parse(secret)
	if err == nil {
		return root, nil
	}
	ctrl.LoggerFrom(ctx).Info("Replacing the conversion webhook certificate", "Secret", s.key.String(), "reason", err.Error())
	next, err := issue(s.hosts, s.validity, s.now())
	if err != nil {
		return nil, err
	}
	return s.write(ctx, secret, &trustRoot{current: next, previous: ifUnusable})
}

// create makes the Secret; when another replica made it first, its trust root is adopted.
func (s *secretStore) create(ctx context.Context, previous []byte) (*trustRoot, error) {
	next, err := issue(s.hosts, s.validity, s.now())
	if err != nil {
		return nil, err
	}
	root := &trustRoot{current: next, previous: previous}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: s.key.Namespace, Name: s.key.Name}, Type: corev1.SecretTypeTLS}
	setRoot(secret, root)
	if err := s.writer.Create(ctx, secret); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return s.adopt(ctx)
		}
		return nil, fmt.Errorf("creating Secret %s: %w", s.key, err)
	}
	ctrl.LoggerFrom(ctx).Info("Created the conversion webhook certificate", "Secret", s.key.String(), "notAfter", next.notAfter)
	return root, nil
}

func (s *secretStore) rotate(ctx context.Context, root *trustRoot, next *servingCertificate) (*trustRoot, error) {
	secret := &corev1.Secret{}
	if err := s.reader.Get(ctx, s.key, secret); err != nil {
		return nil, fmt.Errorf("reading Secret %s: %w", s.key, err)
	}
	if there, err := s.parse(secret); err != nil || !there.current.sameCA(root.current) {
		return s.load(ctx, root.current.caPEM) // another replica rotated (or it was replaced)
	}
	return s.write(ctx, secret, root.rotated(next))
}

// write stores root in secret, guarded by the resourceVersion it was read at.
func (s *secretStore) write(ctx context.Context, secret *corev1.Secret, root *trustRoot) (*trustRoot, error) {
	setRoot(secret, root)
	if err := s.writer.Update(ctx, secret); err != nil {
		if apierrors.IsConflict(err) {
			return s.adopt(ctx)
		}
		return nil, fmt.Errorf("writing Secret %s: %w", s.key, err)
	}
	ctrl.LoggerFrom(ctx).Info("Wrote the conversion webhook certificate", "Secret", s.key.String(), "notAfter", root.current.notAfter)
	return root, nil
}

// adopt reads what another replica wrote first.
func (s *secretStore) adopt(ctx context.Context) (*trustRoot, error) {
	secret := &corev1.Secret{}
	if err := s.reader.Get(ctx, s.key, secret); err != nil {
		return nil, fmt.Errorf("reading Secret %s: %w", s.key, err)
	}
	root, err := s.parse(secret)
	if err != nil {
		return nil, fmt.Errorf("Secret %s, written by another replica: %w", s.key, err)
	}
	return root, nil
}

// parse reads a trust root from secret; an error says why it cannot be served (missing,
// not a pair of the CA, expired, or for other hosts, e.g. after the Service was renamed).
func (s *secretStore) parse(secret *corev1.Secret) (*trustRoot, error) {
	cert, err := parseServing(secret.Data[secretCAKey], secret.Data[corev1.TLSCertKey], secret.Data[corev1.TLSPrivateKeyKey])
	if err != nil {
		return nil, err
	}
	if !cert.serves(s.hosts, s.now()) {
		return nil, fmt.Errorf("the certificate is expired or not for %v", s.hosts)
	}
	return &trustRoot{current: cert, previous: secret.Data[secretPreviousCAKey]}, nil
}

func setRoot(secret *corev1.Secret, root *trustRoot) {
	secret.Data = map[string][]byte{
		secretCAKey:             root.current.caPEM,
		corev1.TLSCertKey:       root.current.certPEM,
		corev1.TLSPrivateKeyKey: root.current.keyPEM,
		secretPreviousCAKey:     root.previous,
	}
	if len(root.previous) == 0 {
		delete(secret.Data, secretPreviousCAKey)
	}
}

// sameCA reports whether s and o are signed by the same CA.
func (s *servingCertificate) sameCA(o *servingCertificate) bool {
	return bytes.Equal(s.caPEM, o.caPEM)
}
