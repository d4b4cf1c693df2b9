package envtest

import (
	"strconv"
	"testing"
)

// TestWriteAuditFlags_TheLogIsNeverRotatedDuringARun: without audit-log-maxsize kube-apiserver
// rotates at 100 MB, under a reader that follows the file by offset (the bench's auditLog), which
// a bench run of a chattier core passes.
func TestWriteAuditFlags_TheLogIsNeverRotatedDuringARun(t *testing.T) {
	flags, path, err := WriteAuditFlags(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if flags["audit-log-path"] != path {
		t.Fatalf("the log goes to %q, not %q", flags["audit-log-path"], path)
	}
	mb, err := strconv.Atoi(flags["audit-log-maxsize"])
	if err != nil || mb < 100*1024 {
		t.Fatalf("audit-log-maxsize %q: want at least 100 GiB in megabytes, so that no run rotates the log", flags["audit-log-maxsize"])
	}
}
