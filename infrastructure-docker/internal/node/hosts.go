package node

import (
	"fmt"
	"sort"
	"strings"

	"capstan.dev/infrastructure-docker/internal/docker"
)

// The managed block of a node's /etc/hosts: the lines between these markers are the provider's,
// everything else (what Docker wrote: localhost, the node's own name) is left as it is.
const (
	hostsPath       = "/etc/hosts"
	hostsBlockBegin = "# capstan nodes begin"
	hostsBlockEnd   = "# capstan nodes end"
)

// hostsBlock renders the managed block listing peers, the cluster's other running containers
// with an address on the node network, sorted by name; "" when there is none. Docker's own
// line already names the node itself.
func hostsBlock(self string, cluster []docker.Container) string {
	var peers []docker.Container
	for _, c := range cluster {
		if c.Name != self && c.Running && c.IPv4 != "" {
			peers = append(peers, c)
		}
	}
	if len(peers) == 0 {
		return ""
	}
	sort.Slice(peers, func(i, j int) bool { return peers[i].Name < peers[j].Name })
	var b strings.Builder
	b.WriteString(hostsBlockBegin + "\n")
	b.WriteString("# Written by the Capstan Docker provider: the other containers of this cluster; rewritten as they come and go.\n")
	for _, p := range peers {
		fmt.Fprintf(&b, "%s\t%s\n", p.IPv4, p.Name)
	}
	b.WriteString(hostsBlockEnd + "\n")
	return b.String()
}

// withHostsBlock returns the hosts file current with its managed block replaced by block (at
// the end of the file), or removed when block is "". Lines outside the block are kept byte for
// byte, so a file that already holds block comes back unchanged. A begin marker without its end
// marker (a write cut short) takes the rest of the file with it.
func withHostsBlock(current, block string) string {
	var b strings.Builder
	inBlock := false
	for _, line := range strings.SplitAfter(current, "\n") {
		switch text := strings.TrimRight(line, "\r\n"); {
		case !inBlock && text == hostsBlockBegin:
			inBlock = true
		case inBlock && text == hostsBlockEnd:
			inBlock = false
		case !inBlock:
			b.WriteString(line)
		}
	}
	out := b.String()
	if block == "" {
		return out
	}
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return out + block
}
