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
