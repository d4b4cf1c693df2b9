package ignition

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"capstan.dev/infrastructure-docker/internal/cloudinit"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// describe writes a result as the golden files hold it.
func describe(res *cloudinit.Result) string {
	var b strings.Builder
	for _, a := range res.Actions {
		switch a := a.(type) {
		case *cloudinit.WriteFile:
			fmt.Fprintf(&b, "write %s mode %04o (%s) owner %s append %t\n", a.Path, a.Permissions.Perm(), a.Permissions, a.Owner, a.Append)
			for l := range strings.Lines(string(a.Content)) {
				fmt.Fprintf(&b, "  | %s\n", strings.TrimSuffix(l, "\n"))
			}
		case *cloudinit.RunCommand:
			fmt.Fprintf(&b, "run %q\n", a.Args)
		}
	}
	for _, ig := range res.Ignored {
		fmt.Fprintf(&b, "ignored %s: %s\n", ig.Key, ig.Reason)
	}
	return b.String()
}

// TestParse_RunsUpstreamKubeadmIgnitionAsCAPDDoes reads an Ignition config in the format of
// upstream's kubeadm bootstrap provider (Container Linux Config transpiled to spec 2.3: inline
// data URLs, decimal modes, kubeadm.sh started by the enabled kubeadm.service) and compares the
// actions with the golden file (go test -update rewrites it).
func TestParse_RunsUpstreamKubeadmIgnitionAsCAPDDoes(t *testing.T) {
	data, err := os.ReadFile("testdata/upstream-kubeadm-init.ign")
	require.NoError(t, err)
	res, err := Parse(data)
	require.NoError(t, err)
	got := describe(res)
	golden := "testdata/upstream-kubeadm-init.golden"
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	require.Equal(t, string(want), got)
}

func TestParse_Spec3AppendsAndCompressedContents(t *testing.T) {
	var zipped bytes.Buffer
	w := gzip.NewWriter(&zipped)
	_, err := w.Write([]byte("this is gzipped content.\n"))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	doc := `{"ignition":{"version":"3.4.0"},"storage":{"files":[
	  {"path":"/etc/motd","mode":420,"user":{"id":1000},"contents":{"source":"data:,first%0A"},
	   "append":[{"source":"data:;base64,c2Vjb25kCg=="},{"compression":"gzip","source":"data:;base64,` +
		base64.StdEncoding.EncodeToString(zipped.Bytes()) + `"}]}]},
	  "systemd":{"units":[{"name":"a.service","mask":true}]}}`
	res, err := Parse([]byte(doc))
	require.NoError(t, err)
	require.Equal(t, "write /etc/motd mode 0644 (-rw-r--r--) owner 1000:root append false\n  | first\n"+
		"write /etc/motd mode 0644 (-rw-r--r--) owner 1000:root append true\n  | second\n"+
		"write /etc/motd mode 0644 (-rw-r--r--) owner 1000:root append true\n  | this is gzipped content.\n"+
		`run ["systemctl" "daemon-reload"]`+"\n"+`run ["systemctl" "mask" "a.service"]`+"\n", describe(res))
}

func TestParse_RefusesWhatItCannotRunNamingTheField(t *testing.T) {
	files := func(f string) string {
		return `{"ignition":{"version":"2.3.0"},"storage":{"files":[` + f + `]}}`
	}
	tests := []struct{ name, doc, want string }{
		{"NotJSON", "#cloud-config\n", "ignition: the bootstrap data is not an Ignition config (JSON)"},
		{"Version", `{"ignition":{"version":"1.0.0"}}`, `ignition ignition.version: "1.0.0" is not an Ignition spec version`},
		{"NoVersion", `{}`, `ignition ignition.version: "" is not an Ignition spec version`},
		{"RemoteSource", files(`{"path":"/x","contents":{"source":"https://example.com/x"}}`),
			`ignition storage.files[0].contents.source: fetching file contents from "https://example.com/x" is not supported in a node container`},
		{"RelativePath", files(`{"path":"x"}`), `ignition storage.files[0].path: "x" must be an absolute file path`},
		{"Mode", files(`{"path":"/x","mode":99999}`), "ignition storage.files[0].mode: 99999 is not a file mode: write it in decimal"},
		{"ModeType", files(`{"path":"/x","mode":"0644"}`), "ignition storage.files.mode: must be int64, found a JSON string"},
		{"BadBase64", files(`{"path":"/x","contents":{"source":"data:;base64,%%%"}}`), "storage.files[0].contents.source: the data URL's base64 data does not decode"},
		{"Compression", files(`{"path":"/x","contents":{"source":"data:,x","compression":"xz"}}`), `storage.files[0].contents.compression: "xz" is not a compression`},
		{"NotGzip", files(`{"path":"/x","contents":{"source":"data:,x","compression":"gzip"}}`), `storage.files[0].contents.compression: content is not gzip data`},
		{"Owner", files(`{"path":"/x","user":{"name":"a b"}}`), `storage.files[0].user.name: "a b" is not a user or group name`},
		{"Append", files(`{"path":"/x","append":"yes"}`), `storage.files[0].append: must be true, false (spec 2.x) or a list`},
		{"UnitName", `{"ignition":{"version":"2.3.0"},"systemd":{"units":[{"name":"../x"}]}}`, `systemd.units[0].name: "../x" is not a systemd unit name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc))
			require.ErrorContains(t, err, tt.want)
		})
	}
}
