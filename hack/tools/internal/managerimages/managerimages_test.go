package managerimages

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const repoRoot = "../../../.."

func docker(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("docker", args...).CombinedOutput()
	require.NoError(t, err, "docker %s: %s", strings.Join(args, " "), out)
	return strings.TrimSpace(string(out))
}

func TestManagerImages_ScratchImageRunsTheStaticManagerAsUser65532(t *testing.T) {
	if err := exec.Command("docker", "version", "--format", "{{.Server.Version}}").Run(); err != nil {
		t.Skip("no Docker Engine answers: run 'make docker-up'")
	}
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	tag := "test-" + hex.EncodeToString(suffix)
	ref := "capstan/core-manager:" + tag
	t.Cleanup(func() { _ = exec.Command("docker", "rmi", ref).Run() })

	script, err := filepath.Abs(filepath.Join(repoRoot, "hack", "images", "manager-images.sh"))
	require.NoError(t, err)
	cmd := exec.Command("bash", script)
	cmd.Env = append(os.Environ(), "TAGS="+tag, "PROVIDERS=core")
	out, err := cmd.Output()
	require.NoError(t, err, "%s", out)
	require.Equal(t, ref, strings.TrimSpace(string(out)), "the script prints the references it tagged")

	require.Equal(t, "65532:65532 [/manager]", docker(t, "image", "inspect", "-f", "{{.Config.User}} {{.Config.Entrypoint}}", ref))
	require.NotEmpty(t, docker(t, "image", "inspect", "-f", `{{index .Config.Labels "io.capstan.inputs"}}`, ref), "cached by input hash")
	// Only the binary and the CA bundle: a FROM scratch image has one layer per COPY.
	require.Equal(t, "2", docker(t, "image", "inspect", "-f", "{{len .RootFS.Layers}}", ref))

	help, err := exec.Command("docker", "run", "--rm", "--network", "none", "--read-only", "--cap-drop", "ALL",
		"--security-opt", "no-new-privileges", ref, "--help").CombinedOutput()
	require.NoError(t, err, "the static binary runs in the scratch image: %s", help)
	require.Contains(t, string(help), "--leader-elect")
	require.Contains(t, string(help), "--health-addr")
}
