package bench

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// SideBySideHeading is the section of docs/benchmarks.md that make bench-upstream
// replaces with its latest run.
const SideBySideHeading = "## Side by side with upstream"

// Comparison is two runs of the same scenarios and sizes on the same machine, back to
// back: Capstan's core, then another implementation of the core contract (the peer,
// e.g. upstream Cluster API's), set side by side scenario by scenario.
type Comparison struct {
	Capstan *Report `json:"capstan"`
	Peer    *Report `json:"peer"`
	// PeerName names the peer in the report, e.g. "upstream v1.13.6".
	PeerName string `json:"peerName"`
}

// wallTime names the row whose last column is Capstan's speed-up.
const wallTime = "wall time (last column: Capstan's speed-up)"

// comparisonRow is one line of the side-by-side table; ratio is peer ÷ Capstan.
type comparisonRow struct {
	scenario, figure, capstan, peer, ratio string
}

// rows are the table's lines: per scenario the wall time and Capstan's speed-up, the
// core's writes per object in all and by verb, its CPU and peak memory, and the
// scenario's own figures. A scenario one core did not finish shows how far it got.
func (c *Comparison) rows() []comparisonRow {
	var out []comparisonRow
	for _, scenario := range AllScenarios {
		ours, oursOK := outcomeOf(c.Capstan, scenario)
		theirs, theirsOK := outcomeOf(c.Peer, scenario)
		if !oursOK && !theirsOK {
			continue
		}
		title := ours.Title
		if !oursOK {
			title = theirs.Title
		}
		start := len(out)
		for _, f := range outcomeFigures(ours, theirs) {
			row := comparisonRow{scenario: title, figure: f.name,
				capstan: cell(f.ours), peer: cell(f.theirs)}
			if f.ours != nil && f.theirs != nil && f.ours.Value > 0 {
				row.ratio = strconv.FormatFloat(f.theirs.Value/f.ours.Value, 'f', 2, 64) + "×"
			}
			out = append(out, row)
		}
		// How far an unfinished scenario got, on its first line.
		out[start].capstan = status(ours, oursOK, out[start].capstan)
		out[start].peer = status(theirs, theirsOK, out[start].peer)
	}
	return out
}

// pairedFigure is one figure of a scenario for both cores; nil where a core has none.
type pairedFigure struct {
	name         string
	ours, theirs *Figure
}

// outcomeFigures lists the figures two outcomes of one scenario are compared on.
func outcomeFigures(ours, theirs Outcome) []pairedFigure {
	pick := func(o Outcome, get func(Outcome) (Figure, bool)) *Figure {
		if f, ok := get(o); ok && o.Unfinished == "" {
			return &f
		}
		return nil
	}
	var out []pairedFigure
	add := func(name string, get func(Outcome) (Figure, bool)) {
		a, b := pick(ours, get), pick(theirs, get)
		if a != nil || b != nil {
			out = append(out, pairedFigure{name: name, ours: a, theirs: b})
		}
	}
	add(wallTime, func(o Outcome) (Figure, bool) {
		return Figure{Value: o.WallSeconds, Unit: "s"}, o.WallSeconds > 0
	})
	per := ours.Per
	if per == "" {
		per = theirs.Per
	}
	add("core writes per "+per, func(o Outcome) (Figure, bool) { return Figure{Value: o.total()}, o.Writes != nil })
	verbs := ours.verbs()
	for _, v := range theirs.verbs() {
		if !slices.Contains(verbs, v) {
			verbs = append(verbs, v)
		}
	}
	for _, v := range verbs {
		add("  "+v, func(o Outcome) (Figure, bool) { return Figure{Value: o.Writes[v]}, o.Writes != nil })
	}
	add("core CPU", func(o Outcome) (Figure, bool) { return Figure{Value: o.CPUSeconds, Unit: "s"}, o.Writes != nil })
	add("core peak RSS (VmHWM)", func(o Outcome) (Figure, bool) { return Figure{Value: o.PeakRSSMiB, Unit: "MiB"}, o.PeakRSSMiB > 0 })
	names := []string{}
	for _, o := range []Outcome{ours, theirs} {
		for _, f := range o.Extra {
			if !slices.Contains(names, f.Name) {
				names = append(names, f.Name)
			}
		}
	}
	for _, name := range names {
		add(name, func(o Outcome) (Figure, bool) {
			i := slices.IndexFunc(o.Extra, func(f Figure) bool { return f.Name == name })
			if i < 0 {
				return Figure{}, false
			}
			return o.Extra[i], true
		})
	}
	if len(out) == 0 { // neither finished: one line to say how far each got
		out = append(out, pairedFigure{name: wallTime})
	}
	return out
}

func outcomeOf(r *Report, scenario string) (Outcome, bool) {
	if r == nil {
		return Outcome{}, false
	}
	i := slices.IndexFunc(r.Outcomes, func(o Outcome) bool { return o.Scenario == scenario })
	if i < 0 {
		return Outcome{}, false
	}
	return r.Outcomes[i], true
}

// cell is a figure's value, or "—" for a figure a core has not (or did not get to).
func cell(f *Figure) string {
	if f == nil {
		return "—"
	}
	return f.value()
}

// status is what the first line of a scenario shows for a core: "not run", how far an
// unfinished scenario got, or its first figure.
func status(o Outcome, ran bool, first string) string {
	switch {
	case !ran:
		return "not run"
	case o.Unfinished != "":
		return o.Unfinished
	}
	return first
}

// WriteTable prints the comparison as an aligned text table.
func (c *Comparison) WriteTable(w io.Writer) error {
	r := c.Capstan
	fmt.Fprintf(w, "%s  commit %s  %d CPUs (%s), %s\n%s\nCapstan: %s; %s: %s\n\n", r.Date.Format(time.RFC3339), r.Commit,
		r.Machine.CPUs, r.Machine.CPUModel, r.Machine.MemoryGB, r.Command, r.CoreManager, c.PeerName, c.Peer.CoreManager)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "SCENARIO\tFIGURE\tCAPSTAN\t%s\t%s ÷ CAPSTAN\n", strings.ToUpper(c.PeerName), strings.ToUpper(c.peerShort()))
	for _, row := range c.rows() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", row.scenario, row.figure, row.capstan, row.peer, row.ratio)
	}
	return tw.Flush()
}

// peerShort is the peer's name without its version ("upstream").
func (c *Comparison) peerShort() string {
	name, _, _ := strings.Cut(c.PeerName, " ")
	return name
}

// WriteMarkdown writes the section of docs/benchmarks.md: its heading, what it is, the
// run's machine, commit, command, versions and date, and the table.
func (c *Comparison) WriteMarkdown(w io.Writer) error {
	r, b := c.Capstan, bufio.NewWriter(w)
	fmt.Fprintf(b, "%s\n\n", SideBySideHeading)
	fmt.Fprintln(b, "`make bench-upstream` replaces this section with its latest run: the scenarios of `make bench`,")
	fmt.Fprintln(b, "at the same sizes, run once with Capstan's core and then, back to back on the same machine, with")
	fmt.Fprintln(b, "upstream Cluster API's core (built by `hack/upstream/build.sh`) on upstream's CRDs. Writes are the")
	fmt.Fprintln(b, "core's, from the API server's audit log, per object by verb; CPU is the core process's; the")
	fmt.Fprintln(b, "last column is upstream ÷ Capstan, on the wall time Capstan's speed-up. A scenario a core did")
	fmt.Fprintln(b, "not finish within the scenario timeout shows the bound and how far it got.")
	fmt.Fprintf(b, "\n### %s, commit %s\n\n", r.Date.Format("2006-01-02 15:04 MST"), r.Commit)
	fmt.Fprintf(b, "Machine: %d CPUs (%s), %s memory. Command: `%s`. Capstan: %s. %s: `%s`",
		r.Machine.CPUs, r.Machine.CPUModel, r.Machine.MemoryGB, r.Command, r.CoreManager, c.PeerName, c.Peer.CoreManager)
	if crds := c.Peer.Config["coreCRDs"]; crds != "" {
		fmt.Fprintf(b, ", CRDs from `%s`", crds)
	}
	fmt.Fprintf(b, ", run started %s.\n\n", c.Peer.Date.Format("15:04 MST"))
	fmt.Fprintf(b, "| Scenario | Figure | Capstan | %s | %s ÷ Capstan |\n|---|---|---|---|---|\n", c.PeerName, c.peerShort())
	for _, row := range c.rows() {
		name := row.figure
		if rest, ok := strings.CutPrefix(name, "  "); ok {
			name = "↳ " + rest
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", row.scenario, name, row.capstan, row.peer, row.ratio)
	}
	return b.Flush()
}

// ReplaceMarkdownSection writes the comparison into the Markdown file at path in place of
// its SideBySideHeading section (up to the next level-2 heading), or at its end when it
// has none yet.
func (c *Comparison) ReplaceMarkdownSection(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var section strings.Builder
	if err := c.WriteMarkdown(&section); err != nil {
		return err
	}
	doc := string(data)
	before, after := doc, ""
	if i := headingIndex(doc, SideBySideHeading); i >= 0 {
		before, after = doc[:i], doc[i+len(SideBySideHeading):]
		if j := headingIndex(after, "## "); j >= 0 {
			after = after[j:]
		} else {
			after = ""
		}
	} else {
		before = strings.TrimRight(before, "\n") + "\n\n"
	}
	if after != "" {
		after = "\n" + after
	}
	return os.WriteFile(path, []byte(before+section.String()+after), 0o644)
}

// headingIndex is where a line starting with prefix begins in doc, or -1.
func headingIndex(doc, prefix string) int {
	if strings.HasPrefix(doc, prefix) {
		return 0
	}
	if i := strings.Index(doc, "\n"+prefix); i >= 0 {
		return i + 1
	}
	return -1
}
