package topologyplan

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	runtimeclient "capstan.dev/core/internal/runtime/client"
	"capstan.dev/core/internal/runtime/registry"
	"capstan.dev/core/internal/topology/clusterstate"
	"capstan.dev/core/internal/topology/patches"
)

// extensions calls the Runtime Extensions of the class (its external patches, its
// GenerateUpgradePlan handler) as the controller would: it registers the handlers every
// ExtensionConfig of the management cluster reports in its status (the ExtensionConfig controller
// discovered them), then calls them from here. The plan therefore needs the extensions to be
// reachable from where capstanctl runs (a Service URL is not, from outside the cluster: the error
// names the extension). nil when the class names none.
func extensions(ctx context.Context, c client.Client, cc *clusterv1.ClusterClass) (*runtimeclient.Client, error) {
	uses := cc.Spec.Upgrade.External.GenerateUpgradePlanExtension != ""
	for _, p := range cc.Spec.Patches {
		uses = uses || p.External != nil
	}
	if !uses {
		return nil, nil
	}
	list := &runtimev1.ExtensionConfigList{}
	if err := c.List(ctx, list); err != nil {
		return nil, fmt.Errorf("ClusterClass %s names Runtime Extensions: listing the ExtensionConfigs that serve them: %w", cc.Name, err)
	}
	reg := registry.New()
	for i := range list.Items {
		reg.Register(&list.Items[i])
	}
	return runtimeclient.New(reg, c), nil
}

// patcherOf and plannerOf are rc as the topology code takes it: an untyped nil when rc is nil.
func patcherOf(rc *runtimeclient.Client) patches.ExternalPatcher {
	if rc == nil {
		return nil
	}
	return rc
}

func plannerOf(rc *runtimeclient.Client) clusterstate.UpgradePlanner {
	if rc == nil {
		return nil
	}
	return rc
}
