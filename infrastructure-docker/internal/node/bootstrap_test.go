package node

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"capstan.dev/infrastructure-docker/internal/cloudinit"
)

func TestRunnerScript_WritesTheStagedFilesQuotesArgumentsAndStopsAtTheFirstFailure(t *testing.T) {
	got := runnerScript("/a", bootstrapPlan{
		files:    []*cloudinit.WriteFile{{Path: "/etc/it's", Permissions: fs.ModeSetuid | 0o755, Owner: "root:root", Line: 3}, {Path: "/x", Append: true, Permissions: 0o644, Line: 7}},
		commands: [][]string{{"echo", "it's"}, {"/bin/sh", "-c", "a && b"}},
	})
	require.Contains(t, got, `put 3 4755 'root:root' 0 '/a/files/0' '/etc/it'\''s'`+"\n")
	require.Contains(t, got, `put 7 644 '' 1 '/a/files/1' '/x'`+"\n")
	require.Contains(t, got, `step 1 'echo' 'it'\''s'`+"\n")
	require.Contains(t, got, `step 2 '/bin/sh' '-c' 'a && b'`+"\n")
	require.Less(t, strings.Index(got, "put 7"), strings.Index(got, "step 1"), "files are written before the commands run")
	require.True(t, strings.HasSuffix(got, `record "0 0"`+"\n"), got)
}

func TestRunnerScript_RunsBootCommandsBeforeTheFilesAndNumbersAllCommandsInOrder(t *testing.T) {
	got := runnerScript("/a", bootstrapPlan{
		boot:     [][]string{{"modprobe", "br_netfilter"}},
		files:    []*cloudinit.WriteFile{{Path: "/etc/motd", Permissions: 0o644, Line: 9}},
		commands: [][]string{{"useradd", "ops"}, {"kubeadm", "join"}},
	})
	boot, put := strings.Index(got, `step 1 'modprobe' 'br_netfilter'`), strings.Index(got, "put 9 ")
	users, kubeadm := strings.Index(got, `step 2 'useradd' 'ops'`), strings.Index(got, `step 3 'kubeadm' 'join'`)
	require.True(t, boot >= 0 && put >= 0 && users >= 0 && kubeadm >= 0, got)
	require.Less(t, boot, put, "bootcmd runs before the files are written")
	require.Less(t, put, users)
	require.Less(t, users, kubeadm)
}

func TestPlanBootstrap_SplitsBootCommandsFromTheOthers(t *testing.T) {
	plan, err := planBootstrap(t.Context(), []byte("#cloud-config\nbootcmd: [echo boot]\nruncmd: [echo run]\nusers: [ops]\nmounts: [[a, /b]]\n"), "", "node-0")
	require.NoError(t, err)
	require.Equal(t, [][]string{{"/bin/sh", "-c", "echo boot"}}, plan.boot)
	require.Equal(t, [][]string{
		{"/bin/sh", "-c", `u=$1; shift; id -u "$u" >/dev/null 2>&1 || useradd "$@" "$u"`, "sh", "ops", "-m"},
		{"usermod", "-L", "ops"},
		{"/bin/sh", "-c", "echo run"},
	}, plan.commands)
	require.False(t, plan.kubeadm)
}

// upstreamJoinData is upstream's kubeadm bootstrap data for a worker, trimmed: the Jinja header,
// and the node's name in the kubeadm configuration and a command as cloud-init variables.
const upstreamJoinData = `## template: jinja
#cloud-config

write_files:
-   path: /run/kubeadm/kubeadm-join-config.yaml
    owner: root:root
    permissions: '0640'
    content: |
      ---
      apiVersion: kubeadm.k8s.io/v1beta4
      kind: JoinConfiguration
      nodeRegistration:
        name: '{{ ds.meta_data.hostname }}'
runcmd:
  - "echo {{ v1.local_hostname }} > /tmp/name"
  - kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml  && echo success > /run/cluster-api/bootstrap-success.complete
`

func TestPlanBootstrap_RendersUpstreamJinjaDataWithTheContainerName(t *testing.T) {
	plan, err := planBootstrap(t.Context(), []byte(upstreamJoinData), "", "wl-md-0-abcde")
	require.NoError(t, err)
	require.True(t, plan.kubeadm)
	require.Len(t, plan.files, 1)
	content := string(plan.files[0].Content)
	require.Contains(t, content, "name: 'wl-md-0-abcde'", "the node registers under its container's name")
	require.NotContains(t, content, "{{")
	require.Equal(t, []string{"/bin/sh", "-c", "echo wl-md-0-abcde > /tmp/name"}, plan.commands[0])
}

func TestPlanBootstrap_AnUnknownJinjaVariableIsRefusedNamingIt(t *testing.T) {
	data := strings.Replace(upstreamJoinData, "{{ v1.local_hostname }}", "{{ ds.meta_data.local_ipv4 }}", 1)
	_, err := planBootstrap(t.Context(), []byte(data), "", "wl-md-0-abcde")
	require.ErrorContains(t, err, "the bootstrap data cannot be executed: cloud-config line 15: the Jinja variable \"ds.meta_data.local_ipv4\" has no value in a Docker node container")
}

func TestPlanBootstrap_RunsUpstreamIgnitionDataAndAmendsItsKubeadmConfig(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "ignition", "testdata", "upstream-kubeadm-init.ign"))
	require.NoError(t, err)
	plan, err := planBootstrap(t.Context(), data, "ignition", "wl-cp-0")
	require.NoError(t, err)
	require.True(t, plan.kubeadm, "the endpoint route is installed for Ignition's kubeadm too")
	var kubeadmYML string
	for _, f := range plan.files {
		if f.Path == "/etc/kubeadm.yml" {
			kubeadmYML = string(f.Content)
		}
	}
	require.Contains(t, kubeadmYML, "resolv-conf", "the node container's kubelet flags are added")
	require.Contains(t, kubeadmYML, "SystemVerification", "and its ignored preflight errors")
	require.Equal(t, []string{"systemctl", "enable", "--now", "kubeadm.service"}, plan.commands[len(plan.commands)-1])

	_, err = planBootstrap(t.Context(), data, "cloud-config", "wl-cp-0")
	require.ErrorContains(t, err, "does not start with \"#cloud-config\"", "the Secret's format decides the reader")
}

func TestPlanBootstrap_AnUnknownFormatIsRefusedNamingIt(t *testing.T) {
	_, err := planBootstrap(t.Context(), []byte("#cloud-config\n"), "mime-multipart", "n")
	require.ErrorContains(t, err, `the bootstrap data cannot be executed: the bootstrap data Secret's format "mime-multipart" is neither "cloud-config" nor "ignition"`)
}

// runStateScript runs bootstrapStateScript with the host's sh on a bootstrap directory of the
// test's own: the script is plain sh, and what it must survive is files that are not there.
func runStateScript(t *testing.T, dir string) bootstrapState {
	t.Helper()
	out, err := exec.Command("/bin/sh", "-c", bootstrapStateScript, "sh", filepath.Join(dir, "no-sentinel"), filepath.Join(dir, "bootstrap")).Output()
	require.NoError(t, err, "the state script must exit 0 whatever it finds; stdout: %s", out)
	return parseBootstrapState(string(out))
}

func TestBootstrapState_ALockWithoutRunOrLogIsReadNotAnError(t *testing.T) {
	dir := t.TempDir()
	require.False(t, runStateScript(t, dir).locked, "no bootstrap directory: a new node")

	bootstrap := filepath.Join(dir, "bootstrap")
	require.NoError(t, os.Mkdir(bootstrap, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bootstrap, "started"), []byte("1700000000\n"), 0o644))
	st := runStateScript(t, dir)
	require.True(t, st.locked)
	require.Equal(t, time.Unix(1700000000, 0), st.startedAt)
	require.False(t, st.ran, "a lock without a run claim")
	require.False(t, st.finished)
	require.Empty(t, st.output)

	require.NoError(t, os.Mkdir(filepath.Join(bootstrap, "run"), 0o755))
	require.False(t, runStateScript(t, dir).runnerGone, "a claimed run whose runner has no process ID yet is starting")
	require.NoError(t, os.WriteFile(filepath.Join(bootstrap, "pid"), []byte("999999999\n"), 0o644))
	require.True(t, runStateScript(t, dir).runnerGone, "a runner whose process is not there")
	require.NoError(t, os.WriteFile(filepath.Join(bootstrap, "log"), []byte("+ [1] kubeadm init\nline two\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(bootstrap, "exit"), []byte("neverstarted 0\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(bootstrap, "prepare-error"), []byte("exec failed\nsecond line"), 0o644))
	st = runStateScript(t, dir)
	require.True(t, st.ran)
	require.True(t, st.finished && st.timedOut && st.neverStarted)
	require.Equal(t, "exec failed second line", strings.TrimSpace(st.prepareError))
	require.Equal(t, "+ [1] kubeadm init\nline two\n", st.output)
}

// A run that ends while the state is read must not look like commands that never wrote the
// sentinel: the exit record is a FIFO here, so the read of it blocks until the test has
// marked success and written the record, exactly between the script's reads.
func TestBootstrapState_ARunEndingDuringTheReadIsReadAsSucceeded(t *testing.T) {
	dir := t.TempDir()
	bootstrap := filepath.Join(dir, "bootstrap")
	require.NoError(t, os.MkdirAll(filepath.Join(bootstrap, "run"), 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(bootstrap, "exit"), 0o644))
	type result struct {
		st  bootstrapState
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := exec.Command("/bin/sh", "-c", bootstrapStateScript, "sh", filepath.Join(dir, "no-sentinel"), bootstrap).Output()
		done <- result{parseBootstrapState(string(out)), err}
	}()
	// Opening the FIFO for writing returns once the script opened it for reading.
	exit, err := os.OpenFile(filepath.Join(bootstrap, "exit"), os.O_WRONLY, 0)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(bootstrap, "succeeded"), nil, 0o644))
	_, err = exit.WriteString("0 0\n")
	require.NoError(t, err)
	require.NoError(t, exit.Close())
	var r result
	select {
	case r = <-done:
	case <-time.After(time.Minute):
		t.Fatal("the state script did not finish within a minute")
	}
	require.NoError(t, r.err)
	require.True(t, r.st.finished, "the exit record was read")
	require.Zero(t, r.st.exitCode)
	require.True(t, r.st.succeeded, "a success record read by the script comes with the success mark written before it")
}

// A node whose systemd does not answer yet (systemctl prints nothing early in the boot) is
// booting: read as ready, kubeadm ran before containerd was up (chaos seed 1796339497753572551).
func TestBootstrapState_ASystemdThatSaysNothingIsStillBooting(t *testing.T) {
	require.Equal(t, "unreachable", parseBootstrapState("\n0\nnew\n").booting)
	require.Equal(t, "unreachable", parseBootstrapState("").booting)
	require.Equal(t, "starting", parseBootstrapState("starting\n0\nnew\n").booting)
	require.Empty(t, parseBootstrapState("ready\n0\nnew\n").booting)

	// The script itself, with a systemctl that fails without a word, as it does before
	// systemd's bus is up; run where /proc/1/comm is not systemd it says "entrypoint", so the
	// check is of the systemctl branch alone.
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "systemctl"), []byte("#!/bin/sh\necho 'Failed to connect to bus' >&2\nexit 1\n"), 0o755))
	branch := `b=$(systemctl is-system-running 2>/dev/null); case "$b" in running|degraded) b=ready;; "") b=unreachable;; esac; echo "$b"`
	require.Contains(t, bootstrapStateScript, branch[:strings.Index(branch, "; echo")], "the test runs the script's own systemctl branch")
	cmd := exec.Command("/bin/sh", "-c", branch)
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	out, err := cmd.Output()
	require.NoError(t, err)
	require.Equal(t, "unreachable", parseBootstrapState(string(out)+"0\nnew\n").booting)
}

func TestParseBootstrapState_MissingLinesReadAsMissingFiles(t *testing.T) {
	for name, out := range map[string]string{
		"lock without start time": "ready\n0\nlocked\n\nnotrun\n\n\n",
		"truncated output":        "ready\n0\nlocked",
	} {
		t.Run(name, func(t *testing.T) {
			st := parseBootstrapState(out)
			require.True(t, st.locked)
			require.True(t, st.startedAt.IsZero())
			require.False(t, st.ran || st.finished)
			require.True(t, timedOut(st, time.Hour), "a lock without a start time counts as timed out")
		})
	}
	st := parseBootstrapState("running\n1\nlocked\n1700000000\nran\n2 1\n\nalive\nboom\n")
	require.Equal(t, bootstrapState{booting: "running", succeeded: true, locked: true, startedAt: time.Unix(1700000000, 0), ran: true,
		finished: true, exitCode: 2, command: 1, output: "boom\n"}, st)

	require.Equal(t, bootstrapState{runtime: "error"}, parseBootstrapState("ready\n0\nnew\nerror\n"), "before the lock: the CRI plugin's status")
	require.Equal(t, bootstrapState{}, parseBootstrapState("ready\n0\nnew\n"), "no ctr: unknown")
}
