// Package providers lists the providers Capstan ships, as a static table of what
// each one serves (contract, API group, kinds), and optionally checks which of
// their CRDs a management cluster has. The table is kept honest by a test that
// compares it with the CRDs the provider modules generate. The package does not
// import any provider module: kinds are plain strings here.
package providers

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
)

// Provider types, as upstream clusterctl names them.
const (
	CoreProvider           = "CoreProvider"
	BootstrapProvider      = "BootstrapProvider"
	ControlPlaneProvider   = "ControlPlaneProvider"
	InfrastructureProvider = "InfrastructureProvider"
)

// Provider is one row of `capstanctl providers list`.
type Provider struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"`
	Contract string   `json:"contract"`
	Version  string   `json:"version"`
	APIGroup string   `json:"apiGroup"`
	Kinds    []string `json:"kinds"`
	// Installed summarizes CRDs; set only when the cluster was checked.
	Installed *bool `json:"installed,omitempty"`
	// CRDs is the per-kind check, set only when the cluster was checked.
	CRDs []CRD `json:"crds,omitempty"`
}

// CRD is what a management cluster has for one kind.
type CRD struct {
	Name    string `json:"name"`
	Present bool   `json:"present"`
	// Contract is the contract the CRD's cluster.x-k8s.io/<contract> label declares
	// and APIVersion the CRD version it names; both empty when the CRD has no label
	// (the core's own CRDs carry none: they define the contract).
	Contract   string `json:"contract,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
	// Problem says why the CRD does not count as installed.
	Problem string `json:"problem,omitempty"`
}

// Shipped returns Capstan's providers, each at version (capstanctl's own: the
// providers are built and released from the same repository).
func Shipped(version string) []Provider {
	c := string(contract.V1Beta2)
	return []Provider{
		{Name: "cluster-api", Type: CoreProvider, Contract: c, Version: version, APIGroup: clusterv1.GroupVersion.Group,
			Kinds: []string{"Cluster", "ClusterClass", "Machine", "MachineDeployment", "MachineDrainRule", "MachineHealthCheck", "MachinePool", "MachineSet"}},
		{Name: "kubeadm", Type: BootstrapProvider, Contract: c, Version: version, APIGroup: "bootstrap.cluster.x-k8s.io",
			Kinds: []string{"KubeadmConfig", "KubeadmConfigTemplate"}},
		{Name: "kubeadm", Type: ControlPlaneProvider, Contract: c, Version: version, APIGroup: "controlplane.cluster.x-k8s.io",
			Kinds: []string{"KubeadmControlPlane", "KubeadmControlPlaneTemplate"}},
		{Name: "docker", Type: InfrastructureProvider, Contract: c, Version: version, APIGroup: "infrastructure.cluster.x-k8s.io",
			Kinds: []string{"DevCluster", "DevClusterTemplate", "DevMachine", "DevMachinePool", "DevMachinePoolTemplate", "DevMachineTemplate",
				"DockerCluster", "DockerClusterTemplate", "DockerMachine", "DockerMachinePool", "DockerMachinePoolTemplate",
				"DockerMachineTemplate"}},
	}
}

// CheckInstalled fills Installed and CRDs of each provider from the cluster c
// reads. A provider counts as installed when every CRD exists and, for providers
// other than the core, declares the provider's contract. Errors other than a
// missing CRD (the cluster is unreachable, access is denied) are returned.
func CheckInstalled(ctx context.Context, c client.Reader, providers []Provider) error {
	for i := range providers {
		p := &providers[i]
		installed := true
		p.CRDs = make([]CRD, 0, len(p.Kinds))
		for _, kind := range p.Kinds {
			crd := CRD{Name: contract.CalculateCRDName(p.APIGroup, kind), Present: true}
			v, err := contract.GetContractVersion(ctx, c, schema.GroupKind{Group: p.APIGroup, Kind: kind})
			switch {
			case err == nil:
				crd.Contract, crd.APIVersion = string(v.Contract), v.APIVersion
				if crd.Contract != p.Contract {
					crd.Problem = fmt.Sprintf("declares contract %s, not %s", crd.Contract, p.Contract)
				}
			case errors.Is(err, contract.ErrCRDNotFound):
				crd.Present, crd.Problem = false, "CRD not found"
			case errors.Is(err, contract.ErrNoContractLabel):
				if p.Type != CoreProvider {
					crd.Problem = fmt.Sprintf("no %s label", contract.ContractVersion(p.Contract).Label())
				}
			case errors.Is(err, contract.ErrMalformedContractLabel):
				crd.Problem = err.Error()
			default:
				return fmt.Errorf("checking CRD %s: %w: is the management cluster reachable with --kubeconfig/KUBECONFIG?", crd.Name, err)
			}
			if crd.Problem != "" {
				installed = false
			}
			p.CRDs = append(p.CRDs, crd)
		}
		p.Installed = &installed
	}
	return nil
}
