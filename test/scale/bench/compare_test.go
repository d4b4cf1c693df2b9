package bench

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// sideBySide is a comparison with every kind of row: finished scenarios on both sides,
// one the peer did not finish, one the peer could not start (not run), one with
// figures of its own, and a verb only one core used.
func sideBySide() *Comparison {
	date := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	machine := Machine{CPUs: 2, MemoryGB: "23.5 GiB", CPUModel: "Test CPU"}
	writes := func(create, update, patch, del float64) map[string]float64 {
		return map[string]float64{"create": create, "update": update, "patch": patch, "delete": del}
	}
	capstan := &Report{Date: date, Machine: machine, Commit: "abcdef123456", Command: "make bench-upstream",
		CoreManager: "Capstan core (built from this commit)", Outcomes: []Outcome{
			{Scenario: ScenarioMachines, Title: "2 10 Machines", WallSeconds: 9.41, Per: "Machine",
				Writes: writes(2, 0, 7.3, 0), CPUSeconds: 1.82, PeakRSSMiB: 61.2},
			{Scenario: ScenarioSteady, Title: "7 Steady state", Per: "minute", Writes: writes(0, 0, 0, 0), CPUSeconds: 0.04, PeakRSSMiB: 61.2},
			{Scenario: ScenarioRollout, Title: "3 Rollout", WallSeconds: 20.5, Per: "replaced Machine",
				Writes: writes(3, 0, 20.1, 1), CPUSeconds: 3.5, PeakRSSMiB: 64},
			{Scenario: ScenarioForeign, Title: "6 Memory vs. foreign objects", Extra: []Figure{
				{Name: "core RSS idle", Value: 40.1, Unit: "MiB"}, {Name: "core RSS with 100 Secrets + 100 ConfigMaps", Value: 40.3, Unit: "MiB"}}},
			{Scenario: ScenarioClusters, Title: "4 2 Clusters", WallSeconds: 12, Per: "Machine",
				Writes: writes(2.5, 0, 8, 0), CPUSeconds: 0.9, PeakRSSMiB: 48},
		}}
	peerWrites := writes(2, 4.5, 9, 0)
	peerWrites["deletecollection"] = 0.1
	peer := &Report{Date: date.Add(4 * time.Minute), Machine: machine, Commit: "abcdef123456", Command: "make bench-upstream",
		CoreManager: "/cache/upstream/v1.13.6/core", Config: map[string]string{"coreCRDs": "/mod/cluster-api@v1.13.6/config/crd/bases"},
		Outcomes: []Outcome{
			{Scenario: ScenarioMachines, Title: "2 10 Machines", WallSeconds: 18.82, Per: "Machine",
				Writes: peerWrites, CPUSeconds: 5.1, PeakRSSMiB: 95.5},
			{Scenario: ScenarioSteady, Title: "7 Steady state", Per: "minute", Writes: writes(0, 1, 2, 0), CPUSeconds: 0.3, PeakRSSMiB: 96},
			{Scenario: ScenarioRollout, Title: "3 Rollout", Unfinished: "> 15m0s: 9/10 Machines replaced and Running"},
			{Scenario: ScenarioForeign, Title: "6 Memory vs. foreign objects", Extra: []Figure{
				{Name: "core RSS idle", Value: 70, Unit: "MiB"}, {Name: "core RSS with 100 Secrets + 100 ConfigMaps", Value: 92.4, Unit: "MiB"}}},
		}}
	return &Comparison{Capstan: capstan, Peer: peer, PeerName: "upstream v1.13.6"}
}

func TestComparison_RendersTheSideBySideTable(t *testing.T) {
	c := sideBySide()
	var table, md bytes.Buffer
	require.NoError(t, c.WriteTable(&table))
	require.NoError(t, c.WriteMarkdown(&md))
	golden(t, "sidebyside.txt", table.Bytes())
	golden(t, "sidebyside.md", md.Bytes())
}

func TestComparison_ReplacesItsSectionAndKeepsTheRest(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "benchmarks.md")
	before := "# Benchmarks\n\nIntro.\n\n" + SideBySideHeading + "\n\nAn older run.\n\n### 2026-01-01, commit old\n\n| old |\n\n## `make bench`\n\n### run\n"
	require.NoError(t, os.WriteFile(doc, []byte(before), 0o644))
	c := sideBySide()
	require.NoError(t, c.ReplaceMarkdownSection(doc))
	require.NoError(t, c.ReplaceMarkdownSection(doc)) // twice: one section, not two

	var section bytes.Buffer
	require.NoError(t, c.WriteMarkdown(&section))
	want := "# Benchmarks\n\nIntro.\n\n" + section.String() + "\n## `make bench`\n\n### run\n"
	got, err := os.ReadFile(doc)
	require.NoError(t, err)
	require.Empty(t, cmp.Diff(want, string(got)))
}

func TestComparison_AddsItsSectionAtTheEndWhenMissing(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "benchmarks.md")
	require.NoError(t, os.WriteFile(doc, []byte("# Benchmarks\n\n### a run\n"), 0o644))
	c := sideBySide()
	require.NoError(t, c.ReplaceMarkdownSection(doc))
	var section bytes.Buffer
	require.NoError(t, c.WriteMarkdown(&section))
	got, err := os.ReadFile(doc)
	require.NoError(t, err)
	require.Empty(t, cmp.Diff("# Benchmarks\n\n### a run\n\n"+section.String(), string(got)))
}

func TestPerVerb_DividesCountsOnce(t *testing.T) {
	writes := make([]write, 10)
	for i := range writes {
		writes[i].Verb = "create"
	}
	got := perVerb(writes, 10)
	require.Equal(t, map[string]float64{"create": 1, "update": 0, "patch": 0, "delete": 0}, got)
	require.Equal(t, "1.00", Figure{Value: got["create"]}.value())
}

func TestUnfinished_ShowsTheBoundAndHowFarItGot(t *testing.T) {
	err := &notFinishedError{what: "every Machine Running", timeout: 15 * time.Minute,
		progress: errString("999/1000 Machines replaced and Running")}
	require.Equal(t, "> 15m0s: 999/1000 Machines replaced and Running", unfinished(err))
	require.Equal(t, "failed: boom", unfinished(errString("boom")))
}

type errString string

func (e errString) Error() string { return string(e) }

// golden compares got with testdata/name; -update rewrites it.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run the test with -update to create the golden file")
	require.Empty(t, cmp.Diff(string(want), string(got)), "%s differs (-golden +got); run with -update after an intended change", path)
}
