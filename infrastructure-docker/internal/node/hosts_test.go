package node

import (
	"testing"

	"github.com/stretchr/testify/require"

	"capstan.dev/infrastructure-docker/internal/docker"
)

// dockerHosts is /etc/hosts as Docker writes it for a node container.
const dockerHosts = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n192.168.5.2\tc-w0\n"

func TestHostsBlock_ListsTheClustersOtherRunningContainersSortedByName(t *testing.T) {
	cluster := []docker.Container{
		{Name: "c-w1", Running: true, IPv4: "192.168.5.4"},
		{Name: "c-w0", Running: true, IPv4: "192.168.5.2"}, // the node itself
		{Name: "c-lb", Running: true, IPv4: "192.168.5.9"},
		{Name: "c-stopped", Running: false},
		{Name: "c-cp0", Running: true, IPv4: "192.168.5.3"},
	}
	require.Equal(t, "# capstan nodes begin\n"+
		"# Written by the Capstan Docker provider: the other containers of this cluster; rewritten as they come and go.\n"+
		"192.168.5.3\tc-cp0\n192.168.5.9\tc-lb\n192.168.5.4\tc-w1\n"+
		"# capstan nodes end\n", hostsBlock("c-w0", cluster))
	require.Empty(t, hostsBlock("c-w0", cluster[1:2]), "a node alone in its cluster has no block")
}

func TestWithHostsBlock_ReplacesOnlyTheManagedBlock(t *testing.T) {
	block := func(lines string) string { return hostsBlockBegin + "\n" + lines + hostsBlockEnd + "\n" }
	for _, tc := range []struct {
		name, current, block, want string
	}{
		{name: "added at the end", current: dockerHosts, block: block("1.1.1.1\ta\n"), want: dockerHosts + block("1.1.1.1\ta\n")},
		{name: "a file without a final newline gets one", current: "127.0.0.1\tlocalhost", block: block("1.1.1.1\ta\n"),
			want: "127.0.0.1\tlocalhost\n" + block("1.1.1.1\ta\n")},
		{name: "replaced", current: dockerHosts + block("1.1.1.1\ta\n"), block: block("2.2.2.2\tb\n"), want: dockerHosts + block("2.2.2.2\tb\n")},
		{name: "moved to the end, lines after it kept", current: block("1.1.1.1\ta\n") + dockerHosts, block: block("2.2.2.2\tb\n"),
			want: dockerHosts + block("2.2.2.2\tb\n")},
		{name: "removed when empty", current: dockerHosts + block("1.1.1.1\ta\n"), block: "", want: dockerHosts},
		{name: "a cut block is dropped to the end of the file", current: dockerHosts + hostsBlockBegin + "\n1.1.1.1\ta\n", block: block("2.2.2.2\tb\n"),
			want: dockerHosts + block("2.2.2.2\tb\n")},
		{name: "nothing to do", current: dockerHosts, block: "", want: dockerHosts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := withHostsBlock(tc.current, tc.block)
			require.Equal(t, tc.want, got)
			require.Equal(t, got, withHostsBlock(got, tc.block), "a second pass changes nothing")
		})
	}
}
