/*
Copyright 2026 The Capstan Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package ignition

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// nodeView is what the Docker provider reads of an Ignition config (its parse.go), decoded here
// without importing it: providers share nothing but objects.
type nodeView struct {
	Ignition struct {
		Version string `json:"version"`
	} `json:"ignition"`
	Storage struct {
		Files []struct {
			Path     string `json:"path"`
			Mode     *int   `json:"mode"`
			Append   bool   `json:"append"`
			Contents struct {
				Source      *string `json:"source"`
				Compression string  `json:"compression"`
			} `json:"contents"`
		} `json:"files"`
	} `json:"storage"`
	Systemd struct {
		Units []struct {
			Name     string `json:"name"`
			Contents string `json:"contents"`
			Enabled  *bool  `json:"enabled"`
		} `json:"units"`
	} `json:"systemd"`
}

// readAsDockerProvider decodes the files as the Docker provider does: only "data:" URLs, base64
// or percent-encoded, optionally gzip; the last write of a path wins, appends add to it.
func readAsDockerProvider(t *testing.T, data []byte) (nodeView, map[string]string) {
	t.Helper()
	var v nodeView
	require.NoError(t, json.Unmarshal(data, &v))
	require.True(t, strings.HasPrefix(v.Ignition.Version, "2."), "a spec the provider reads: %q", v.Ignition.Version)
	files := map[string]string{}
	for _, f := range v.Storage.Files {
		require.NotNil(t, f.Contents.Source, f.Path)
		rest, ok := strings.CutPrefix(*f.Contents.Source, "data:")
		require.True(t, ok, "%s: the provider runs only inline data: URLs, found %.40q", f.Path, *f.Contents.Source)
		header, body, ok := strings.Cut(rest, ",")
		require.True(t, ok, f.Path)
		var content []byte
		if strings.HasSuffix(header, ";base64") {
			b, err := base64.StdEncoding.DecodeString(body)
			require.NoError(t, err, f.Path)
			content = b
		} else {
			s, err := url.PathUnescape(body)
			require.NoError(t, err, f.Path)
			content = []byte(s)
		}
		switch f.Contents.Compression {
		case "":
		case "gzip":
			r, err := gzip.NewReader(bytes.NewReader(content))
			require.NoError(t, err, f.Path)
			content, err = io.ReadAll(r)
			require.NoError(t, err, f.Path)
		default:
			t.Fatalf("%s: compression %q the provider does not read", f.Path, f.Contents.Compression)
		}
		require.NotNil(t, f.Mode, "%s: a mode is written for every file", f.Path)
		if f.Append {
			files[f.Path] += string(content)
		} else {
			files[f.Path] = string(content)
		}
	}
	return v, files
}

// TestRender_DockerProviderReadsEveryFileAndStartsKubeadm: every golden input renders files the
// Docker provider decodes to the input's bytes, kubeadm.service is enabled (so the provider
// starts it) and runs /etc/kubeadm.sh, which runs kubeadm on /etc/kubeadm.yml and then writes the
// bootstrap sentinel.
func TestRender_DockerProviderReadsEveryFileAndStartsKubeadm(t *testing.T) {
	for name, tt := range goldenInputs(t) {
		t.Run(name, func(t *testing.T) {
			data, _, err := Render(tt.in, tt.extra)
			require.NoError(t, err)
			v, files := readAsDockerProvider(t, data)

			require.NotEmpty(t, v.Systemd.Units)
			kubeadm := v.Systemd.Units[0]
			require.Equal(t, "kubeadm.service", kubeadm.Name)
			require.NotNil(t, kubeadm.Enabled)
			require.True(t, *kubeadm.Enabled)
			require.Contains(t, kubeadm.Contents, "ExecStart=/etc/kubeadm.sh\n")
			require.Contains(t, kubeadm.Contents, "Type=oneshot\n")

			script := files["/etc/kubeadm.sh"]
			verb := "join"
			if tt.in.Kind == "init" {
				verb = "init"
			}
			kubeadmAt := strings.Index(script, "\nkubeadm "+verb+" --config /etc/kubeadm.yml")
			sentinelAt := strings.Index(script, "echo success > /run/cluster-api/bootstrap-success.complete\n")
			require.Positive(t, kubeadmAt, script)
			require.Greater(t, sentinelAt, kubeadmAt, "the sentinel is written after kubeadm: %s", script)
			require.True(t, strings.HasPrefix(script, "#!/bin/bash\nset -e\n"), "a failing command stops the script before the sentinel")
			for _, c := range tt.in.PreKubeadmCommands {
				require.Less(t, strings.Index(script, c+"\n"), kubeadmAt)
			}
			for _, c := range tt.in.PostKubeadmCommands {
				require.Greater(t, strings.Index(script, c+"\n"), sentinelAt)
			}
			// As package kubeadm wrote it, each document introduced by "---" (an additionalConfig
			// may append to it): kubeadm fails on an empty document ("kind and apiVersion is
			// mandatory").
			require.True(t, strings.HasPrefix(files["/etc/kubeadm.yml"], string(tt.in.KubeadmConfig)), files["/etc/kubeadm.yml"])

			for _, c := range tt.in.Certificates {
				require.Equal(t, string(c.Cert), files[c.CertPath])
				require.Equal(t, string(c.Key), files[c.KeyPath])
			}
			for _, f := range tt.in.Files {
				want := string(f.Content)
				switch f.Encoding {
				case "base64":
					b, err := base64.StdEncoding.DecodeString(want)
					require.NoError(t, err)
					want = string(b)
				case "gzip":
					r, err := gzip.NewReader(bytes.NewReader(f.Content))
					require.NoError(t, err)
					b, err := io.ReadAll(r)
					require.NoError(t, err)
					want = string(b)
				}
				require.Equal(t, want, files[f.Path], f.Path)
			}
		})
	}
}
