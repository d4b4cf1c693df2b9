package cloudinit

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse checks that no input makes Parse panic, that every failure is an *Error with a
// line inside the document, and that every success yields well-formed actions. Documents with
// the Jinja header are rendered with instance data, so the renderer is fuzzed too.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"#cloud-config\n",
		"#cloud-config\nwrite_files:\n- path: /etc/x\n  content: aGk=\n  encoding: b64\n  permissions: '0600'\n  owner: a:b\n  append: true\nruncmd:\n- echo hi\n- [ls, -l]\n",
		"#cloud-config\nwrite_files:\n- path: /x\n  encoding: gz+b64\n  content: H4sIAAAAAAAA/0rOzy0oSi0uTk1RSKpUSK/KLOACBAAA///Jl4V/EwAAAA==\n",
		"#cloud-config\na: &x [1]\nruncmd: *x\n",
		"#cloud-config\nruncmd:\n- [a, *b]\n",
		"#cloud-config\nusers: [{name: ops}]\nntp: {enabled: true}\n",
		"## template: jinja\n#cloud-config\nruncmd:\n- hostname {{ ds.meta_data.hostname }}\n- echo '{{v1.instance_id}}'\n",
		"## template: jinja\n#cloud-config\nruncmd: ['{% if x %}', '{{ v1.region }}', '{{ a | b }}']\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Parse(data, InstanceData{Hostname: "node-0", InstanceID: "node-0"})
		if err != nil {
			var perr *Error
			if !errors.As(err, &perr) {
				t.Fatalf("error %v is not a *cloudinit.Error", err)
			}
			if lines := lineBreaks(data) + 1; perr.Line < 1 || perr.Line > lines+1 {
				t.Fatalf("error line %d outside the document's %d lines: %v", perr.Line, lines, err)
			}
			return
		}
		for _, a := range res.Actions {
			switch a := a.(type) {
			case *WriteFile:
				if !strings.HasPrefix(a.Path, "/") || a.Owner == "" || len(a.Content) > MaxFileSize {
					t.Fatalf("malformed file action %+v", a)
				}
			case *RunCommand:
				if len(a.Args) == 0 || a.Args[0] == "" {
					t.Fatalf("malformed command %+v", a)
				}
			default:
				t.Fatalf("unknown action %T", a)
			}
		}
	})
}
