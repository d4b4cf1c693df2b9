package mgmt

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// pidFile records a started process and the executable it runs, so a pid recycled
// by an unrelated process is never signalled.
type pidFile struct {
	PID int    `json:"pid"`
	Exe string `json:"exe"`
}

// startDetached starts bin with args in a new session, writing its output to
// logPath and its pid to pidPath; the process outlives this one.
func startDetached(bin string, args []string, logPath, pidPath string) (int, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return 0, fmt.Errorf("opening log %s: %w", logPath, err)
	}
	defer logFile.Close()
	fmt.Fprintf(logFile, "\n==== %s starting %s %s\n", time.Now().UTC().Format(time.RFC3339), bin, strings.Join(args, " "))
	cmd := exec.Command(bin, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("starting %s: %w", filepath.Base(bin), err)
	}
	pid := cmd.Process.Pid
	data, _ := json.Marshal(pidFile{PID: pid, Exe: resolvedPath(bin)})
	if err := os.WriteFile(pidPath, data, 0o644); err != nil {
		_ = cmd.Process.Kill()
		return 0, fmt.Errorf("writing %s: %w", pidPath, err)
	}
	// Reap the child in the background while this process lives, so a stopped
	// child does not linger as a zombie that still answers kill(pid, 0).
	go func() { _ = cmd.Wait() }()
	return pid, nil
}

// runningPID returns the pid recorded in pidPath when that process is alive and
// still runs the recorded executable; otherwise 0.
func runningPID(pidPath string) int {
	data, err := os.ReadFile(pidPath)
	if err != nil {
		return 0
	}
	var pf pidFile
	if json.Unmarshal(data, &pf) != nil || pf.PID <= 0 {
		return 0
	}
	if !alive(pf.PID) {
		return 0
	}
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pf.PID))
	if err != nil || filepath.Clean(strings.TrimSuffix(exe, " (deleted)")) != resolvedPath(pf.Exe) {
		return 0
	}
	return pf.PID
}

// resolvedPath is path with its symbolic links resolved, as the kernel reports a process's
// executable (a cache directory reached through a link would otherwise never match), or path
// cleaned when it cannot be resolved (e.g. the binary was replaced since).
func resolvedPath(path string) string {
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		return resolved
	}
	return filepath.Clean(path)
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state is the first field after the parenthesised command name.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

// stopProcess sends SIGTERM to the recorded process, waits up to grace for it to
// exit, then SIGKILLs it; the pid file is removed either way.
func stopProcess(pidPath string, grace time.Duration) error {
	defer os.Remove(pidPath)
	pid := runningPID(pidPath)
	if pid == 0 {
		return nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signalling pid %d: %w", pid, err)
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if !alive(pid) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("killing pid %d: %w", pid, err)
	}
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if !alive(pid) {
			return nil
		}
	}
	return fmt.Errorf("pid %d (%s) did not exit after SIGKILL", pid, filepath.Base(pidPath))
}
