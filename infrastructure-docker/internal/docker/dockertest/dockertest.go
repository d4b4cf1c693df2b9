// Package dockertest gives a test of the Docker provider a Runtime on a management plane of its
// own on the real Docker Engine, and removes everything of that plane before and after the test,
// even when it fails. It skips the test when no engine answers or a needed image is absent; it
// never pulls. BuildImage makes a small image FROM scratch for a test and removes it after.
package dockertest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"testing"
	"time"

	"capstan.dev/infrastructure-docker/internal/docker"
)

// Runtime returns a Runtime on the plane Plane(t.Name()) after checking that each of
// images exists.
func Runtime(t *testing.T, images ...string) *docker.Runtime {
	t.Helper()
	rt, err := docker.New(Plane(t.Name()))
	if err != nil {
		t.Fatalf("%v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := rt.Ping(ctx); err != nil {
		_ = rt.Close()
		t.Skipf("no Docker Engine answers (run `make docker-up`): %v", err)
	}
	for _, image := range images {
		if ok, err := rt.HasImage(ctx, image); err != nil || !ok {
			_ = rt.Close()
			t.Skipf("image %s is absent (run `make lb-image`): %v", image, err)
		}
	}
	// The ping's short deadline tells an absent engine quickly; clearing a plane lists and
	// removes, which takes longer on an engine busy with the other test packages.
	clearCtx, cancelClear := context.WithTimeout(context.Background(), time.Minute)
	defer cancelClear()
	if err := rt.RemovePlane(clearCtx); err != nil {
		t.Fatalf("removing what an earlier run left on plane %s: %v", rt.Plane(), err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := rt.RemovePlane(ctx); err != nil {
			t.Errorf("removing the Docker objects of plane %s: %v", rt.Plane(), err)
		}
		_ = rt.Close()
	})
	return rt
}

var nonName = regexp.MustCompile(`[^a-z0-9]+`)

// Plane returns a short management-plane name unique to a test name:
// "capstan-test-<prefix>-<hash>", short enough that the containers named after it stay valid
// hostnames.
func Plane(testName string) string {
	sum := sha256.Sum256([]byte(testName))
	prefix := strings.Trim(nonName.ReplaceAllString(strings.ToLower(testName), "-"), "-")
	if len(prefix) > 12 {
		prefix = strings.Trim(prefix[:12], "-")
	}
	return "capstan-test-" + prefix + "-" + hex.EncodeToString(sum[:])[:8]
}
