package topologyplan

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	runtimeclient "capstan.dev/core/internal/runtime/client"
	"capstan.dev/core/internal/runtime/registry"
	"capstan.dev/core/internal/topology/patches"
)

// externalPatcher calls the Runtime Extensions of the class's external patches as the controller
// would: it registers the handlers every ExtensionConfig of the management cluster reports in its
// status (the ExtensionConfig controller discovered them), then calls them from here. The plan
// therefore needs the extensions to be reachable from where capstanctl runs (a Service URL is
// not, from outside the cluster: the error names the extension). nil when the class has no
// external patch.
func externalPatcher(ctx context.Context, c client.Client, cc *clusterv1.ClusterClass) (patches.ExternalPatcher, error) {
	external := false
	for _, p := range cc.Spec.Patches {
		external = external || p.External != nil
	}
	if !external {
		return nil, nil
	}
	list := &runtimev1.ExtensionConfigList{}
	if err := c.List(ctx, list); err != nil {
		return nil, fmt.Errorf("ClusterClass %s has external patches: listing the ExtensionConfigs that serve them: %w", cc.Name, err)
	}
	reg := registry.New()
	for i := range list.Items {
		reg.Register(&list.Items[i])
	}
	return runtimeclient.New(reg, c), nil
}
