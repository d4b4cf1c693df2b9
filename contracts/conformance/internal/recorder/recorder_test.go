package recorder

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRecorder_RecordsFailuresSkipsAndRunsCleanups(t *testing.T) {
	var order []string
	r := Record(t, func(r *Recorder) {
		r.Cleanup(func() { order = append(order, "root") })
		r.Run("Passes", func(r *Recorder) { r.Cleanup(func() { order = append(order, "passes") }) })
		r.Run("Errors", func(r *Recorder) { r.Errorf("one %d", 1); r.Errorf("two") })
		r.Run("Fatal", func(r *Recorder) {
			r.Fatalf("stop")
			order = append(order, "after fatal") // never runs
		})
		r.Run("Skips", func(r *Recorder) { r.Skipf("not today") })
		require.True(t, r.Failed())
	})
	require.Equal(t, []string{"Errors", "Fatal"}, r.FailedTests())
	require.Equal(t, []string{"Skips"}, r.SkippedTests())
	require.Equal(t, "one 1\ntwo", r.Messages("Errors"))
	require.Equal(t, []string{"passes", "root"}, order)
}
