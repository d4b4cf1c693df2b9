package ipamprovider

import (
	_ "embed"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	ipamv1 "capstan.dev/contracts/api/ipam/v1beta2"
)

// PoolGVK is the TestIPPool kind; claims name it in spec.poolRef (apiGroup and kind).
var PoolGVK = schema.GroupVersionKind{Group: ipamv1.GroupVersion.Group, Version: "v1beta2", Kind: "TestIPPool"}

// MaxPoolSize bounds how many addresses a pool's entries may add up to: enumerating a /64 to
// find the lowest free address would never end, and tests need a handful.
const MaxPoolSize = 4096

//go:embed testippools.yaml
var crdYAML []byte

// CRD returns the TestIPPool CustomResourceDefinition, for envtest.Options.CRDs.
func CRD() (*apiextensionsv1.CustomResourceDefinition, error) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(crdYAML, crd); err != nil {
		return nil, fmt.Errorf("decoding the TestIPPool CRD: %w", err)
	}
	return crd, nil
}

// NewPool returns a TestIPPool to create: addresses are single addresses, ranges "first-last"
// and CIDRs; gateway may be empty.
func NewPool(namespace, name string, addresses []string, prefix int, gateway string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(PoolGVK)
	u.SetNamespace(namespace)
	u.SetName(name)
	spec := map[string]any{"addresses": toAny(addresses), "prefix": int64(prefix)}
	if gateway != "" {
		spec["gateway"] = gateway
	}
	u.Object["spec"] = spec
	return u
}

// PoolRef is the reference a claim makes to the TestIPPool name.
func PoolRef(name string) ipamv1.IPPoolReference {
	return ipamv1.IPPoolReference{APIGroup: PoolGVK.Group, Kind: PoolGVK.Kind, Name: name}
}

func toAny(in []string) []any {
	out := make([]any, len(in))
	for i, s := range in {
		out[i] = s
	}
	return out
}

// pool is what the controller reads of a TestIPPool.
type pool struct {
	// addresses are the pool's allocatable addresses, sorted, the gateway left out.
	addresses []netip.Addr
	prefix    int32
	gateway   string
}

// parsePool reads a TestIPPool's spec; an error says which entry is wrong and why.
func parsePool(u *unstructured.Unstructured) (*pool, error) {
	entries, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "addresses")
	prefix, _, _ := unstructured.NestedInt64(u.Object, "spec", "prefix")
	gateway, _, _ := unstructured.NestedString(u.Object, "spec", "gateway")
	p := &pool{prefix: int32(prefix), gateway: gateway}
	var gw netip.Addr
	if gateway != "" {
		var err error
		if gw, err = netip.ParseAddr(gateway); err != nil {
			return nil, fmt.Errorf("spec.gateway %q is not an IP address", gateway)
		}
	}
	seen := map[netip.Addr]bool{}
	for i, e := range entries {
		addrs, err := expand(e, MaxPoolSize-len(p.addresses))
		if err != nil {
			return nil, fmt.Errorf("spec.addresses[%d] %q: %w", i, e, err)
		}
		for _, a := range addrs {
			if a != gw && !seen[a] {
				seen[a] = true
				p.addresses = append(p.addresses, a)
			}
		}
	}
	slices.SortFunc(p.addresses, func(a, b netip.Addr) int { return a.Compare(b) })
	return p, nil
}

// expand lists the addresses of one entry, at most limit of them. A CIDR of IPv4 leaves out
// its network and broadcast addresses (unless it is a /31 or /32), as hosts cannot use them.
func expand(entry string, limit int) ([]netip.Addr, error) {
	var first, last netip.Addr
	switch {
	case strings.Contains(entry, "/"):
		prefix, err := netip.ParsePrefix(entry)
		if err != nil {
			return nil, fmt.Errorf("not a CIDR: %w", err)
		}
		prefix = prefix.Masked()
		first, last = prefix.Addr(), lastOf(prefix)
		if first.Is4() && prefix.Bits() < 31 {
			first, last = first.Next(), last.Prev()
		}
	case strings.Contains(entry, "-"):
		from, to, _ := strings.Cut(entry, "-")
		var err1, err2 error
		first, err1 = netip.ParseAddr(strings.TrimSpace(from))
		last, err2 = netip.ParseAddr(strings.TrimSpace(to))
		if err1 != nil || err2 != nil || first.Is4() != last.Is4() || last.Less(first) {
			return nil, fmt.Errorf("not a range first-last of one family, first not after last")
		}
	default:
		a, err := netip.ParseAddr(entry)
		if err != nil {
			return nil, fmt.Errorf("not an IP address, a range or a CIDR")
		}
		first, last = a, a
	}
	var out []netip.Addr
	for a := first; a.IsValid() && !last.Less(a); a = a.Next() {
		if len(out) == limit {
			return nil, fmt.Errorf("the pool would hold more than %d addresses", MaxPoolSize)
		}
		out = append(out, a)
	}
	return out, nil
}

// lastOf is the highest address of prefix.
func lastOf(prefix netip.Prefix) netip.Addr {
	b := prefix.Addr().AsSlice()
	for i := prefix.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 1 << (7 - i%8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// lowestFree is the lowest address of p not in used.
func (p *pool) lowestFree(used map[netip.Addr]bool) (netip.Addr, bool) {
	for _, a := range p.addresses {
		if !used[a] {
			return a, true
		}
	}
	return netip.Addr{}, false
}
