package ipamprovider

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

func addrs(t *testing.T, ss ...string) []netip.Addr {
	t.Helper()
	var out []netip.Addr
	for _, s := range ss {
		out = append(out, netip.MustParseAddr(s))
	}
	return out
}

func TestParsePool_ExpandsAddressesRangesAndCIDRsSortedWithoutTheGateway(t *testing.T) {
	p, err := parsePool(NewPool("ns", "p", []string{"10.0.0.9", "10.0.0.4-10.0.0.6", "10.0.1.0/30", "10.0.0.5"}, 24, "10.0.0.5"))
	require.NoError(t, err)
	require.Equal(t, addrs(t, "10.0.0.4", "10.0.0.6", "10.0.0.9", "10.0.1.1", "10.0.1.2"), p.addresses,
		"the gateway and duplicates are left out, a /30 without its network and broadcast addresses")
	require.Equal(t, int32(24), p.prefix)

	p, err = parsePool(NewPool("ns", "p", []string{"fd00::/126"}, 64, ""))
	require.NoError(t, err)
	require.Equal(t, addrs(t, "fd00::", "fd00::1", "fd00::2", "fd00::3"), p.addresses)
}

func TestParsePool_NamesTheEntryThatIsWrong(t *testing.T) {
	for entry, want := range map[string]string{
		"10.0.0.300":          `spec.addresses[1] "10.0.0.300": not an IP address, a range or a CIDR`,
		"10.0.0.9-10.0.0.1":   `spec.addresses[1] "10.0.0.9-10.0.0.1": not a range first-last`,
		"10.0.0.1-fd00::1":    "not a range first-last of one family",
		"10.0.0.0/33":         "not a CIDR",
		"fd00::/64":           "the pool would hold more than 4096 addresses",
		"10.0.0.0-10.0.255.0": "the pool would hold more than 4096 addresses",
	} {
		_, err := parsePool(NewPool("ns", "p", []string{"10.0.0.1", entry}, 24, ""))
		require.ErrorContains(t, err, want, entry)
	}
}

func TestLowestFree_SkipsUsedAndReportsExhaustion(t *testing.T) {
	p, err := parsePool(NewPool("ns", "p", []string{"10.0.0.1-10.0.0.3"}, 24, ""))
	require.NoError(t, err)
	a, ok := p.lowestFree(map[netip.Addr]bool{netip.MustParseAddr("10.0.0.1"): true})
	require.True(t, ok)
	require.Equal(t, "10.0.0.2", a.String())
	_, ok = p.lowestFree(map[netip.Addr]bool{netip.MustParseAddr("10.0.0.1"): true, netip.MustParseAddr("10.0.0.2"): true,
		netip.MustParseAddr("10.0.0.3"): true})
	require.False(t, ok)
}
