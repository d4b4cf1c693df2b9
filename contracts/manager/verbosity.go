package manager

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-logr/logr"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"k8s.io/klog/v2"
)

// A manager has one log verbosity, as a Kubernetes component has klog's -v: V(n) messages are
// written when n is at most the verbosity. --zap-log-level sets it at start (a number N, or
// debug for 1; info, the default, is 0) and PUT /debug/flags/v changes it at runtime, as
// upstream's handler does. The managers log through controller-runtime's zap logger, whose
// level is kept in an AtomicLevel so it can change under a running logger. client-go logs
// through klog, which is not routed through zap (its lines keep klog's text format on
// stderr); its -v is kept at the same number so client-go's detail follows the same knob.

// verbosityPath is upstream's path for the handler (k8s.io/apiserver's /debug/flags/<flag>).
const verbosityPath = "/debug/flags/v"

// maxZapVerbosity is the deepest V level zap can tell apart: its levels are int8 and zapr
// maps every V(n) above 127 to V(127).
const maxZapVerbosity = 127

// atomicLevel returns the level the logger is built with, as one that can change under it:
// the --zap-log-level flag's value when given (the flag stores an AtomicLevel), else the level
// controller-runtime's defaulting would choose (debug with --zap-devel, info otherwise).
// It is stored in o.Zap so the logger and the handler share it, whichever is built first.
func (o *Options) atomicLevel() zap.AtomicLevel {
	switch l := o.Zap.Level.(type) {
	case zap.AtomicLevel:
		return l
	case *zap.AtomicLevel:
		if l != nil {
			return *l
		}
		o.Zap.Level = nil // a typed nil: no level was chosen
	}
	lvl := zapcore.InfoLevel
	if o.Zap.Development {
		lvl = zapcore.DebugLevel
	}
	if o.Zap.Level != nil {
		lvl = zapcore.LevelOf(o.Zap.Level)
	}
	a := zap.NewAtomicLevelAt(lvl)
	o.Zap.Level = a
	return a
}

// verbosityOf is the V level a zap level lets through; error and panic levels let none.
func verbosityOf(l zapcore.Level) int {
	return max(0, -int(l))
}

// setVerbosity changes zap's level and klog's -v together.
func setVerbosity(level zap.AtomicLevel, v int) error {
	if err := setKlogVerbosity(v); err != nil {
		return err
	}
	level.SetLevel(zapcore.Level(-min(v, maxZapVerbosity)))
	return nil
}

// setKlogVerbosity sets klog's global -v (klog.Level.Set changes the process's verbosity).
func setKlogVerbosity(v int) error {
	var kl klog.Level
	if err := kl.Set(strconv.Itoa(v)); err != nil {
		return fmt.Errorf("setting klog's verbosity to %d: %w", v, err)
	}
	return nil
}

// verbosityHandler serves PUT /debug/flags/v as upstream's routes.StringFlagPutHandler(
// logs.GlogSetter) does, so scripts written for upstream's managers work here: the body is the
// verbosity (a non-negative integer, klog's range); success answers 200 with upstream's text,
// a bad value 400 with a message saying what is wanted, any other method 406 (upstream's code,
// not 405). Every change is logged at V(0) with the previous value, so the log shows when its
// detail changed.
func verbosityHandler(level zap.AtomicLevel, log logr.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPut {
			writePlainText(w, http.StatusNotAcceptable, "unsupported http method")
			return
		}
		body, err := io.ReadAll(io.LimitReader(req.Body, 64))
		if err != nil {
			writePlainText(w, http.StatusBadRequest, "error reading request body: "+err.Error())
			return
		}
		// curl -d strips a file's newlines but `echo 4 |` keeps one: accept both.
		value := strings.TrimSpace(string(body))
		v, err := strconv.ParseInt(value, 10, 32)
		if err != nil || v < 0 {
			writePlainText(w, http.StatusBadRequest,
				fmt.Sprintf("invalid verbosity %q: the body must be a non-negative integer, e.g. 4", value))
			return
		}
		previous := verbosityOf(level.Level())
		if err := setVerbosity(level, int(v)); err != nil {
			writePlainText(w, http.StatusBadRequest, err.Error())
			return
		}
		log.Info("Log verbosity changed", "v", v, "previous", previous)
		writePlainText(w, http.StatusOK, fmt.Sprintf("successfully set klog.logging.verbosity to %d", v))
	})
}

// writePlainText answers as upstream's flag handlers do: plain text, one line.
func writePlainText(w http.ResponseWriter, code int, text string) {
	w.Header().Set("Content-Type", "text/plain")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	fmt.Fprintln(w, text)
}
