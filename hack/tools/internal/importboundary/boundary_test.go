package importboundary

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The fixture is a small workspace shaped like Capstan's: contracts, and three
// providers of which "infra" imports "boot" (in a test file, which counts too).
var (
	fixtureProviders = []Module{
		{Path: "example.test/core", Dir: "core"},
		{Path: "example.test/boot", Dir: "boot"},
		{Path: "example.test/infra", Dir: "infra"},
	}
	fixtureShared = []Module{{Path: "example.test/contracts", Dir: "contracts"}}
)

func TestCheck_FlagsAProviderImportingAnotherProvider(t *testing.T) {
	root, err := filepath.Abs("testdata/violating")
	require.NoError(t, err)
	t.Setenv("GOWORK", filepath.Join(root, "go.work"))
	t.Setenv("GOFLAGS", "")

	violations, err := Check(context.Background(), root, fixtureProviders, fixtureShared)
	require.NoError(t, err)
	require.Equal(t, []Violation{
		{Module: "example.test/contracts", Imported: "example.test/core/api", Owner: "example.test/core"},
		{Module: "example.test/infra", Imported: "example.test/boot/token", Owner: "example.test/boot"},
	}, violations)
	require.Contains(t, violations[1].String(), "example.test/infra depends on example.test/boot/token")
}

func TestCheck_AcceptsProvidersThatImportOnlyContracts(t *testing.T) {
	root, err := filepath.Abs("testdata/clean")
	require.NoError(t, err)
	t.Setenv("GOWORK", filepath.Join(root, "go.work"))
	t.Setenv("GOFLAGS", "")

	violations, err := Check(context.Background(), root, fixtureProviders, fixtureShared)
	require.NoError(t, err)
	require.Empty(t, violations)
}

func TestCheck_ReportsAModuleThatCannotBeListed(t *testing.T) {
	root, err := filepath.Abs("testdata/clean")
	require.NoError(t, err)
	t.Setenv("GOWORK", filepath.Join(root, "go.work"))
	_, err = Check(context.Background(), root, []Module{{Path: "example.test/missing", Dir: "missing"}}, nil)
	require.ErrorContains(t, err, "go list -deps in")
}
