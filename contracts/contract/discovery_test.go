package contract_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/contracts/contract"
)

// crdReader serves CRD metadata by name and fails the test on any List. The envtest
// suite in ./discoverytest checks the same against a real kube-apiserver.
type crdReader struct {
	t      *testing.T
	labels map[string]map[string]string // CRD name -> labels
	err    error                        // returned by every Get when set
	gets   []string
}

func (r *crdReader) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	r.gets = append(r.gets, key.Name)
	pom, ok := obj.(*metav1.PartialObjectMetadata)
	require.True(r.t, ok, "discovery must read CRDs as metadata only, got %T", obj)
	require.Equal(r.t, schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"},
		pom.GroupVersionKind())
	require.Empty(r.t, key.Namespace, "CRDs are cluster-scoped")
	if r.err != nil {
		return r.err
	}
	labels, ok := r.labels[key.Name]
	if !ok {
		return apierrors.NewNotFound(schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}, key.Name)
	}
	pom.SetName(key.Name)
	pom.SetLabels(labels)
	return nil
}

func (r *crdReader) List(context.Context, client.ObjectList, ...client.ListOption) error {
	r.t.Errorf("contract discovery listed CRDs; it must GET the one CRD by name")
	return errors.New("listing is not allowed")
}

var dockerMachine = schema.GroupKind{Group: "infrastructure.cluster.x-k8s.io", Kind: "DockerMachine"}

func TestGetContractVersion_GetsTheCRDByItsCalculatedName(t *testing.T) {
	r := &crdReader{t: t, labels: map[string]map[string]string{
		"dockermachines.infrastructure.cluster.x-k8s.io": {"cluster.x-k8s.io/v1beta1": "v1beta1", "cluster.x-k8s.io/v1beta2": "v1beta1_v1beta2"},
	}}
	v, err := contract.GetContractVersion(context.Background(), r, dockerMachine)
	require.NoError(t, err)
	require.Equal(t, contract.Version{Contract: contract.V1Beta2, APIVersion: "v1beta2"}, v)
	require.Equal(t, []string{"dockermachines.infrastructure.cluster.x-k8s.io"}, r.gets)
}

func TestGetContractVersion_MissingCRDIsErrCRDNotFoundButNotAnAPINotFound(t *testing.T) {
	r := &crdReader{t: t}
	_, err := contract.GetContractVersion(context.Background(), r, dockerMachine)
	require.ErrorIs(t, err, contract.ErrCRDNotFound)
	require.False(t, apierrors.IsNotFound(err), "callers reserve IsNotFound for the provider object itself")
	require.EqualError(t, err, "CRD dockermachines.infrastructure.cluster.x-k8s.io for kind DockerMachine.infrastructure.cluster.x-k8s.io "+
		"not found: is the provider that serves it installed?")
}

func TestGetContractVersion_OtherAPIErrorsAreWrappedForRetry(t *testing.T) {
	r := &crdReader{t: t, err: apierrors.NewServiceUnavailable("etcd is down")}
	_, err := contract.GetContractVersion(context.Background(), r, dockerMachine)
	require.True(t, apierrors.IsServiceUnavailable(err))
	require.ErrorContains(t, err, "getting CRD dockermachines.infrastructure.cluster.x-k8s.io for kind DockerMachine.infrastructure.cluster.x-k8s.io")
	require.NotErrorIs(t, err, contract.ErrCRDNotFound)
}

func TestGetContractVersion_UnlabelledCRDIsErrNoContractLabel(t *testing.T) {
	r := &crdReader{t: t, labels: map[string]map[string]string{"dockermachines.infrastructure.cluster.x-k8s.io": {}}}
	_, err := contract.GetContractVersion(context.Background(), r, dockerMachine)
	require.ErrorIs(t, err, contract.ErrNoContractLabel)
}

func TestGetContractVersion_RejectsIncompleteGroupKindAndNilReader(t *testing.T) {
	r := &crdReader{t: t}
	_, err := contract.GetContractVersion(context.Background(), r, schema.GroupKind{Kind: "DockerMachine"})
	require.ErrorContains(t, err, "group and kind must both be set")
	_, err = contract.GetContractVersion(context.Background(), r, schema.GroupKind{Group: "g"})
	require.ErrorContains(t, err, "group and kind must both be set")
	require.Empty(t, r.gets)
	_, err = contract.GetContractVersion(context.Background(), nil, dockerMachine)
	require.ErrorContains(t, err, "nil client")
}
