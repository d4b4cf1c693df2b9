package node

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// natRules is `iptables -t nat -S` of a node whose route points at 192.168.5.9:6443, with
// kube-proxy's and Docker's rules around it (iptables 1.8.9, nf_tables, in the node image).
const natRules = `-P PREROUTING ACCEPT
-P INPUT ACCEPT
-P OUTPUT ACCEPT
-P POSTROUTING ACCEPT
-N DOCKER_OUTPUT
-N KUBE-POSTROUTING
-A OUTPUT -d 127.0.0.11/32 -j DOCKER_OUTPUT
-A OUTPUT -d 127.0.0.1/32 -p tcp -m tcp --dport 39999 -j DNAT --to-destination 192.168.5.9:6443
-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-A POSTROUTING -d 127.0.0.11/32 -j DOCKER_POSTROUTING
-A POSTROUTING -s 127.0.0.1/32 -d 192.168.5.9/32 -p tcp -m tcp --dport 6443 -j MASQUERADE
-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING
-A KUBE-POSTROUTING -j MASQUERADE --random-fully
`

func TestEndpointRoute_AppliedInComparesTheListedRules(t *testing.T) {
	route := endpointRoute{port: 39999, lbIP: "192.168.5.9", lbPort: 6443}
	require.True(t, route.appliedIn(natRules))

	moved := endpointRoute{port: 39999, lbIP: "192.168.5.12", lbPort: 6443}
	require.False(t, moved.appliedIn(natRules), "the load balancer moved")
	both := strings.Replace(natRules, "-A OUTPUT -m comment", moved.listedDNAT()+"\n-A OUTPUT -m comment", 1)
	both = strings.Replace(both, "-A POSTROUTING -m comment", moved.listedMasquerade()+"\n-A POSTROUTING -m comment", 1)
	require.False(t, moved.appliedIn(both), "a rule to the old address is left")

	var none []string
	for _, line := range strings.Split(natRules, "\n") {
		if !strings.Contains(line, "192.168.5.9") {
			none = append(none, line)
		}
	}
	require.False(t, route.appliedIn(strings.Join(none, "\n")), "no rule at all")
}

func TestEndpointRoute_ScriptDeletesRulesToAnotherAddressBeforeAddingItsOwn(t *testing.T) {
	got := endpointRoute{port: 39999, lbIP: "192.168.5.9", lbPort: 6443}.script()
	require.Contains(t, got, `iptables -t nat -S OUTPUT | grep -F -e '-A OUTPUT -d 127.0.0.1/32 -p tcp -m tcp --dport 39999 -j DNAT ' | `+
		`grep -v -x -F -e '-A OUTPUT -d 127.0.0.1/32 -p tcp -m tcp --dport 39999 -j DNAT --to-destination 192.168.5.9:6443' | sed 's/^-A /-D /'`)
	require.Contains(t, got, `grep -v -x -F -e '-A POSTROUTING -s 127.0.0.1/32 -d 192.168.5.9/32 -p tcp -m tcp --dport 6443 -j MASQUERADE'`)
	require.True(t, strings.HasSuffix(got, "iptables -t nat -C POSTROUTING -s 127.0.0.1/32 -d 192.168.5.9/32 -p tcp --dport 6443 -j MASQUERADE 2>/dev/null || "+
		"iptables -t nat -A POSTROUTING -s 127.0.0.1/32 -d 192.168.5.9/32 -p tcp --dport 6443 -j MASQUERADE\n"), got)
}
