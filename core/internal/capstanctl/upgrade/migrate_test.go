package upgrade

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// conversionError is what the API server answers while a CRD's conversion webhook cannot be
// reached (the new release's manager not serving yet).
func conversionError() error {
	return apierrors.NewInternalError(errors.New(`conversion webhook for infrastructure.example.capstan.dev/v1alpha1, Kind=ExampleCluster failed: ` +
		`Post "https://example-webhook-service.example-system.svc:443/convert?timeout=30s": dial tcp 10.96.0.12:443: connect: connection refused`))
}

func TestWhileConverting_RetriesUntilTheWebhookAnswers(t *testing.T) {
	var out bytes.Buffer
	u := &Upgrader{Out: &out, PollInterval: time.Millisecond, ConversionWait: time.Minute}
	calls := 0
	err := u.whileConverting(context.Background(), "exampleclusters.infrastructure.example.capstan.dev", func() error {
		calls++
		if calls < 3 {
			return conversionError()
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, 3, calls)
	require.Contains(t, out.String(), "CustomResourceDefinition exampleclusters.infrastructure.example.capstan.dev: waiting for its conversion webhook to answer")
}

func TestWhileConverting_OtherErrorsAreNotRetried(t *testing.T) {
	u := &Upgrader{PollInterval: time.Millisecond}
	calls := 0
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "exampleclusters"}, "x", errors.New("no"))
	err := u.whileConverting(context.Background(), "crd", func() error { calls++; return forbidden })
	require.ErrorIs(t, err, forbidden)
	require.Equal(t, 1, calls)
}

func TestWhileConverting_GivesUpNamingTheCRDAndWhatToCheck(t *testing.T) {
	u := &Upgrader{PollInterval: time.Millisecond, ConversionWait: 20 * time.Millisecond}
	err := u.whileConverting(context.Background(), "exampleclusters.infrastructure.example.capstan.dev", func() error { return conversionError() })
	require.ErrorContains(t, err, "connection refused")
	require.ErrorContains(t, err, "the conversion webhook of CustomResourceDefinition exampleclusters.infrastructure.example.capstan.dev did not answer within 20ms")
	require.ErrorContains(t, err, "check that the new release's manager is running")
}
