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

package cloudinit

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var (
	fuzzKinds     = []Kind{Init, JoinControlPlane, JoinWorker, "join"}
	fuzzEncodings = []Encoding{Plain, Base64, Gzip, GzipBase64, "zstd"}
)

// encodeAs returns plain encoded as enc, so that the fuzzer also reaches the paths where
// base64 and gzip content is valid (random bytes rarely are).
func encodeAs(plain []byte, enc Encoding) []byte {
	switch enc {
	case Base64:
		return []byte(base64.StdEncoding.EncodeToString(plain))
	case Gzip:
		return gzipped(plain)
	case GzipBase64:
		return []byte(base64.StdEncoding.EncodeToString(gzipped(plain)))
	default:
		return plain
	}
}

// FuzzRender feeds the renderer arbitrary input. Render may refuse input, but must never panic,
// and whatever it renders must parse back (strict YAML) into exactly the input's files, commands,
// users and ntp settings, with every file decoding to the bytes its input declared, and must be
// the same every time.
//
//	go test -run='^$' -fuzz=FuzzRender -fuzztime=60s ./internal/cloudinit/
func FuzzRender(f *testing.F) {
	// Seeds: each node kind, every encoding, YAML-hostile text, binary content, a bad encoding, an
	// unknown kind.
	f.Add(uint8(0), []byte(initKubeadmConfig), "/etc/a", "root:root", "0640", uint8(0), false,
		[]byte("hello\n"), []byte("world"), "echo pre", "echo post", "ops", "ssh-ed25519 AAAA ops", "192.0.2.10", true, int32(5), pem("CERTIFICATE", "ca"))
	f.Add(uint8(1), []byte(joinKubeadmConfig), "/etc/b64", "", "", uint8(1), true,
		[]byte("aGVsbG8K"), []byte{0, 1, 2, 255}, "", "", "", "", "", false, int32(0), pem("CERTIFICATE", "ca"))
	f.Add(uint8(2), []byte(workerKubeadmConfig), "/opt/blob", "ops:ops", "0600", uint8(2+5*3), false,
		[]byte(gzipBlob), []byte("- not: a map\n: [\n"), "'quoted' \"double\" #comment", "key: value", "user: with colon", "", "", true, int32(1), []byte(nil))
	f.Add(uint8(2), []byte("---\n"), "/etc/gz", "", "", uint8(3+5*1), false,
		[]byte(gzipBlob), []byte("\x00\r\n\t \u2028\ufeffyes\nno\n~\n"), "|", ">", "null", "true", "0640", false, int32(0), []byte(nil))
	f.Add(uint8(0), []byte{0xff, 0xfe, 0x00}, "/etc/bad", "", "", uint8(4), false,
		[]byte("x"), []byte(""), "", "", "", "", "", true, int32(-1), []byte{0xff})
	// Text YAML rejects (DEL, C1, U+FFFE) or rewrites (NEL): content must be wrapped, commands refused.
	f.Add(uint8(1), []byte("kind: X\u0085\n"), "/etc/nel", "", "", uint8(0), false,
		[]byte("a\u0085b\x7fc\u0080\ufffe\n"), []byte(" lead\ntrail \n\n"), "echo ok", "echo \u0085", "ops", "", "", false, int32(0), []byte("cert\u0085"))
	f.Add(uint8(3), []byte("kind: X"), "", "", "", uint8(0), false, []byte(""), []byte(""), "", "", "", "", "", false, int32(0), []byte(nil))

	f.Fuzz(func(t *testing.T, kind uint8, kubeadmConfig []byte, path, owner, perms string, enc uint8, appendFile bool,
		content, plain []byte, pre, post, userName, sshKey, ntpServer string, withVerbosity bool, verbosity int32, cert []byte,
	) {
		in := Input{
			Kind:          fuzzKinds[int(kind)%len(fuzzKinds)],
			KubeadmConfig: kubeadmConfig,
			Files: []File{
				// Raw fuzzer bytes under any encoding: mostly refused unless plain.
				{Path: path, Owner: owner, Permissions: perms, Encoding: fuzzEncodings[int(enc)%len(fuzzEncodings)], Append: appendFile, Content: content},
				// Fuzzer bytes validly encoded.
				{Path: "/etc/encoded", Encoding: fuzzEncodings[int(enc/5)%4], Content: encodeAs(plain, fuzzEncodings[int(enc/5)%4])},
			},
			PreKubeadmCommands:  []string{pre},
			PostKubeadmCommands: []string{post},
			Users:               []User{{Name: userName, Sudo: sshKey, SSHAuthorizedKeys: []string{sshKey}}},
			NTP:                 &NTP{Servers: []string{ntpServer}, Enabled: &appendFile},
		}
		if withVerbosity {
			in.Verbosity = &verbosity
		}
		if len(cert) > 0 {
			in.Certificates = []Certificate{{
				CertPath: "/etc/kubernetes/pki/ca.crt", KeyPath: "/etc/kubernetes/pki/ca.key", Cert: cert, Key: plain,
			}}
		}

		out, err := Render(in)
		if err != nil {
			if out != nil {
				t.Fatalf("Render returned output with an error: %v", err)
			}
			return
		}
		again, err := Render(in)
		if err != nil || !bytes.Equal(out, again) {
			t.Fatalf("rendering the same input twice differs (err %v)", err)
		}
		doc, err := parse(out)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}

		// The files the document must write, in order.
		var want []File
		if c := in.Certificates; len(c) > 0 {
			want = append(want, File{Path: c[0].CertPath, Owner: "root:root", Permissions: "0640", Content: c[0].Cert})
			if len(c[0].Key) > 0 {
				want = append(want, File{Path: c[0].KeyPath, Owner: "root:root", Permissions: "0600", Content: c[0].Key})
			}
		}
		want = append(want, in.Files...)
		kubeadmPath := KubeadmJoinConfigPath
		if in.Kind == Init {
			kubeadmPath = KubeadmInitConfigPath
		}
		want = append(want,
			File{Path: kubeadmPath, Owner: "root:root", Permissions: "0640", Content: in.KubeadmConfig},
			File{Path: PlaceholderPath, Owner: "root:root", Permissions: "0640", Content: []byte(placeholderNotes)})

		if len(doc.WriteFiles) != len(want) {
			t.Fatalf("got %d files, want %d\n%s", len(doc.WriteFiles), len(want), out)
		}
		for i, w := range want {
			g := doc.WriteFiles[i]
			if g.Path != w.Path || g.Owner != w.Owner || g.Permissions != w.Permissions || g.Append != w.Append {
				t.Fatalf("file %d: got %+v, want path %q owner %q permissions %q append %v", i, g, w.Path, w.Owner, w.Permissions, w.Append)
			}
			wantData, wantGzip, err := unwrap(w.Content, w.Encoding)
			if err != nil {
				t.Fatalf("file %d: Render accepted content that does not decode as %q: %v", i, w.Encoding, err)
			}
			gotData, gotGzip, err := unwrap([]byte(g.Content), g.Encoding)
			if err != nil {
				t.Fatalf("file %d: rendered content does not decode as %q: %v", i, g.Encoding, err)
			}
			if gotGzip != wantGzip || !bytes.Equal(gotData, wantData) {
				t.Fatalf("file %d (%q): the node would write other bytes than the input declares", i, w.Path)
			}
		}

		verb := "join"
		if in.Kind == Init {
			verb = "init"
		}
		command := "kubeadm " + verb + " --config " + kubeadmPath
		if in.Verbosity != nil {
			command += fmt.Sprintf(" --v %d", *in.Verbosity)
		}
		command += " && echo success > " + SentinelPath
		if diff := cmp.Diff(slices.Concat(in.PreKubeadmCommands, []string{command}, in.PostKubeadmCommands), doc.RunCmd); diff != "" {
			t.Fatalf("runcmd (-want +got):\n%s", diff)
		}
		if want := []user{{Name: userName, Sudo: sshKey, SSHAuthorizedKeys: []string{sshKey}}}; !cmp.Equal(want, doc.Users) {
			t.Fatalf("users (-want +got):\n%s", cmp.Diff(want, doc.Users))
		}
		if want := (&ntp{Servers: []string{ntpServer}, Enabled: &appendFile}); !cmp.Equal(want, doc.NTP) {
			t.Fatalf("ntp (-want +got):\n%s", cmp.Diff(want, doc.NTP))
		}
	})
}
