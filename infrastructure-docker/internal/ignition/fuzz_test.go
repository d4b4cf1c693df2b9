package ignition

import (
	"errors"
	"os"
	"strings"
	"testing"

	"capstan.dev/infrastructure-docker/internal/cloudinit"
)

// FuzzParse checks that no input makes Parse panic, that every failure is an *Error, and that
// every success yields well-formed actions.
func FuzzParse(f *testing.F) {
	if golden, err := os.ReadFile("testdata/upstream-kubeadm-init.ign"); err == nil {
		f.Add(golden)
	}
	for _, seed := range []string{
		`{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/a","append":[{"source":"data:,x"}],"user":{"id":1}}]}}`,
		`{"ignition":{"version":"2.3.0"},"systemd":{"units":[{"name":"a.service","enable":true,"dropins":[{"name":"b.conf"}]}]}}`,
		`{"ignition":{"version":"2.0.0"},"storage":{"files":[{"path":"/a","contents":{"source":"data:;base64,eA==","compression":"gzip"}}]}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Parse(data)
		if err != nil {
			var perr *Error
			if !errors.As(err, &perr) {
				t.Fatalf("error %v is not an *ignition.Error", err)
			}
			return
		}
		for _, a := range res.Actions {
			switch a := a.(type) {
			case *cloudinit.WriteFile:
				if !strings.HasPrefix(a.Path, "/") || a.Owner == "" || len(a.Content) > cloudinit.MaxFileSize {
					t.Fatalf("malformed file action %+v", a)
				}
			case *cloudinit.RunCommand:
				if len(a.Args) == 0 || a.Args[0] == "" {
					t.Fatalf("malformed command %+v", a)
				}
			default:
				t.Fatalf("unknown action %T", a)
			}
		}
	})
}
