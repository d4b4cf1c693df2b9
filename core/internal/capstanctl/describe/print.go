package describe

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// maxMessage is how many characters of a message the table shows; the data
// output always carries the whole message.
const maxMessage = 100

// groupedNamesShown is how many member names a grouped row's MESSAGE lists when
// the group has no message of its own.
const groupedNamesShown = 3

// PrintTable draws the tree with the columns NAME READY REASON SINCE MESSAGE; now
// is the reference for SINCE.
func PrintTable(w io.Writer, root *Node, now time.Time) error {
	var buf bytes.Buffer
	if t := root.Topology; t != nil {
		fmt.Fprintf(&buf, "ClusterClass: %s, topology version: %s\n", t.Class, t.Version)
		if len(t.ControlPlaneUpgradePlan) > 0 || len(t.WorkersUpgradePlan) > 0 {
			fmt.Fprintf(&buf, "Upgrade plan: control plane %s; workers %s\n", planText(t.ControlPlaneUpgradePlan), planText(t.WorkersUpgradePlan))
		}
	}
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tREADY\tREASON\tSINCE\tMESSAGE")
	printNode(tw, root, "", "", now)
	if err := tw.Flush(); err != nil {
		return err
	}
	// tabwriter pads empty trailing cells; drop that padding.
	for line := range strings.Lines(buf.String()) {
		if _, err := io.WriteString(w, strings.TrimRight(line, " \n")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// printNode writes n with prefix (its own tree glyphs) and its conditions and
// children with childPrefix (the glyphs continuing its parent's branch).
func printNode(w io.Writer, n *Node, prefix, childPrefix string, now time.Time) {
	message := n.Message
	if len(n.GroupedNames) > 0 && message == "" {
		message = "See " + strings.Join(first(n.GroupedNames, groupedNamesShown), ", ")
		if len(n.GroupedNames) > groupedNamesShown {
			message += ", ..."
		}
	}
	fmt.Fprintf(w, "%s%s\t%s\t%s\t%s\t%s\n", prefix, displayName(n), n.Ready, n.Reason, since(n.Since, now), shorten(message))

	total := len(n.Conditions) + len(n.Children)
	i := 0
	branch := func() (string, string) {
		i++
		if i == total {
			return childPrefix + "└─", childPrefix + "  "
		}
		return childPrefix + "├─", childPrefix + "│ "
	}
	for _, c := range n.Conditions {
		p, _ := branch()
		fmt.Fprintf(w, "%sCondition/%s\t%s\t%s\t%s\t%s\n", p, c.Type, c.Status, c.Reason, since(c.Since, now), shorten(c.Message))
	}
	for _, child := range n.Children {
		p, cp := branch()
		printNode(w, child, p, cp, now)
	}
}

func displayName(n *Node) string {
	var name string
	switch {
	case len(n.GroupedNames) > 0:
		name = fmt.Sprintf("%d %ss...", len(n.GroupedNames), n.Kind)
	case n.Kind != "":
		name = n.Kind + "/" + n.Name
	}
	switch {
	case n.Role != "" && name != "":
		name = n.Role + " - " + name
	case n.Role != "":
		name = n.Role
	}
	if n.Deleting {
		name += " (deleting)"
	}
	return name
}

func since(t *metav1.Time, now time.Time) string {
	if t == nil {
		return ""
	}
	d := now.Sub(t.Time)
	if d < 0 {
		d = 0 // clock skew between the API server and this machine
	}
	return duration.HumanDuration(d)
}

// shorten keeps a message's first line and at most maxMessage characters, and
// says when it dropped anything.
func shorten(msg string) string {
	msg = strings.ReplaceAll(strings.TrimSpace(msg), "\t", " ")
	line, rest, multi := strings.Cut(msg, "\n")
	line = strings.TrimSpace(line)
	if utf8.RuneCountInString(line) > maxMessage {
		return string([]rune(line)[:maxMessage-3]) + "..."
	}
	if multi && strings.TrimSpace(rest) != "" {
		return line + " ..."
	}
	return line
}

func first(s []string, n int) []string {
	if len(s) < n {
		return s
	}
	return s[:n]
}

// planText shows an upgrade plan's versions in order ("done" when none is left).
func planText(versions []string) string {
	if len(versions) == 0 {
		return "done"
	}
	return strings.Join(versions, " → ")
}
