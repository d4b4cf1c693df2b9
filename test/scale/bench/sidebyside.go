package bench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"capstan.dev/contracts/conversionwebhook"
)

// Peer is the other core of a side-by-side run (make bench-upstream): a manager binary
// implementing the core contract on CRDs of its own, e.g. upstream Cluster API's.
type Peer struct {
	// Name names it in the report, e.g. "upstream v1.13.6".
	Name string
	// Manager is its binary, CRDs the directory of its core CRDs, Args extra flags.
	Manager, CRDs string
	Args          []string
	// WebhookServer passes --webhook-cert-dir with a self-signed tls.crt and tls.key and a
	// free --webhook-port: upstream's manager does not start without them (the API server is
	// never told of its webhooks, so nothing calls them). Capstan's core has no such flags.
	WebhookServer bool
}

// RunSideBySide runs the scenarios of cfg twice, back to back, each time on a plane of
// its own: with cfg's core (Capstan's unless cfg names another), then with peer's, and
// sets the two reports side by side. A scenario the peer does not finish is in the
// comparison, not an error; an error means a run could not be set up or its managers
// not started (the comparison, when there is one, shows what was measured).
func RunSideBySide(ctx context.Context, cfg Config, peer Peer) (*Comparison, error) {
	ours, theirs := cfg, cfg
	theirs.CoreManager, theirs.CoreCRDs, theirs.CoreManagerArgs = peer.Manager, peer.CRDs, peer.Args
	// --profiling is a flag of Capstan's managers only.
	theirs.Profiling = false
	certDir := ""
	if cfg.WorkDir != "" {
		ours.WorkDir, theirs.WorkDir = filepath.Join(cfg.WorkDir, "capstan"), filepath.Join(cfg.WorkDir, "peer")
		for _, dir := range []string{ours.WorkDir, theirs.WorkDir} {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, err
			}
		}
		certDir = filepath.Join(theirs.WorkDir, "webhook-certs")
	}
	if peer.WebhookServer {
		dir, port, cleanup, err := webhookServing(certDir)
		if err != nil {
			return nil, err
		}
		defer cleanup()
		theirs.CoreManagerArgs = append([]string{"--webhook-cert-dir=" + dir, "--webhook-port=" + port}, theirs.CoreManagerArgs...)
	}

	logf(cfg, "Side by side: Capstan's core first, then %s (%s)", peer.Name, peer.Manager)
	capstan, err := Run(ctx, ours)
	if capstan == nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return &Comparison{Capstan: capstan, Peer: &Report{CoreManager: peer.Manager}, PeerName: peer.Name}, errors.Join(err, ctx.Err())
	}
	logf(cfg, "Side by side: Capstan's run is done; now %s", peer.Name)
	other, perr := Run(ctx, theirs)
	if perr != nil {
		perr = fmt.Errorf("%s: %w", peer.Name, perr)
	}
	if other == nil {
		return nil, errors.Join(err, perr)
	}
	return &Comparison{Capstan: capstan, Peer: other, PeerName: peer.Name}, errors.Join(err, perr)
}

// webhookServing writes a self-signed serving certificate as tls.crt and tls.key into
// dir (a temporary directory, removed by cleanup, when dir is empty) and picks a free port.
func webhookServing(dir string) (certDir, port string, cleanup func(), err error) {
	cleanup = func() {}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "capstan-bench-webhook-"); err != nil {
			return "", "", nil, err
		}
		cleanup = func() { _ = os.RemoveAll(dir) }
	}
	if err := conversionwebhook.WriteSelfSigned(dir, []string{"localhost", "127.0.0.1"}, 7*24*time.Hour); err != nil {
		cleanup()
		return "", "", nil, fmt.Errorf("the peer's webhook certificate: %w", err)
	}
	addr, err := freeAddr()
	if err != nil {
		cleanup()
		return "", "", nil, err
	}
	_, port, err = net.SplitHostPort(addr)
	return dir, port, cleanup, err
}

// logf writes a progress line of a side-by-side run to cfg.Log.
func logf(cfg Config, format string, args ...any) {
	(&run{cfg: cfg}).logf(format, args...)
}
