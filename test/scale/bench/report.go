package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Figure is one measured number.
type Figure struct {
	Scenario string  `json:"scenario"`
	Name     string  `json:"name"`
	Value    float64 `json:"value"`
	Unit     string  `json:"unit"`
	// RatioToFloor compares the figure with what the apiserver's own write rate (the
	// floor) predicts, where the issue asks for it: 1.0 is as fast as the floor allows.
	RatioToFloor *float64 `json:"ratioToFloor,omitempty"`
	// Goal is the target for the figure, and Met whether it was reached.
	Goal string `json:"goal,omitempty"`
	Met  *bool  `json:"met,omitempty"`
}

// Machine describes where a run happened.
type Machine struct {
	CPUs     int    `json:"cpus"`
	MemoryGB string `json:"memory"`
	CPUModel string `json:"cpuModel"`
}

// Report is one run: where, what, and every figure in scenario order.
type Report struct {
	Date        time.Time         `json:"date"`
	Machine     Machine           `json:"machine"`
	Commit      string            `json:"commit"`
	Command     string            `json:"command"`
	CoreManager string            `json:"coreManager"`
	Config      map[string]string `json:"config"`
	Figures     []Figure          `json:"figures"`
	// Failures are scenarios that did not finish, each with what was seen.
	Failures []string `json:"failures,omitempty"`
	// Outcomes are each scenario's headline figures, for the side-by-side report.
	Outcomes []Outcome `json:"outcomes,omitempty"`
}

func (r *Report) add(f Figure) { r.Figures = append(r.Figures, f) }

func (r *Report) fail(scenario string, err error) {
	r.Failures = append(r.Failures, fmt.Sprintf("%s: %v", scenario, err))
}

// WriteTable prints the report as an aligned text table.
func (r *Report) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "%s  commit %s  %d CPUs (%s), %s\n%s\n\n", r.Date.Format(time.RFC3339), r.Commit,
		r.Machine.CPUs, r.Machine.CPUModel, r.Machine.MemoryGB, r.Command)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tFIGURE\tVALUE\tRATIO TO FLOOR\tGOAL")
	for _, f := range r.Figures {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f.Scenario, f.Name, f.value(), f.ratio(), f.goal())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, failure := range r.Failures {
		fmt.Fprintf(w, "FAILED %s\n", failure)
	}
	return nil
}

// WriteJSON prints the report as indented JSON (-o json).
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// AppendMarkdown appends the report to a Markdown file (docs/benchmarks.md) as a
// dated section with the machine, commit and command.
func (r *Report) AppendMarkdown(path string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	b := bufio.NewWriter(f)
	fmt.Fprintf(b, "\n### %s, commit %s\n\n", r.Date.Format("2006-01-02 15:04 MST"), r.Commit)
	fmt.Fprintf(b, "Machine: %d CPUs (%s), %s memory. Command: `%s`. Core manager: %s.\n\n",
		r.Machine.CPUs, r.Machine.CPUModel, r.Machine.MemoryGB, r.Command, r.CoreManager)
	fmt.Fprintln(b, "| Scenario | Figure | Value | Ratio to floor | Goal |")
	fmt.Fprintln(b, "|---|---|---|---|---|")
	for _, fig := range r.Figures {
		// Markdown drops the indentation that marks a breakdown row in the text table.
		name := fig.Name
		if rest, ok := strings.CutPrefix(name, "  "); ok {
			name = "↳ " + rest
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", fig.Scenario, name, fig.value(), fig.ratio(), fig.goal())
	}
	for _, failure := range r.Failures {
		fmt.Fprintf(b, "\nNot finished: %s\n", failure)
	}
	return b.Flush()
}

func (f Figure) value() string {
	v := strconv.FormatFloat(f.Value, 'f', decimals(f.Value), 64)
	if f.Unit == "" {
		return v
	}
	return v + " " + f.Unit
}

// decimals keeps three significant digits for small numbers, none for large ones.
func decimals(v float64) int {
	switch a := max(v, -v); {
	case a == 0 || a >= 100:
		return 0
	case a >= 10:
		return 1
	case a >= 1:
		return 2
	default:
		return 3
	}
}

func (f Figure) ratio() string {
	if f.RatioToFloor == nil {
		return ""
	}
	return strconv.FormatFloat(*f.RatioToFloor, 'f', 2, 64) + "×"
}

func (f Figure) goal() string {
	switch {
	case f.Goal == "":
		return ""
	case f.Met == nil:
		return f.Goal
	case *f.Met:
		return f.Goal + " (met)"
	default:
		return f.Goal + " (NOT met)"
	}
}

// describeMachine reads the CPU count, memory and CPU model of this machine.
func describeMachine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), MemoryGB: "unknown", CPUModel: "unknown"}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
				m.MemoryGB = fmt.Sprintf("%.1f GiB", kb/(1<<20))
			}
		}
	}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}

// gitCommit is the short commit of the working tree, with -dirty when it has
// uncommitted changes, or "unknown" outside a repository.
func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	commit := strings.TrimSpace(string(out))
	if status, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(status) > 0 {
		commit += "-dirty"
	}
	return commit
}
