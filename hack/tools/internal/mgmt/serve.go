package mgmt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// Serve runs the plane in the foreground, for a supervisor such as Tilt's serve_cmd:
// Up, then watch the components until ctx is cancelled (SIGTERM), then Down. It
// returns an error, leaving nothing running, when a component dies meanwhile, so
// the supervisor shows the plane as failed instead of a process that only waits.
func (p *Plane) Serve(ctx context.Context, every time.Duration) error {
	if err := p.Up(ctx); err != nil {
		if ctx.Err() != nil { // stopped while starting: a normal stop
			return p.Down()
		}
		return err
	}
	p.logf("Serving in the foreground; SIGTERM or Ctrl-C stops the plane (its data stays in %s)", p.Dir)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return p.Down()
		case <-t.C:
			running := p.Running()
			for _, name := range []string{etcdName, apiName} {
				if _, ok := running[name]; !ok {
					err := fmt.Errorf("%s exited; end of %s:\n%s", name, p.logPath(name), tail(p.logPath(name), 15))
					return errors.Join(err, p.Down())
				}
			}
		}
	}
}

// Ready returns nil when the kube-apiserver answers /readyz to the admin
// credentials and every namespace of p.Namespaces exists (Up creates them last,
// after the CRDs are Established); it is the readiness probe of a served plane, so
// managers started once it passes find their CRDs.
func (p *Plane) Ready(ctx context.Context) error {
	data, err := os.ReadFile(filepath.Join(p.Dir, "state.json"))
	if err != nil {
		return fmt.Errorf("the plane in %s was never started: %w", p.Dir, err)
	}
	var st state
	if err := json.Unmarshal(data, &st); err != nil {
		return fmt.Errorf("reading state.json: %w", err)
	}
	c, err := p.adminHTTPClient()
	if err != nil {
		return err
	}
	base := fmt.Sprintf("https://127.0.0.1:%d", st.APIServerPort)
	paths := []string{"/readyz"}
	for _, ns := range p.Namespaces {
		paths = append(paths, "/api/v1/namespaces/"+ns)
	}
	for _, path := range paths {
		if err := getOK(ctx, c, base+path); err != nil {
			return err
		}
	}
	return nil
}

func getOK(ctx context.Context, c *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", url, resp.Status)
	}
	return nil
}
