package envtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// A test binary that panics (a failing require in a goroutine, a nil dereference)
// exits without running TestMain's teardown, and kube-apiserver and etcd run in
// their own process group, so they would outlive it. Each Environment therefore
// records its processes' directories under registryDir; the next Start on this
// machine kills the processes of records whose test binary is gone.

// registryDir holds one record per running Environment.
func registryDir() string { return filepath.Join(os.TempDir(), "capstan-envtest") }

type record struct {
	Owner int `json:"owner"`
	// OwnerStart is the owner's start time in clock ticks since boot, so a reused
	// pid is not mistaken for the owner.
	OwnerStart string `json:"ownerStart"`
	// Markers are directories that appear on the command lines of the processes.
	Markers []string `json:"markers"`
}

// markers are the directories on the command lines of this Environment's
// kube-apiserver and etcd.
func (e *Environment) markers() []string {
	var markers []string
	if d := e.testEnv.ControlPlane.GetAPIServer().CertDir; d != "" {
		markers = append(markers, d)
	}
	if e.testEnv.ControlPlane.Etcd != nil && e.testEnv.ControlPlane.Etcd.DataDir != "" {
		markers = append(markers, e.testEnv.ControlPlane.Etcd.DataDir)
	}
	return markers
}

// ProcessIDs returns the pids of this Environment's kube-apiserver and etcd by
// binary name, for a benchmark that accounts their CPU.
func (e *Environment) ProcessIDs() map[string]int {
	out := map[string]int{}
	for pid, name := range processesMentioning(e.markers()) {
		out[name] = pid
	}
	return out
}

func (e *Environment) register() error {
	markers := e.markers()
	if len(markers) == 0 {
		return nil
	}
	if err := os.MkdirAll(registryDir(), 0o755); err != nil {
		return err
	}
	data, _ := json.Marshal(record{Owner: os.Getpid(), OwnerStart: startTime(os.Getpid()), Markers: markers})
	e.recordPath = filepath.Join(registryDir(), strconv.Itoa(os.Getpid())+"-"+filepath.Base(markers[0])+".json")
	return os.WriteFile(e.recordPath, data, 0o644)
}

func (e *Environment) unregister() {
	if e.recordPath != "" {
		_ = os.Remove(e.recordPath)
	}
}

// reapOrphans kills control-plane processes whose test binary has exited, and
// returns how many it killed.
func reapOrphans() (int, error) {
	entries, err := os.ReadDir(registryDir())
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	killed := 0
	for _, entry := range entries {
		path := filepath.Join(registryDir(), entry.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var rec record
		if json.Unmarshal(data, &rec) != nil {
			_ = os.Remove(path)
			continue
		}
		if rec.OwnerStart != "" && startTime(rec.Owner) == rec.OwnerStart {
			continue // its test binary still runs
		}
		for pid := range processesMentioning(rec.Markers) {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				killed++
			}
		}
		_ = os.Remove(path)
	}
	return killed, nil
}

// processesMentioning finds the kube-apiserver and etcd processes whose command line
// contains one of the markers: their binary's name by pid.
func processesMentioning(markers []string) map[int]string {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	out := map[int]string{}
	for _, p := range procs {
		data, err := os.ReadFile(p)
		if err != nil || len(data) == 0 {
			continue
		}
		args := strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
		base := filepath.Base(args[0])
		if base != "kube-apiserver" && base != "etcd" {
			continue
		}
		cmdline := strings.Join(args, " ")
		for _, m := range markers {
			if strings.Contains(cmdline, m) {
				pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
				out[pid] = base
				break
			}
		}
	}
	return out
}

// startTime is field 22 of /proc/<pid>/stat, or "" when pid does not exist.
func startTime(pid int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 20 {
		return ""
	}
	return fields[19] // field 22 overall: fields after ")" start at field 3
}
