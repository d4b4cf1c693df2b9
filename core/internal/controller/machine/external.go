package machine

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/external"
)

// externalRequeue is how often a Machine re-reads a referenced object that does
// not exist yet: no watch can deliver its creation, because it carries no owner
// reference to the Machine until the Machine adopts it.
const externalRequeue = 10 * time.Second

// adopt makes the Machine the controller owner of a bootstrap config or
// infrastructure machine and labels it with the Cluster name. The creator's owner
// reference (a MachineSet or a control plane) is dropped: from now on the object
// lives and dies with the Machine.
func (r *Reconciler) adopt(ctx context.Context, m *clusterv1.Machine, obj *unstructured.Unstructured) error {
	isController, blockDeletion := true, true
	return external.Adopt(ctx, r.Client, obj, metav1.OwnerReference{
		APIVersion: clusterv1.GroupVersion.String(), Kind: "Machine", Name: m.Name, UID: m.UID,
		Controller: &isController, BlockOwnerDeletion: &blockDeletion,
	}, m.Spec.ClusterName, isCreatorRef)
}

// isCreatorRef recognises the owner references that creators of Machines put on
// the objects they clone for them.
func isCreatorRef(ref metav1.OwnerReference) bool {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return false
	}
	return (gv.Group == clusterv1.GroupVersion.Group && (ref.Kind == "MachineSet" || ref.Kind == "MachinePool")) ||
		gv.Group == "controlplane.cluster.x-k8s.io"
}

// objectName is "Kind namespace/name" for messages.
func objectName(kind string, obj client.Object) string {
	return fmt.Sprintf("%s %s/%s", kind, obj.GetNamespace(), obj.GetName())
}
