package image

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParse_KeepsRegistryPortsInTheNameAndJoinsBack(t *testing.T) {
	for ref, want := range map[string]Reference{
		"capstan/core-manager:dev":       {Name: "capstan/core-manager", Tag: "dev"},
		"capstan/core-manager":           {Name: "capstan/core-manager"},
		"localhost:5000/capstan/core":    {Name: "localhost:5000/capstan/core"},
		"localhost:5000/capstan/core:v1": {Name: "localhost:5000/capstan/core", Tag: "v1"},
		"capstan/core@sha256:0123456789": {Name: "capstan/core", Digest: "sha256:0123456789"},
		"registry.k8s.io/kube-proxy:v1.37.2@sha256:abc": {Name: "registry.k8s.io/kube-proxy", Tag: "v1.37.2",
			Digest: "sha256:abc"},
		"localhost:5000/a@sha256:abc": {Name: "localhost:5000/a", Digest: "sha256:abc"},
	} {
		got := Parse(ref)
		require.Equal(t, want, got, ref)
		require.Equal(t, ref, got.String(), "joined back")
	}
}
