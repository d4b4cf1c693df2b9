package upgrade

import (
	"slices"

	"capstan.dev/core/internal/capstanctl/clusterctl"
	"capstan.dev/core/internal/capstanctl/inventory"
	"capstan.dev/core/internal/capstanctl/repository"
)

// Row is one installed provider in upgrade plan's table.
type Row struct {
	inventory.Entry
	// Next is the newest version of the contract newer than the installed one; "" when there
	// is none or it could not be known (Note says why).
	Next string
	// Note says why there is no next version when the provider is not simply up to date:
	// it is embedded, has no repository, or its repository could not be read.
	Note string
}

// UpToDate is the NEXT VERSION column's word for a provider with no newer version.
const UpToDate = "Already up to date"

// EmbeddedNote is the NEXT VERSION column of Capstan's embedded providers.
const EmbeddedNote = "embedded (upgrade capstanctl)"

// NextColumn is the row's NEXT VERSION column.
func (r Row) NextColumn() string {
	switch {
	case r.Note != "":
		return r.Note
	case r.Next == "":
		return UpToDate
	}
	return r.Next
}

// Plan computes a row per inventory entry, in the entries' order: the newest version of
// contract its repository holds, when newer than the installed one.
func Plan(entries []inventory.Entry, cfg repository.Config, contract string) []Row {
	var rows []Row
	for _, e := range entries {
		r := Row{Entry: e}
		src, embedded, err := sourceOf(e, cfg)
		switch {
		case embedded:
			r.Note = EmbeddedNote
		case err != nil:
			r.Note = "unknown: " + err.Error()
		default:
			next, err := Newest(src, e.Version, contract)
			if err != nil {
				r.Note = "unknown: " + err.Error()
			}
			r.Next = next
		}
		rows = append(rows, r)
	}
	return rows
}

// Embedded says whether e is one of Capstan's embedded providers: a provider plain
// `capstanctl init` installs, which the configuration file does not list.
func Embedded(e inventory.Entry, cfg repository.Config) bool {
	if _, ok := cfg.Provider(e.Name, e.Type); ok {
		return false
	}
	return slices.ContainsFunc(clusterctl.Providers, func(p clusterctl.Provider) bool { return p.Label == e.Label })
}

// sourceOf is e's repository, or embedded, or why there is none.
func sourceOf(e inventory.Entry, cfg repository.Config) (repository.Source, bool, error) {
	if Embedded(e, cfg) {
		return repository.Source{}, true, nil
	}
	pe, ok := cfg.Provider(e.Name, e.Type)
	if !ok {
		return repository.Source{}, false, noRepositoryError(e, cfg)
	}
	src, err := repository.NewSource(pe)
	return src, false, err
}

// Newest returns the highest version of src newer than current whose metadata.yaml says it
// implements contract, or "" when there is none. A version without metadata.yaml, or whose
// metadata lists no series for it, is skipped: its contract is unknown (apply names it).
func Newest(src repository.Source, current, contract string) (string, error) {
	have, err := clusterctl.ParseVersion(current)
	if err != nil {
		return "", err
	}
	versions, err := src.Versions()
	if err != nil {
		return "", err
	}
	for _, v := range versions { // highest first
		parsed, _ := clusterctl.ParseVersion(v)
		if !have.LessThan(parsed) {
			return "", nil
		}
		if parsed.PreRelease() != "" {
			continue // as Resolve's latest: a pre-release is chosen by name only
		}
		m, err := src.ReadMetadata(v)
		if err != nil {
			continue
		}
		if c, ok := m.Contract(v); ok && c == contract {
			return v, nil
		}
	}
	return "", nil
}
