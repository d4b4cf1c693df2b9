package integration

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// auditPolicy records every write, once, when its response is complete.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
  verbs: ["create", "update", "patch", "delete", "deletecollection"]
- level: None
`

// auditFlags writes the policy into dir and returns the kube-apiserver flags that
// log every write to dir/audit.log.
func auditFlags(dir string) (map[string]string, string, error) {
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o644); err != nil {
		return nil, "", err
	}
	logPath := filepath.Join(dir, "audit.log")
	return map[string]string{
		"audit-policy-file":           policy,
		"audit-log-path":              logPath,
		"audit-log-format":            "json",
		"audit-log-mode":              "blocking",
		"audit-log-maxbackup":         "0",
		"audit-log-maxage":            "0",
		"audit-log-batch-buffer-size": "1",
	}, logPath, nil
}

type auditEvent struct {
	Verb      string `json:"verb"`
	UserAgent string `json:"userAgent"`
	ObjectRef struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
	} `json:"objectRef"`
	StageTimestamp time.Time `json:"stageTimestamp"`
}

func (e auditEvent) String() string {
	res := e.ObjectRef.Resource
	if e.ObjectRef.Subresource != "" {
		res += "/" + e.ObjectRef.Subresource
	}
	return fmt.Sprintf("%s %s %s/%s by %s", e.Verb, res, e.ObjectRef.Namespace, e.ObjectRef.Name, e.UserAgent)
}

// writesBetween returns the writes completed in [from, to), leaving out the API
// server's own bookkeeping (its identity Lease heartbeat), which no controller
// causes.
func writesBetween(logPath string, from, to time.Time) ([]auditEvent, error) {
	f, err := os.Open(logPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []auditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1024*1024), 16*1024*1024)
	for sc.Scan() {
		var e auditEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("audit log line: %w", err)
		}
		if strings.HasPrefix(e.UserAgent, "kube-apiserver/") {
			continue
		}
		if !e.StageTimestamp.Before(from) && e.StageTimestamp.Before(to) {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].StageTimestamp.Before(out[j].StageTimestamp) })
	return out, sc.Err()
}

func describe(events []auditEvent) string {
	lines := make([]string, 0, len(events))
	for _, e := range events {
		lines = append(lines, e.String())
	}
	return strings.Join(lines, "\n")
}
