package integration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1beta1 "capstan.dev/contracts/api/core/v1beta1"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/testing/crds"
)

// TestConversion_V1Beta1WritesMeetTheV1Beta2Rules writes through the v1beta1 types what only
// the v1beta2 schema's CEL rules refuse. The apiserver validates a write against the schema of
// the version it was made in, so without the generated ValidatingAdmissionPolicies
// (contracts/config/admission/v1beta1-rules.yaml) each of these was stored: a Cluster that
// builds nothing, an existing Cluster losing its infrastructureRef, and a MachineSet whose
// selector its own Machines do not match (which would create Machines without end). Each is
// refused with the message the v1beta2 write gets; the valid writes go through.
func TestConversion_V1Beta1WritesMeetTheV1Beta2Rules(t *testing.T) {
	ctx := context.Background()
	stop, _ := startCoreWithWebhook(t, time.Hour)
	defer stop()
	ns := env.CreateNamespace(t, "v1beta1-rules")
	old, err := client.New(env.Config, client.Options{Scheme: conversionScheme(t)})
	require.NoError(t, err)

	// Without a spec the v1beta2 Cluster is incomplete: stored, it could not even be patched by
	// the Cluster controller (seen before the policies: "spec: Required value" on every patch).
	err = old.Create(ctx, &clusterv1beta1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "no-spec", Namespace: ns}})
	require.ErrorContains(t, err, "spec: Required value")

	network := &clusterv1beta1.ClusterNetwork{Pods: &clusterv1beta1.NetworkRanges{CIDRBlocks: []string{"10.244.0.0/16"}}}
	empty := &clusterv1beta1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "builds-nothing", Namespace: ns}, Spec: clusterv1beta1.ClusterSpec{ClusterNetwork: network}}
	err = old.Create(ctx, empty)
	require.ErrorContains(t, err, "spec says nothing that builds the cluster")
	err = env.Client.Create(ctx, &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "builds-nothing", Namespace: ns}, Spec: clusterv1.ClusterSpec{
		ClusterNetwork: clusterv1.ClusterNetwork{Pods: clusterv1.NetworkRanges{CIDRBlocks: []string{"10.244.0.0/16"}}},
	}})
	require.ErrorContains(t, err, "spec says nothing that builds the cluster", "the v1beta2 write gets the same message from the schema")

	c := &clusterv1beta1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: ns},
		Spec: clusterv1beta1.ClusterSpec{ClusterNetwork: network, InfrastructureRef: &corev1.ObjectReference{
			APIVersion: crds.InfrastructureGroupVersion.String(), Kind: "GenericInfrastructureCluster", Name: "c1", Namespace: ns,
		}, ControlPlaneRef: &corev1.ObjectReference{
			APIVersion: crds.ControlPlaneGroupVersion.String(), Kind: "GenericControlPlane", Name: "c1", Namespace: ns,
		}},
	}
	require.NoError(t, old.Create(ctx, c), "a valid v1beta1 Cluster is accepted")
	before := c.DeepCopy()
	c.Spec.InfrastructureRef = nil
	err = old.Patch(ctx, c, client.MergeFrom(before)) // no resourceVersion: the controllers write the Cluster too
	require.ErrorContains(t, err, "spec.infrastructureRef cannot be removed from an existing Cluster", "a transition rule holds for v1beta1 updates")

	ms := &clusterv1beta1.MachineSet{
		ObjectMeta: metav1.ObjectMeta{Name: "ms1", Namespace: ns},
		Spec: clusterv1beta1.MachineSetSpec{
			ClusterName: "c1",
			Replicas:    ptr.To[int32](1),
			Selector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "role", Operator: metav1.LabelSelectorOpIn, Values: []string{"worker"}},
			}},
			Template: clusterv1beta1.MachineTemplateSpec{
				ObjectMeta: clusterv1beta1.ObjectMeta{Labels: map[string]string{"role": "db"}},
				Spec: clusterv1beta1.MachineSpec{
					ClusterName: "c1",
					Bootstrap:   clusterv1beta1.Bootstrap{DataSecretName: ptr.To("ms1-bootstrap")},
					InfrastructureRef: corev1.ObjectReference{
						APIVersion: crds.InfrastructureGroupVersion.String(), Kind: "GenericInfrastructureMachineTemplate", Name: "ms1",
					},
				},
			},
		},
	}
	err = old.Create(ctx, ms)
	require.ErrorContains(t, err, "spec.selector.matchExpressions must all be satisfied by spec.template.metadata.labels")
	ms.Spec.Template.Labels["role"] = "worker"
	require.NoError(t, old.Create(ctx, ms), "the same MachineSet with matching template labels is accepted")
	// Gone before the next test: the steady-state test's MachineSet controller would take it up.
	require.NoError(t, env.Client.Delete(ctx, &clusterv1.MachineSet{ObjectMeta: metav1.ObjectMeta{Name: "ms1", Namespace: ns}}))
}

// TestConversion_V1Beta1ClassUpdatesKeepTheirWorkerTemplateKinds: the v1beta2 schema keeps a
// worker class's infrastructure template kind on update by a transition rule inside the
// classes' list, which the generated v1beta1 rules cannot carry; the hand-written policy
// clusterclass-worker-template-kinds does (contracts/config/admission/clusterclass.yaml).
// Before it, a v1beta1 client could move a class in use to another kind of template.
func TestConversion_V1Beta1ClassUpdatesKeepTheirWorkerTemplateKinds(t *testing.T) {
	ctx := context.Background()
	stop, _ := startCoreWithWebhook(t, time.Hour)
	defer stop()
	ns := env.CreateNamespace(t, "v1beta1-class")
	old, err := client.New(env.Config, client.Options{Scheme: conversionScheme(t)})
	require.NoError(t, err)
	ref := func(gv schema.GroupVersion, kind, name string) *corev1.ObjectReference {
		return &corev1.ObjectReference{APIVersion: gv.String(), Kind: kind, Name: name}
	}
	cc := &clusterv1beta1.ClusterClass{ObjectMeta: metav1.ObjectMeta{Name: "quick-start", Namespace: ns}, Spec: clusterv1beta1.ClusterClassSpec{
		Infrastructure: clusterv1beta1.LocalObjectTemplate{Ref: ref(crds.InfrastructureGroupVersion, "GenericInfrastructureClusterTemplate", "c")},
		ControlPlane: clusterv1beta1.ControlPlaneClass{LocalObjectTemplate: clusterv1beta1.LocalObjectTemplate{
			Ref: ref(crds.ControlPlaneGroupVersion, "GenericControlPlaneTemplate", "cp"),
		}},
		Workers: clusterv1beta1.WorkersClass{MachineDeployments: []clusterv1beta1.MachineDeploymentClass{{
			Class: "default-worker",
			Template: clusterv1beta1.MachineDeploymentClassTemplate{
				Bootstrap:      clusterv1beta1.LocalObjectTemplate{Ref: ref(crds.BootstrapGroupVersion, "GenericBootstrapConfigTemplate", "md")},
				Infrastructure: clusterv1beta1.LocalObjectTemplate{Ref: ref(crds.InfrastructureGroupVersion, "GenericInfrastructureMachineTemplate", "md")},
			},
		}}},
	}}
	require.NoError(t, old.Create(ctx, cc))
	defer func() { require.NoError(t, env.Client.Delete(ctx, &clusterv1.ClusterClass{ObjectMeta: cc.ObjectMeta})) }()

	before := cc.DeepCopy()
	cc.Spec.Workers.MachineDeployments[0].Template.Infrastructure.Ref.Name = "md-v2"
	require.NoError(t, old.Patch(ctx, cc, client.MergeFrom(before)), "another template of the same kind is fine")

	before = cc.DeepCopy()
	cc.Spec.Workers.MachineDeployments[0].Template.Infrastructure.Ref.Kind = "DevMachineTemplate"
	err = old.Patch(ctx, cc, client.MergeFrom(before))
	require.ErrorContains(t, err, "spec.workers.machineDeployments[class=default-worker].infrastructure.templateRef: "+
		"the template kind and API group cannot change (it was GenericInfrastructureMachineTemplate of infrastructure.cluster.x-k8s.io)")

	before = cc.DeepCopy()
	cc.Spec.Workers.MachineDeployments[0].Class = "other-worker"
	require.NoError(t, old.Patch(ctx, cc, client.MergeFrom(before)), "a class of another name is a new class, with any template kind")
}
