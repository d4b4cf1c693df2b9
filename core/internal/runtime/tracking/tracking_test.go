/*
Copyright 2026 The Capstan Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package tracking

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
)

// countingClient is a fake client counting its patches.
func countingClient(t *testing.T, objs ...client.Object) (client.Client, *int) {
	t.Helper()
	s := runtime.NewScheme()
	require.NoError(t, clusterv1.AddToScheme(s))
	n := 0
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).WithInterceptorFuncs(interceptor.Funcs{
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, o ...client.PatchOption) error {
			n++
			return c.Patch(ctx, obj, p, o...)
		},
	}).Build()
	return c, &n
}

func TestTracking_PendingSetIsSortedAndWrittenOnlyOnChange(t *testing.T) {
	ctx := context.Background()
	cl := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"}}
	c, patches := countingClient(t, cl)

	require.NoError(t, MarkPending(ctx, c, cl, "AfterControlPlaneUpgrade", "AfterClusterUpgrade"))
	require.Equal(t, 1, *patches)
	got := &clusterv1.Cluster{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(cl), got))
	require.Equal(t, "AfterClusterUpgrade,AfterControlPlaneUpgrade", got.Annotations[runtimev1.PendingHooksAnnotation])

	require.NoError(t, MarkPending(ctx, c, got, "AfterClusterUpgrade"))
	require.NoError(t, MarkDone(ctx, c, got, "BeforeClusterDelete"))
	require.Equal(t, 1, *patches, "a set that does not change is not written")
	require.True(t, IsPending(got, "AfterClusterUpgrade"))

	require.NoError(t, MarkDone(ctx, c, got, "AfterClusterUpgrade", "AfterControlPlaneUpgrade"))
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(cl), got))
	_, has := got.Annotations[runtimev1.PendingHooksAnnotation]
	require.False(t, has, "an empty set removes the annotation")
	require.Equal(t, 2, *patches)
}

func TestTracking_ReadsUpstreamsAnnotationLeniently(t *testing.T) {
	cl := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{
		runtimev1.PendingHooksAnnotation: " B , A,,B",
	}}}
	require.Equal(t, []string{"A", "B"}, Pending(cl))
}

func TestTracking_OkToDeleteIsWrittenOnce(t *testing.T) {
	ctx := context.Background()
	cl := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"}}
	c, patches := countingClient(t, cl)
	require.False(t, IsOkToDelete(cl))
	require.NoError(t, MarkOkToDelete(ctx, c, cl))
	require.NoError(t, MarkOkToDelete(ctx, c, cl))
	require.Equal(t, 1, *patches)
	got := &clusterv1.Cluster{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(cl), got))
	require.True(t, IsOkToDelete(got))
}
