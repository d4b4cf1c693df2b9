package envtest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// writeAuditPolicy records every write, once, when its response is complete; reads
// are not logged, so the log stays small enough to parse after a large test.
const writeAuditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
  verbs: ["create", "update", "patch", "delete", "deletecollection"]
- level: None
`

// auditLogMaxSizeMB is the size at which kube-apiserver would rotate the audit log: 1 TiB, never
// reached by a run (a full bench run of upstream's core writes a few hundred MB).
const auditLogMaxSizeMB = "1048576"

// WriteAuditFlags writes an audit policy logging every write into dir and returns
// the kube-apiserver flags (for Options.APIServerFlags) that log to dir/audit.log,
// and that path. The log is written synchronously, one event at a time, so an
// event is in the file once its request has been answered. The log is never rotated
// (auditLogMaxSizeMB): kube-apiserver's rotation (at 100 MB unless told otherwise) would
// start a new file under a reader holding an offset into the old one, as a bench run of
// upstream's core, writing more, found.
func WriteAuditFlags(dir string) (map[string]string, string, error) {
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(writeAuditPolicy), 0o644); err != nil {
		return nil, "", fmt.Errorf("writing the audit policy: %w", err)
	}
	logPath := filepath.Join(dir, "audit.log")
	return map[string]string{
		"audit-policy-file":           policy,
		"audit-log-path":              logPath,
		"audit-log-format":            "json",
		"audit-log-mode":              "blocking",
		"audit-log-maxbackup":         "0",
		"audit-log-maxage":            "0",
		"audit-log-maxsize":           auditLogMaxSizeMB,
		"audit-log-batch-buffer-size": "1",
	}, logPath, nil
}

// AuditEvent is the part of an audit.k8s.io/v1 Event that tells who wrote what.
type AuditEvent struct {
	Verb      string `json:"verb"`
	UserAgent string `json:"userAgent"`
	User      struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
	} `json:"objectRef"`
	ResponseStatus struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	StageTimestamp time.Time `json:"stageTimestamp"`
}

// Resource is the resource written, with "/subresource" when there is one.
func (e AuditEvent) Resource() string {
	if e.ObjectRef.Subresource != "" {
		return e.ObjectRef.Resource + "/" + e.ObjectRef.Subresource
	}
	return e.ObjectRef.Resource
}

// ByAPIServer reports whether the API server itself made the write (its identity
// Lease heartbeat and similar bookkeeping, which no controller causes).
func (e AuditEvent) ByAPIServer() bool { return strings.HasPrefix(e.UserAgent, "kube-apiserver/") }

func (e AuditEvent) String() string {
	return fmt.Sprintf("%s %s %s/%s by %s", e.Verb, e.Resource(), e.ObjectRef.Namespace, e.ObjectRef.Name, e.UserAgent)
}

// AuditWritesBetween returns the writes in the audit log at logPath completed in
// [from, to), in order, leaving out the API server's own bookkeeping.
func AuditWritesBetween(logPath string, from, to time.Time) ([]AuditEvent, error) {
	f, err := os.Open(logPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []AuditEvent
	_, err = ReadAuditEvents(f, func(e AuditEvent) {
		if !e.ByAPIServer() && !e.StageTimestamp.Before(from) && e.StageTimestamp.Before(to) {
			out = append(out, e)
		}
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].StageTimestamp.Before(out[j].StageTimestamp) })
	return out, err
}

// ReadAuditEvents calls each for every complete event in r, in file order, and
// returns how many bytes those events took. A last line without its newline is one
// the API server is still writing: it is not consumed, so a reader following a
// growing log resumes at the returned offset.
func ReadAuditEvents(r io.Reader, each func(AuditEvent)) (int64, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var consumed int64
	for {
		line, err := br.ReadBytes('\n')
		if err == io.EOF {
			return consumed, nil
		}
		if err != nil {
			return consumed, fmt.Errorf("reading the audit log: %w", err)
		}
		var e AuditEvent
		if err := json.Unmarshal(line, &e); err != nil {
			return consumed, fmt.Errorf("audit log line %q: %w", truncate(line, 200), err)
		}
		consumed += int64(len(line))
		each(e)
	}
}

// DescribeAuditEvents is one line per event, for a failure message.
func DescribeAuditEvents(events []AuditEvent) string {
	lines := make([]string, 0, len(events))
	for _, e := range events {
		lines = append(lines, e.String())
	}
	return strings.Join(lines, "\n")
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
