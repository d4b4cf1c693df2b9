package bench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Where the time of a scenario goes: the CPU each process of the run used while it
// ran, and the whole machine's, so every report names what was busy (the API
// server, etcd, the core, the scale provider) and shows whether anything outside the
// run took CPU from it. With --profiling the CPU profiles say what inside them.

// cpuRole is a process of the run whose CPU time is accounted.
type cpuRole struct {
	Name string
	PID  int
}

// cpuSample is the CPU seconds of the run's processes (by role name, Roles giving
// their order) and the machine's busy and total CPU seconds (all CPUs) at one instant.
type cpuSample struct {
	At          time.Time
	Roles       []string
	Processes   map[string]float64
	Busy, Total float64
}

// cpuRoles are the processes running now: the plane's, the core's and this one
// (the scale provider and the harness share it).
func (r *run) cpuRoles() []cpuRole {
	pids := r.plane.env.ProcessIDs()
	roles := []cpuRole{{"kube-apiserver", pids["kube-apiserver"]}, {"etcd", pids["etcd"]}}
	if r.core != nil {
		roles = append(roles, cpuRole{"core manager", r.core.proc.pid()})
	}
	roles = append(roles, cpuRole{"scale provider and harness (one process)", os.Getpid()})
	if r.plane.gc != nil {
		roles = append(roles, cpuRole{"kube-controller-manager (garbage collector)", r.plane.gc.pid()})
	}
	return roles
}

// sampleCPU reads the CPU time of every role and of the machine; a role whose
// process cannot be read is left out (the report then shows no figure for it).
func (r *run) sampleCPU() cpuSample {
	s := cpuSample{At: time.Now(), Processes: map[string]float64{}}
	for _, role := range r.cpuRoles() {
		if role.PID == 0 {
			continue
		}
		if u, err := readUsage(role.PID); err == nil {
			s.Roles = append(s.Roles, role.Name)
			s.Processes[role.Name] = u.CPUSeconds
		}
	}
	s.Busy, s.Total, _ = machineCPU()
	return s
}

// reportCPU adds, for the scenario between two samples, the cores each process kept
// busy on average, the machine's busy share, and what processes outside the run used.
func (r *run) reportCPU(scenario string, from, to cpuSample) {
	wall := to.At.Sub(from.At).Seconds()
	if wall <= 0 {
		return
	}
	ours := 0.0
	for _, name := range to.Roles {
		before, ok := from.Processes[name]
		if !ok {
			continue
		}
		after := to.Processes[name]
		ours += after - before
		r.report.add(Figure{Scenario: scenario, Name: "CPU: " + name, Value: (after - before) / wall, Unit: "cores"})
	}
	total := to.Total - from.Total
	if total <= 0 {
		return
	}
	busy := to.Busy - from.Busy
	cpus := total / wall
	r.report.add(Figure{Scenario: scenario, Name: fmt.Sprintf("CPU: the machine's %.0f CPUs busy", cpus),
		Value: 100 * busy / total, Unit: "%"})
	r.report.add(Figure{Scenario: scenario, Name: "CPU: processes outside the run",
		Value: max(busy-ours, 0) / wall, Unit: "cores"})
}

// machineCPU reads the busy and total CPU seconds of all CPUs since boot from
// /proc/stat: idle and iowait are not busy; guest time is already in user time.
func machineCPU() (busy, total float64, err error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	fields := strings.Fields(line)
	if len(fields) < 9 || fields[0] != "cpu" {
		return 0, 0, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	var idle float64
	for i, f := range fields[1:9] { // user nice system idle iowait irq softirq steal
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc/stat: %w", err)
		}
		total += v
		if i == 3 || i == 4 {
			idle += v
		}
	}
	return (total - idle) / clockTicks, total / clockTicks, nil
}

// probe is what a scenario samples at its start and end: the CPU of the run's
// processes and the core's controllers' work.
type probe struct {
	cpu  cpuSample
	work coreWork
}

func (r *run) probe(ctx context.Context) probe {
	return probe{cpu: r.sampleCPU(), work: r.sampleWork(ctx)}
}

// reportProbes adds where the scenario's time went between two probes.
func (r *run) reportProbes(scenario string, from, to probe) {
	r.reportCPU(scenario, from.cpu, to.cpu)
	if wall := to.cpu.At.Sub(from.cpu.At).Seconds(); wall > 0 {
		r.reportWork(scenario, from.work, to.work, wall)
	}
}
