package envtest

import (
	"os"
	"os/exec"
)

// StaticBuild is the command that builds pkg into out as make managers, Tilt and the manager
// images build every binary (static, -trimpath): tests that build a manager share their build
// cache instead of compiling the dependencies once more.
func StaticBuild(out, pkg string) *exec.Cmd {
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	return cmd
}
