package docscheck

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// TroubleshootingDoc is the document, relative to the repository root, that explains
// every condition reason.
const TroubleshootingDoc = "docs/troubleshooting.md"

// reasonCell is the first cell of a row that documents a reason: the reason alone, in
// backquotes.
var reasonCell = regexp.MustCompile("^`([A-Za-z][A-Za-z0-9]*)`$")

// DocumentedReason is one table row of the document that explains a reason.
type DocumentedReason struct {
	Value string
	Line  int
	// Cells are the row's cells after the first, trimmed.
	Cells []string
}

// DocumentedReasons reads the Markdown table rows whose first cell is a reason in
// backquotes, e.g.
//
//	| `BootstrapTimedOut` | False | What it means | What to do |
//
// Every other line (prose, headings, other tables, separator rows) is ignored, so a
// reason mentioned in passing does not count as explained.
func DocumentedReasons(markdown []byte) ([]DocumentedReason, error) {
	var out []DocumentedReason
	sc := bufio.NewScanner(bytes.NewReader(markdown))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		m := reasonCell.FindStringSubmatch(cells[0])
		if m == nil {
			continue
		}
		out = append(out, DocumentedReason{Value: m[1], Line: n, Cells: cells[1:]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the document: %w", err)
	}
	return out, nil
}

// eventsTableHeader starts the header row of the document's table of Event reasons.
const eventsTableHeader = "| Kind (regarding) | Reason |"

// backquoted is one `Reason` in a cell.
var backquoted = regexp.MustCompile("`([A-Za-z][A-Za-z0-9]*)`")

// DocumentedEventReasons reads the table of Event reasons, the one whose header row begins
// with eventsTableHeader: one DocumentedReason per reason in backquotes in a row's second
// cell, e.g. two for
//
//	| MachineSet | `SuccessfulCreate`, `FailedCreate` | Normal, Warning | when |
//
// with the row's cells after the reasons' cell. The table ends at the first line that is not
// a table row.
func DocumentedEventReasons(markdown []byte) ([]DocumentedReason, error) {
	var out []DocumentedReason
	in := false
	for n, line := range strings.Split(string(markdown), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, eventsTableHeader):
			in = true
			continue
		case !in:
			continue
		case !strings.HasPrefix(line, "|"):
			return out, nil
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 2 {
			continue
		}
		rest := make([]string, 0, len(cells)-2)
		for _, c := range cells[2:] {
			rest = append(rest, strings.TrimSpace(c))
		}
		for _, m := range backquoted.FindAllStringSubmatch(cells[1], -1) {
			out = append(out, DocumentedReason{Value: m[1], Line: n + 1, Cells: rest})
		}
	}
	if !in {
		return nil, fmt.Errorf("no table of Event reasons (header %q)", eventsTableHeader)
	}
	return out, nil
}
