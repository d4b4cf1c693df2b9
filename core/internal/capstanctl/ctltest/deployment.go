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

package ctltest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/contracts/envtest"
	"capstan.dev/core/internal/capstanctl/components"
)

// ManagerImages returns the image of each provider's manager Deployment in env, by module; ""
// when the Deployment does not exist.
func ManagerImages(t *testing.T, env *envtest.Environment) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range components.All {
		objs, err := m.Objects()
		require.NoError(t, err)
		for _, o := range objs {
			if o.GetKind() != "Deployment" {
				continue
			}
			d := &appsv1.Deployment{}
			err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(o), d)
			if apierrors.IsNotFound(err) {
				out[m.Module] = ""
				continue
			}
			require.NoError(t, err)
			out[m.Module] = d.Spec.Template.Spec.Containers[0].Image
		}
	}
	return out
}

// SetDeploymentAvailable writes the status the deployment controller writes for d's one
// replica, updated and either available or not: envtest runs no deployment controller, so
// the waits of init and upgrade apply see exactly this.
func SetDeploymentAvailable(t *testing.T, env *envtest.Environment, d *appsv1.Deployment, available bool) {
	t.Helper()
	envtest.UpdateStatus(t, env.Client, d, func() {
		d.Status.ObservedGeneration = d.Generation
		d.Status.Replicas, d.Status.UpdatedReplicas = 1, 1
		cond := appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse,
			Reason: "MinimumReplicasUnavailable", Message: "Deployment does not have minimum availability.",
			LastUpdateTime: metav1.Now(), LastTransitionTime: metav1.Now()}
		d.Status.AvailableReplicas, d.Status.ReadyReplicas = 0, 0
		if available {
			cond.Status, cond.Reason, cond.Message = corev1.ConditionTrue, "MinimumReplicasAvailable", "Deployment has minimum availability."
			d.Status.AvailableReplicas, d.Status.ReadyReplicas = 1, 1
		}
		d.Status.Conditions = []appsv1.DeploymentCondition{cond}
	})
}
