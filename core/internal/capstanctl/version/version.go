// Package version says which capstanctl build is running: its release version
// (set at link time with -ldflags "-X capstan.dev/core/internal/capstanctl/version.Version=v0.1.0"),
// the Git commit (vcs.revision from the build info, or -X ...version.GitCommit), the Go
// version and the platform. It reads only the running binary, never a cluster.
package version

import (
	"runtime"
	"runtime/debug"
)

// Version is the release version, overridden at link time. Empty means a
// development build: Get then falls back to the main module's version.
var Version = ""

// GitCommit, when set at link time (-X ...version.GitCommit=$(git rev-parse HEAD)),
// wins over the vcs.revision the Go toolchain records; builds made with
// -buildvcs=false (or outside a checkout) record none.
var GitCommit = ""

// devVersion is reported when neither -ldflags nor the module version say anything.
const devVersion = "dev"

// Info describes a capstanctl build.
type Info struct {
	Version   string `json:"version"`
	GitCommit string `json:"gitCommit"`
	// GitTreeState is "dirty" when the build had uncommitted changes, "clean" when
	// it had none, and empty when the build did not record VCS information.
	GitTreeState string `json:"gitTreeState,omitempty"`
	// BuildDate is the commit time recorded by the Go toolchain (vcs.time).
	BuildDate string `json:"buildDate,omitempty"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// Get returns the running binary's Info.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	info := FromBuildInfo(bi, Version, runtime.GOOS+"/"+runtime.GOARCH)
	if GitCommit != "" {
		info.GitCommit = GitCommit
	}
	return info
}

// FromBuildInfo derives Info from build information. override (the -ldflags value)
// wins over the module version; bi may be nil when the binary carries none.
func FromBuildInfo(bi *debug.BuildInfo, override, platform string) Info {
	info := Info{Version: override, GitCommit: "unknown", GoVersion: runtime.Version(), Platform: platform}
	if bi == nil {
		if info.Version == "" {
			info.Version = devVersion
		}
		return info
	}
	if bi.GoVersion != "" {
		info.GoVersion = bi.GoVersion
	}
	if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		info.Version = bi.Main.Version
	}
	if info.Version == "" {
		info.Version = devVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.GitCommit = s.Value
		case "vcs.modified":
			info.GitTreeState = "clean"
			if s.Value == "true" {
				info.GitTreeState = "dirty"
			}
		case "vcs.time":
			info.BuildDate = s.Value
		}
	}
	return info
}
