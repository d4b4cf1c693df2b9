// Package upgrade moves providers installed from clusterctl local repositories to newer
// versions, for `capstanctl upgrade plan` and `capstanctl upgrade apply`, as clusterctl's
// upgrade does: Plan reads each inventory entry's repository and names the newest version of
// the same contract; Targets resolves what apply was asked for and refuses, before anything is
// written, an unknown provider, a missing version or metadata.yaml, another contract and a
// downgrade; Upgrader then deletes the old version's components but its CRDs, their objects
// and its namespace (package deleteprovider's selection), applies the new ones with package
// install's applier, migrates objects stored at a version the new CRD no longer stores (a
// no-op write of each, then status.storedVersions), and updates the inventory entry last, so
// that an interrupted upgrade is run again from the start.
//
// Capstan's embedded providers are not upgraded here: their version is capstanctl's own, so a
// newer capstanctl's init upgrades them. The package never reaches the network (package
// repository reads local repositories only) and never deletes a CRD or a namespace.
package upgrade
