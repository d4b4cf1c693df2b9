package cniaddon

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRewrite_AppendsOnceThenReplacesInPlace(t *testing.T) {
	manifest := []byte("kind: DaemonSet\nmetadata:\n  name: flannel\n")
	target := Target{Cluster: "c", Namespace: "ns"}
	block, err := Block(manifest, target)
	require.NoError(t, err)

	first, err := Rewrite("kind: Cluster\n", block)
	require.NoError(t, err)
	require.Equal(t, "kind: Cluster\n---\n"+block, first)
	again, err := Rewrite(first, block)
	require.NoError(t, err)
	require.Equal(t, first, again, "a second run changes nothing")

	changed, err := Block([]byte("kind: DaemonSet\nmetadata:\n  name: other\n"), target)
	require.NoError(t, err)
	updated, err := Rewrite(first+"---\nkind: After\n", changed)
	require.NoError(t, err)
	require.Equal(t, "kind: Cluster\n---\n"+changed+"---\nkind: After\n", updated, "the block is replaced where it is")
}

func TestBlock_RefusesAManifestTheTemplatesWouldSubstitute(t *testing.T) {
	_, err := Block([]byte("value: ${HOME}\n"), Target{Cluster: "c", Namespace: "ns"})
	require.ErrorContains(t, err, "${")
}

func TestRewrite_RefusesAHalfBlock(t *testing.T) {
	_, err := Rewrite(beginMarker+"\nkind: X\n", "block")
	require.ErrorContains(t, err, "end marker")
	_, err = Rewrite("kind: X\n"+endMarker+"\n", "block")
	require.ErrorContains(t, err, "begin marker")
}

// The repository's copies are what Write would produce (make verify checks the same by
// running make generate).
func TestWrite_RepositoryCopiesAreCurrent(t *testing.T) {
	root, err := filepath.Abs("../../../..")
	require.NoError(t, err)
	manifest, err := os.ReadFile(filepath.Join(root, ManifestPath))
	require.NoError(t, err)
	targets, err := Targets(root)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(targets), 5)
	for _, target := range targets {
		content, err := os.ReadFile(filepath.Join(root, target.Path))
		require.NoError(t, err)
		block, err := Block(manifest, target)
		require.NoError(t, err)
		require.True(t, strings.Contains(string(content), block), "%s: run make generate", target.Path)
	}
}
