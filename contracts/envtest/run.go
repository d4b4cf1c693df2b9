package envtest

import (
	"flag"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// stopMargin is how long before the `go test -timeout` deadline the watchdog stops
// the control plane. The timeout panic kills the binary without running deferred
// calls, and kube-apiserver/etcd run in their own process group, so without the
// watchdog they would outlive the test binary.
const stopMargin = 20 * time.Second

// Run is the body of a package's TestMain: it starts an Environment, stores it in
// *env, runs the tests, stops the environment and returns the exit code:
//
//	var env *envtest.Environment
//	func TestMain(m *testing.M) { os.Exit(envtest.Run(m, envtest.Options{}, &env)) }
func Run(m *testing.M, opts Options, env **Environment) int {
	flag.Parse() // so -test.timeout is known before m.Run parses flags again
	if opts.Logger != nil {
		ctrllog.SetLogger(*opts.Logger)
	} else {
		ctrllog.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.UseFlagOptions(&zap.Options{
			Development: true, Level: zapcore.InfoLevel,
		})))
	}
	e, err := Start(opts)
	if err != nil {
		fail("%v", err)
		return 1
	}
	*env = e

	defer stopOnSignal(e)()
	if watchdog := startWatchdog(e); watchdog != nil {
		defer watchdog.Stop()
	}

	code := m.Run()
	if err := e.Stop(); err != nil {
		fail("stopping the control plane: %v", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// startWatchdog stops the control plane shortly before the test binary's deadline.
func startWatchdog(e *Environment) *time.Timer {
	f := flag.Lookup("test.timeout")
	if f == nil {
		return nil
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return nil
	}
	timeout, _ := g.Get().(time.Duration)
	if timeout <= 0 {
		return nil
	}
	after := timeout - stopMargin
	if after < timeout/2 {
		after = timeout / 2
	}
	return time.AfterFunc(after, func() {
		fail("the test binary's -timeout of %s is about to expire: stopping kube-apiserver and etcd so they are not orphaned", timeout)
		_ = e.Stop()
	})
}

// stopOnSignal stops the control plane and exits when the binary is interrupted or
// terminated; the returned func undoes the signal registration.
func stopOnSignal(e *Environment) func() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			fail("received %s: stopping kube-apiserver and etcd", sig)
			_ = e.Stop()
			os.Exit(130)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}
