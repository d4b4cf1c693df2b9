package cloudinit

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// node is the instance data of the golden tests: a node container named as a Machine is.
var node = InstanceData{Hostname: "wl-md-0-x7k2p-9dq4z", InstanceID: "wl-md-0-x7k2p-9dq4z"}

// describeActions writes actions as the golden files hold them: one header line per action,
// then a file's content with each line marked, so that a diff shows what changed where.
func describeActions(actions []Action) string {
	var b strings.Builder
	for _, a := range actions {
		switch a := a.(type) {
		case *WriteFile:
			fmt.Fprintf(&b, "line %d: write %s mode %04o owner %s append %t\n", a.Line, a.Path, a.Permissions.Perm(), a.Owner, a.Append)
			for l := range strings.Lines(string(a.Content)) {
				fmt.Fprintf(&b, "  | %s", strings.TrimSuffix(l, "\n")+"\n")
			}
		case *RunCommand:
			fmt.Fprintf(&b, "line %d: run boot %t %q\n", a.Line, a.Boot, a.Args)
		}
	}
	return b.String()
}

// TestParse_RendersUpstreamKubeadmBootstrapData reads bootstrap data in the exact format of
// upstream's kubeadm bootstrap provider (a "## template: jinja" header, instance-data variables
// in the kubeadm configuration and the commands) and compares the rendered actions with the
// golden files (go test -update rewrites them).
func TestParse_RendersUpstreamKubeadmBootstrapData(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "*.userdata"))
	require.NoError(t, err)
	require.NotEmpty(t, inputs)
	for _, input := range inputs {
		t.Run(filepath.Base(input), func(t *testing.T) {
			data, err := os.ReadFile(input)
			require.NoError(t, err)
			res, err := Parse(data, node)
			require.NoError(t, err)
			got := describeActions(res.Actions)
			require.NotContains(t, got, "{{", "every variable is rendered")
			golden := strings.TrimSuffix(input, ".userdata") + ".golden"
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			require.Equal(t, string(want), got)
		})
	}
}

func TestParse_RendersEveryInstanceDataVariableANodeContainerHas(t *testing.T) {
	doc := "##template:Jinja\r\n#cloud-config\r\nruncmd:\n" +
		"- echo {{ ds.meta_data.hostname }} {{ds.meta_data.local_hostname}} {{  ds.meta_data.instance_id  }}\n" +
		"- echo {{ v1.local_hostname }} {{ v1.instance_id }} {{ local_hostname }} {{ instance_id }}\n"
	res, err := Parse([]byte(doc), InstanceData{Hostname: "host", InstanceID: "id"})
	require.NoError(t, err)
	require.Equal(t, []Action{
		&RunCommand{Args: []string{"/bin/sh", "-c", "echo host host id"}, Line: 4},
		&RunCommand{Args: []string{"/bin/sh", "-c", "echo host id host id"}, Line: 5},
	}, res.Actions)
}

func TestParse_DataWithoutTheJinjaHeaderIsNotRendered(t *testing.T) {
	doc := "#cloud-config\nwrite_files:\n- path: /etc/t.tmpl\n  content: 'Hello {{ ds.meta_data.hostname }} {% raw %}'\n"
	res, err := Parse([]byte(doc), node)
	require.NoError(t, err)
	require.Equal(t, "Hello {{ ds.meta_data.hostname }} {% raw %}", string(res.Actions[0].(*WriteFile).Content))
}

func TestParse_RefusesJinjaItCannotRenderNamingTheLine(t *testing.T) {
	tests := []struct {
		name, body string
		inst       InstanceData
		line       int
		want       string
	}{
		{"UnknownVariable", "runcmd:\n- echo {{ ds.meta_data.local_ipv4 }}\n", node, 4,
			`the Jinja variable "ds.meta_data.local_ipv4" has no value in a Docker node container (known: ds.meta_data.hostname, ds.meta_data.instance_id, ds.meta_data.local_hostname, instance_id, local_hostname, v1.instance_id, v1.local_hostname)`},
		{"NoInstanceData", "runcmd:\n- echo {{ v1.local_hostname }}\n", InstanceData{}, 4,
			`the Jinja variable "v1.local_hostname" has no value in a Docker node container (known: none: the provider passed no instance data)`},
		{"Statement", "runcmd:\n{% if v1.distro == 'ubuntu' %}\n- echo hi\n{% endif %}\n", node, 4,
			`"{%": Jinja statements and comments are not supported`},
		{"Comment", "runcmd:\n- echo ${#list}\n", node, 4, `"{#": Jinja statements and comments are not supported`},
		{"Filter", "runcmd:\n- echo {{ v1.local_hostname | upper }}\n", node, 4,
			`the Jinja expression "{{ v1.local_hostname | upper }}" is not supported`},
		{"Subscript", "runcmd:\n- echo {{ ds.meta_data['local-hostname'] }}\n", node, 4,
			`the Jinja expression "{{ ds.meta_data['local-hostname'] }}" is not supported`},
		{"WhitespaceControl", "runcmd:\n- echo {{- v1.local_hostname }}\n", node, 4, `is not supported`},
		{"Unclosed", "runcmd:\n- echo {{ v1.local_hostname\n", node, 4, `opened with "{{" is never closed`},
		{"NotCloudConfig", "#!/bin/sh\necho {{ v1.local_hostname }}\n", node, 2, `the line after "## template: jinja" is not "#cloud-config"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := "## template: jinja\n#cloud-config\n" + tt.body
			if tt.name == "NotCloudConfig" {
				doc = "## template: jinja\n" + tt.body
			}
			_, err := Parse([]byte(doc), tt.inst)
			requireLineError(t, err, tt.line, tt.want)
		})
	}
}

func TestParse_JinjaLineNumbersAreThoseOfTheOriginalDocument(t *testing.T) {
	_, err := Parse([]byte("## template: jinja\n#cloud-config\nruncmd:\n- echo {{ v1.instance_id }}\n-\n"), node)
	requireLineError(t, err, 5, "runcmd[1] is empty")
}
