package rollout

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// Kind is a kind rollout works on.
type Kind struct {
	// Resource is the kind's name in RESOURCE arguments (machinedeployment); Short is its short form (md).
	Resource, Short string
	GVK             schema.GroupVersionKind
}

// The kinds rollout works on.
var (
	MachineDeployment = Kind{Resource: "machinedeployment", Short: "md",
		GVK: clusterv1.GroupVersion.WithKind("MachineDeployment")}
	KubeadmControlPlane = Kind{Resource: "kubeadmcontrolplane", Short: "kcp",
		GVK: schema.GroupVersionKind{Group: "controlplane.cluster.x-k8s.io", Version: "v1beta2", Kind: "KubeadmControlPlane"}}
)

var kinds = []Kind{MachineDeployment, KubeadmControlPlane}

// Allowed says which RESOURCE arguments are accepted, for error messages.
const Allowed = "machinedeployment/NAME (md/NAME) or kubeadmcontrolplane/NAME (kcp/NAME)"

// Ref names one object to roll out.
type Ref struct {
	Kind            Kind
	Namespace, Name string
}

// String is "Kind namespace/name", as messages name the object.
func (r Ref) String() string { return r.Kind.GVK.Kind + " " + r.Namespace + "/" + r.Name }

// Arg is the RESOURCE argument that names r again, for commands suggested to the user.
func (r Ref) Arg() string { return r.Kind.Resource + "/" + r.Name + " -n " + r.Namespace }

// ParseRef reads a RESOURCE argument in kind/name form. Kinds are matched case-insensitively, in
// singular, plural or short form (md, kcp), as kubectl accepts them.
func ParseRef(arg, namespace string) (Ref, error) {
	kind, name, ok := strings.Cut(arg, "/")
	if !ok {
		return Ref{}, fmt.Errorf("%q is not in kind/name form: use %s", arg, Allowed)
	}
	if kind == "" || name == "" || strings.Contains(name, "/") {
		return Ref{}, fmt.Errorf("%q must be one kind and one name: use %s", arg, Allowed)
	}
	k := strings.ToLower(kind)
	for _, known := range kinds {
		if k == known.Resource || k == known.Resource+"s" || k == known.Short {
			return Ref{Kind: known, Namespace: namespace, Name: name}, nil
		}
	}
	return Ref{}, fmt.Errorf("unknown kind %q in %q: rollout works on %s", kind, arg, Allowed)
}
