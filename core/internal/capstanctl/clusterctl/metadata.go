package clusterctl

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/version"
	"sigs.k8s.io/yaml"

	"capstan.dev/contracts/contract"
)

// APIVersion is the version of clusterctl's own API: metadata.yaml, the inventory and
// clusterctl.yaml's provider entries.
const APIVersion = "clusterctl.cluster.x-k8s.io/v1alpha3"

// Metadata is a provider's metadata.yaml: which contract each release series implements.
// clusterctl refuses a version whose major.minor the file does not list.
type Metadata struct {
	APIVersion    string          `json:"apiVersion"`
	Kind          string          `json:"kind"`
	ReleaseSeries []ReleaseSeries `json:"releaseSeries"`
}

// ReleaseSeries maps one major.minor to a contract.
type ReleaseSeries struct {
	Major    uint   `json:"major"`
	Minor    uint   `json:"minor"`
	Contract string `json:"contract"`
}

// ParseVersion parses a release version as clusterctl does (a semantic version, with the
// leading "v" Capstan's tags and clusterctl's directories use), naming the bad input.
func ParseVersion(v string) (*version.Version, error) {
	if len(v) < 2 || v[0] != 'v' {
		return nil, fmt.Errorf("release version %q is not a semantic version with a leading v (e.g. v0.1.0)", v)
	}
	parsed, err := version.ParseSemantic(v)
	if err != nil {
		return nil, fmt.Errorf("release version %q is not a semantic version (e.g. v0.1.0): %w", v, err)
	}
	return parsed, nil
}

// NewMetadata returns the metadata of a release at version v: every release series of v's major
// up to v's own, each mapped to v1beta2, the only contract Capstan has implemented. clusterctl's
// upgrade reads the newest release's metadata alone and refuses ("does not match any release
// series") when it does not list the installed version's series, so the older series stay
// listed. Series of earlier majors are not (Capstan has released none).
func NewMetadata(v string) (Metadata, error) {
	parsed, err := ParseVersion(v)
	if err != nil {
		return Metadata{}, err
	}
	m := Metadata{APIVersion: APIVersion, Kind: "Metadata"}
	for minor := uint(0); minor <= parsed.Minor(); minor++ {
		m.ReleaseSeries = append(m.ReleaseSeries, ReleaseSeries{Major: parsed.Major(), Minor: minor, Contract: string(contract.V1Beta2)})
	}
	return m, nil
}

// YAML renders m as metadata.yaml.
func (m Metadata) YAML() ([]byte, error) {
	return yaml.Marshal(m)
}

// ParseMetadata reads a metadata.yaml, refusing another kind or API version than clusterctl's.
func ParseMetadata(data []byte) (Metadata, error) {
	var m Metadata
	if err := yaml.Unmarshal(data, &m); err != nil {
		return Metadata{}, fmt.Errorf("metadata.yaml is not a clusterctl Metadata: %w", err)
	}
	if m.Kind != "Metadata" || m.APIVersion != APIVersion {
		return Metadata{}, fmt.Errorf("metadata.yaml has kind %q and apiVersion %q: clusterctl's is Metadata %s", m.Kind, m.APIVersion, APIVersion)
	}
	return m, nil
}

// Contract returns the contract m's release series says version v implements, and false when
// m lists no series for v's major.minor.
func (m Metadata) Contract(v string) (string, bool) {
	parsed, err := ParseVersion(v)
	if err != nil {
		return "", false
	}
	for _, rs := range m.ReleaseSeries {
		if rs.Major == parsed.Major() && rs.Minor == parsed.Minor() {
			return rs.Contract, true
		}
	}
	return "", false
}
