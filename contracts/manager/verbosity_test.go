package manager

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/require"
	"k8s.io/klog/v2"
)

// klogAtZero puts klog's global verbosity back to its default when the test ends, as the
// handler changes it for the whole process.
func klogAtZero(t *testing.T) {
	t.Helper()
	t.Cleanup(func() {
		var l klog.Level
		require.NoError(t, l.Set("0"))
	})
}

func request(h http.Handler, method, body string) (int, string, http.Header) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, verbosityPath, strings.NewReader(body)))
	return rec.Code, rec.Body.String(), rec.Header()
}

// loggerWritingTo builds the manager's logger from the flags, writing to out.
func loggerWritingTo(t *testing.T, out *bytes.Buffer, args ...string) (*Options, logr.Logger) {
	t.Helper()
	o, err := parse(t, args...)
	require.NoError(t, err)
	o.Zap.DestWriter = out
	return o, o.newLogger()
}

// writes says whether log writes a V(v) message.
func writes(log logr.Logger, out *bytes.Buffer, v int) bool {
	out.Reset()
	log.V(v).Info("a message at V", "v", v)
	return strings.Contains(out.String(), "a message at V")
}

// The handler the authenticated endpoint serves changes the level of the logger already
// running, and klog's -v with it: V(4) messages appear after PUT 4 and are gone after PUT 0.
func TestVerbosityHandler_PutChangesTheRunningLoggersVerbosity(t *testing.T) {
	klogAtZero(t)
	var out bytes.Buffer
	o, log := loggerWritingTo(t, &out)
	h := o.metricsOptions().ExtraHandlers[verbosityPath]
	require.NotNil(t, h, "the authenticated endpoint serves "+verbosityPath)
	require.False(t, writes(log, &out, 4), "V(4) is not written at the default verbosity")
	require.False(t, klog.V(4).Enabled())

	code, body, header := request(h, http.MethodPut, "4")
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, "successfully set klog.logging.verbosity to 4\n", body, "upstream's answer")
	require.Equal(t, "text/plain", header.Get("Content-Type"))
	require.True(t, writes(log, &out, 4), "V(4) is written after PUT 4")
	require.False(t, writes(log, &out, 5), "but not V(5)")
	require.True(t, klog.V(4).Enabled(), "klog's -v follows")
	require.False(t, klog.V(5).Enabled())

	code, body, _ = request(h, http.MethodPut, "0")
	require.Equal(t, http.StatusOK, code, body)
	require.False(t, writes(log, &out, 4), "V(4) is gone after PUT 0")
	require.False(t, writes(log, &out, 1))
	require.True(t, writes(log, &out, 0), "V(0) is always written")
	require.False(t, klog.V(1).Enabled())
}

// Bad values and other methods answer as upstream's handler does (400 with a message, 406),
// and leave the verbosity as it was.
func TestVerbosityHandler_RefusesBadValuesAndOtherMethods(t *testing.T) {
	klogAtZero(t)
	var out bytes.Buffer
	o, log := loggerWritingTo(t, &out, "--zap-log-level=2")
	h := verbosityHandler(o.atomicLevel(), log)
	for _, tc := range []struct {
		method, body string
		code         int
		want         string
	}{
		{http.MethodPut, "four", http.StatusBadRequest, `invalid verbosity "four": the body must be a non-negative integer, e.g. 4` + "\n"},
		{http.MethodPut, "-1", http.StatusBadRequest, `invalid verbosity "-1"`},
		{http.MethodPut, "", http.StatusBadRequest, `invalid verbosity ""`},
		{http.MethodPut, "2.5", http.StatusBadRequest, `invalid verbosity "2.5"`},
		{http.MethodPut, "2147483648", http.StatusBadRequest, `invalid verbosity "2147483648"`}, // beyond klog's int32
		{http.MethodGet, "", http.StatusNotAcceptable, "unsupported http method\n"},
		{http.MethodPost, "4", http.StatusNotAcceptable, "unsupported http method\n"},
	} {
		code, body, _ := request(h, tc.method, tc.body)
		require.Equal(t, tc.code, code, "%s %q", tc.method, tc.body)
		require.Contains(t, body, tc.want, "%s %q", tc.method, tc.body)
		require.True(t, writes(log, &out, 2), "%s %q leaves V(2) written", tc.method, tc.body)
		require.False(t, writes(log, &out, 3), "%s %q does not raise the verbosity", tc.method, tc.body)
	}
	code, body, _ := request(h, http.MethodPut, "3\n") // echo 3 | curl --data-binary @-
	require.Equal(t, http.StatusOK, code, body)
	require.True(t, writes(log, &out, 3))
	out.Reset()
	_, _, _ = request(h, http.MethodPut, "7")
	require.Contains(t, out.String(), `"msg":"Log verbosity changed","v":7,"previous":3`, "each change is logged")
}

// The verbosity the logger starts with (--zap-log-level) is klog's too, and the handler
// changes the level the flag set, not a copy of it.
func TestSetupLogger_KlogStartsAtTheZapVerbosity(t *testing.T) {
	klogAtZero(t)
	for _, tc := range []struct {
		args  []string
		want  int
		quiet bool // not even V(0): error and panic levels
	}{
		{nil, 0, false},
		{[]string{"--zap-log-level=info"}, 0, false},
		{[]string{"--zap-log-level=error"}, 0, true},
		{[]string{"--zap-log-level=debug"}, 1, false},
		{[]string{"--zap-devel"}, 1, false},
		{[]string{"--zap-log-level=5"}, 5, false},
	} {
		var out bytes.Buffer
		o, log := loggerWritingTo(t, &out, tc.args...)
		require.Equal(t, !tc.quiet, writes(log, &out, tc.want), "%v", tc.args)
		require.False(t, writes(log, &out, tc.want+1), "%v", tc.args)
		require.True(t, klog.V(klog.Level(tc.want)).Enabled(), "%v: klog at %d", tc.args, tc.want)
		require.False(t, klog.V(klog.Level(tc.want+1)).Enabled(), "%v: klog at %d", tc.args, tc.want)

		code, body, _ := request(verbosityHandler(o.atomicLevel(), log), http.MethodPut, "6")
		require.Equal(t, http.StatusOK, code, body)
		require.True(t, writes(log, &out, 6), "%v: PUT 6 reaches the logger built from the flags", tc.args)
	}
}

// Only the authenticated endpoint may change the verbosity, as upstream: a plain HTTP endpoint
// serves no handler for it, even with --profiling.
func TestOptions_VerbosityHandlerOnlyBehindAuthentication(t *testing.T) {
	o, err := parse(t, "--diagnostics-address=127.0.0.1:9000", "--insecure-diagnostics", "--profiling")
	require.NoError(t, err)
	require.NotContains(t, o.metricsOptions().ExtraHandlers, verbosityPath)
	o, err = parse(t, "--metrics-bind-address=127.0.0.1:9001", "--profiling")
	require.NoError(t, err)
	require.NotContains(t, o.metricsOptions().ExtraHandlers, verbosityPath)
}
