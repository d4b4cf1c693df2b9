package cmd

import (
	"capstan.dev/core/internal/capstanctl/clusterctl"
	"capstan.dev/core/internal/capstanctl/components"
)

// devInventoryVersion is what init records for a tag that is not a semantic version (dev, a
// commit): clusterctl parses the inventory's versions, so it must get one, and a pre-release
// of v0.0.0 sorts before every release.
const devInventoryVersion = "v0.0.0-dev"

// inventoryVersion is the version init records in clusterctl's inventory: the image tag when it
// is a release version (the images are that release), else devInventoryVersion.
func inventoryVersion(imageTag string) string {
	if _, err := clusterctl.ParseVersion(imageTag); err == nil {
		return imageTag
	}
	return devInventoryVersion
}

// withInventory adds clusterctl's inventory CRD and an entry per installed clusterctl provider
// to plan, the entries after everything else, as clusterctl writes them after the components:
// upstream clusterctl's describe, move and upgrade then recognise the installation.
func withInventory(plan components.Plan, ps []components.Provider, imageTag string) (components.Plan, error) {
	crd, err := clusterctl.InventoryCRD()
	if err != nil {
		return plan, err
	}
	entries, err := clusterctl.Inventory(ps, inventoryVersion(imageTag))
	if err != nil {
		return plan, err
	}
	plan.CRDs = append(plan.CRDs, crd)
	plan.Rest = append(plan.Rest, entries...)
	return plan, nil
}
