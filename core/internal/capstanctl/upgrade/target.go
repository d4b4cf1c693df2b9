package upgrade

import (
	"fmt"
	"strings"

	"capstan.dev/core/internal/capstanctl/clusterctl"
	"capstan.dev/core/internal/capstanctl/inventory"
	"capstan.dev/core/internal/capstanctl/repository"
)

// Target is one installed provider and the release it moves to. A target whose release is its
// installed version is up to date: apply leaves it alone, and Release holds only the version.
type Target struct {
	Entry   inventory.Entry
	Release repository.Release
}

// UpToDate says whether the target is already at its release.
func (t Target) UpToDate() bool { return t.Release.Version == t.Entry.Version }

// Request is one provider flag of apply: [NAMESPACE/]NAME:VERSION of a type.
type Request struct {
	Flag, Type, Namespace, Name, Version string
}

// ParseRequest parses a provider flag's value, [NAMESPACE/]NAME:VERSION: clusterctl's form
// names the namespace; without it the inventory's is meant.
func ParseRequest(flag, providerType, value string) (Request, error) {
	nsName, v, _ := strings.Cut(strings.TrimSpace(value), ":")
	ns, name, hasNS := strings.Cut(nsName, "/")
	if !hasNS {
		ns, name = "", nsName
	}
	if name == "" || v == "" || (hasNS && ns == "") {
		return Request{}, fmt.Errorf("--%s %q: write [NAMESPACE/]NAME:VERSION (e.g. capi-example-system/example:v0.2.0 or example:v0.2.0); "+
			"--contract moves every provider to the newest version of a contract", flag, value)
	}
	return Request{Flag: flag, Type: providerType, Namespace: ns, Name: name, Version: v}, nil
}

// CheckContract refuses a contract other than the core's: Capstan's core implements one, so
// there is nothing to move to.
func CheckContract(contract, core string) error {
	if contract != core {
		return fmt.Errorf("--contract %s: Capstan's core implements contract %s only, so providers can move only to releases of %s: use --contract %s",
			contract, core, core, core)
	}
	return nil
}

// ForContract resolves every installed provider that has a repository to the newest version
// of contract. Embedded providers are skipped and named; a provider without a repository is
// refused, as clusterctl refuses it.
func ForContract(entries []inventory.Entry, cfg repository.Config, contract string) (targets []Target, embedded []string, err error) {
	for _, e := range entries {
		src, isEmbedded, err := sourceOf(e, cfg)
		switch {
		case isEmbedded:
			embedded = append(embedded, e.Label)
			continue
		case err != nil:
			return nil, nil, err
		}
		next, err := Newest(src, e.Version, contract)
		if err != nil {
			return nil, nil, err
		}
		if next == "" {
			targets = append(targets, Target{Entry: e, Release: repository.Release{Source: src, Version: e.Version}})
			continue
		}
		rel, err := src.Read(next, contract)
		if err != nil {
			return nil, nil, err
		}
		targets = append(targets, Target{Entry: e, Release: rel})
	}
	return targets, embedded, nil
}

// ForRequests resolves each request to its installed provider and requested release, refusing
// an unknown provider, another namespace, an embedded provider, a version the repository lacks
// or whose metadata does not declare contract, and a downgrade.
func ForRequests(entries []inventory.Entry, cfg repository.Config, reqs []Request, contract string) ([]Target, error) {
	var targets []Target
	for _, r := range reqs {
		e, err := installed(entries, r)
		if err != nil {
			return nil, err
		}
		src, isEmbedded, err := sourceOf(e, cfg)
		switch {
		case isEmbedded:
			return nil, fmt.Errorf("--%s %s:%s: %s is Capstan's embedded provider, whose version is capstanctl's own: "+
				"upgrade it by running a newer capstanctl's init, or list a repository for it in the configuration file", r.Flag, r.Name, r.Version, e.Label)
		case err != nil:
			return nil, err
		}
		if err := checkNotOlder(e, r.Version); err != nil {
			return nil, err
		}
		v, err := src.Resolve(r.Version)
		if err != nil {
			return nil, err
		}
		if v == e.Version {
			targets = append(targets, Target{Entry: e, Release: repository.Release{Source: src, Version: v}})
			continue
		}
		rel, err := src.Read(v, contract)
		if err != nil {
			return nil, err
		}
		targets = append(targets, Target{Entry: e, Release: rel})
	}
	return targets, nil
}

// installed is the inventory entry a request names.
func installed(entries []inventory.Entry, r Request) (inventory.Entry, error) {
	label, err := clusterctl.ManifestLabel(r.Name, r.Type)
	if err != nil {
		return inventory.Entry{}, err
	}
	found := inventory.Find(entries, label)
	if len(found) != 1 {
		return inventory.Entry{}, fmt.Errorf("--%s %s: provider %s is not installed: clusterctl's inventory lists %s; install it with capstanctl init",
			r.Flag, r.Name, label, inventory.Labels(entries))
	}
	e := found[0]
	if r.Namespace != "" && r.Namespace != e.Namespace {
		return inventory.Entry{}, fmt.Errorf("--%s %s/%s: provider %s is installed in namespace %s, not %s", r.Flag, r.Namespace, r.Name, label, e.Namespace, r.Namespace)
	}
	return e, nil
}

// checkNotOlder refuses moving e to an older version than it has.
func checkNotOlder(e inventory.Entry, v string) error {
	want, err := clusterctl.ParseVersion(v)
	if err != nil {
		return fmt.Errorf("provider %s: %w", e.Label, err)
	}
	have, err := clusterctl.ParseVersion(e.Version)
	if err != nil {
		return fmt.Errorf("the inventory entry of %s: %w", e.Label, err)
	}
	if want.LessThan(have) {
		return fmt.Errorf("%s %s is installed, and %s is older: upgrade does not downgrade a provider (neither does clusterctl); "+
			"to go back, delete it (capstanctl delete --provider %s) and init the older version", e.Label, e.Version, v, e.Label)
	}
	return nil
}

// noRepositoryError says that the configuration file lists no repository for e.
func noRepositoryError(e inventory.Entry, cfg repository.Config) error {
	where := "no configuration file was found (--config, or clusterctl.yaml or capstanctl.yaml in $XDG_CONFIG_HOME/cluster-api or ~/.cluster-api)"
	if cfg.Path != "" {
		where = "the configuration file " + cfg.Path + " lists no " + e.Type + " " + e.Name
	}
	return fmt.Errorf("no repository for installed provider %s %s: %s; add it to providers: with the url of its repository", e.Label, e.Version, where)
}
