package bench

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// process is a child process the benchmark started and must stop.
type process struct {
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
	waitErr error
}

// startProcess runs bin with its output in logPath. The child is killed when the
// benchmark dies, so no manager outlives an interrupted run.
func startProcess(bin string, args []string, logPath string) (*process, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Pdeathsig follows the thread that forked the child: keep this goroutine on
	// one thread while starting, so the signal is tied to a thread that lives on.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	runtime.LockOSThread()
	err = cmd.Start()
	runtime.UnlockOSThread()
	if err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	p := &process{cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

func (p *process) pid() int { return p.cmd.Process.Pid }

// exited reports whether the process has ended, with its exit error.
func (p *process) exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.waitErr
	default:
		return false, nil
	}
}

// stop sends SIGTERM, then SIGKILL after 30 s. An exit caused by our signal is
// not an error.
func (p *process) stop() error {
	if done, _ := p.exited(); done {
		return nil
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return nil
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("%s did not exit within 30s of SIGTERM and was killed", p.cmd.Path)
	}
}

// usage is what the kernel accounts for a process.
type usage struct {
	CPUSeconds float64 // user + system time
	RSSBytes   int64   // resident set now (VmRSS)
	PeakBytes  int64   // highest resident set so far (VmHWM)
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat times: 100 on every Linux
// architecture Go supports (sysconf would need cgo).
const clockTicks = 100

func readUsage(pid int) (usage, error) {
	var u usage
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return u, err
	}
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return u, fmt.Errorf("/proc/%d/stat has %d fields after the command", pid, len(fields))
	}
	// utime and stime are fields 14 and 15; the fields after ")" start at field 3.
	utime, err1 := strconv.ParseFloat(fields[11], 64)
	stime, err2 := strconv.ParseFloat(fields[12], 64)
	if err := errors.Join(err1, err2); err != nil {
		return u, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	u.CPUSeconds = (utime + stime) / clockTicks
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return u, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		key, value, ok := strings.Cut(line, ":")
		if !ok || (key != "VmRSS" && key != "VmHWM") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			return u, fmt.Errorf("/proc/%d/status %s: %w", pid, key, err)
		}
		if key == "VmRSS" {
			u.RSSBytes = kb * 1024
		} else {
			u.PeakBytes = kb * 1024
		}
	}
	return u, nil
}
