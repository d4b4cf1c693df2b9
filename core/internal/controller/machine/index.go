package machine

import (
	"context"
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// MachineProviderIDIndex indexes Machines by spec.providerID, so a Node event maps
// to its Machine without listing every Machine.
const MachineProviderIDIndex = "spec.providerID"

// AddProviderIDIndex registers MachineProviderIDIndex on the manager's cache.
func AddProviderIDIndex(ctx context.Context, mgr ctrl.Manager) error {
	err := mgr.GetFieldIndexer().IndexField(ctx, &clusterv1.Machine{}, MachineProviderIDIndex, func(o client.Object) []string {
		if m, ok := o.(*clusterv1.Machine); ok && m.Spec.ProviderID != "" {
			return []string{m.Spec.ProviderID}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("indexing Machines by spec.providerID: %w", err)
	}
	return nil
}
