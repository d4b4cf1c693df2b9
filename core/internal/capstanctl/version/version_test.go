package version

import (
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFromBuildInfo(t *testing.T) {
	vcs := []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "0123456789abcdef"},
		{Key: "vcs.time", Value: "2026-01-02T03:04:05Z"},
		{Key: "vcs.modified", Value: "true"},
	}
	tests := []struct {
		name     string
		bi       *debug.BuildInfo
		override string
		want     Info
	}{
		{
			name:     "LdflagsOverrideWinsOverModuleVersion",
			bi:       &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.0.9"}, Settings: vcs},
			override: "v1.2.3",
			want: Info{Version: "v1.2.3", GitCommit: "0123456789abcdef", GitTreeState: "dirty",
				BuildDate: "2026-01-02T03:04:05Z", GoVersion: "go1.26.0", Platform: "linux/amd64"},
		},
		{
			name: "ModuleVersionWithoutOverride",
			bi:   &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.0.9"}},
			want: Info{Version: "v0.0.9", GitCommit: "unknown", GoVersion: "go1.26.0", Platform: "linux/amd64"},
		},
		{
			name: "DevelBuildWithoutVCSIsDev",
			bi:   &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}},
			want: Info{Version: "dev", GitCommit: "unknown", GoVersion: "go1.26.0", Platform: "linux/amd64"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FromBuildInfo(tt.bi, tt.override, "linux/amd64")
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("FromBuildInfo mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func TestFromBuildInfo_NilBuildInfoStillReportsVersion(t *testing.T) {
	got := FromBuildInfo(nil, "", "darwin/arm64")
	if got.Version != "dev" || got.GitCommit != "unknown" || got.Platform != "darwin/arm64" || got.GoVersion == "" {
		t.Errorf("unexpected Info without build info: %+v", got)
	}
}

func TestGet_LinkTimeOverridesWin(t *testing.T) {
	oldV, oldC := Version, GitCommit
	t.Cleanup(func() { Version, GitCommit = oldV, oldC })
	Version, GitCommit = "v7.7.7", "feedface"
	got := Get()
	if got.Version != "v7.7.7" || got.GitCommit != "feedface" {
		t.Errorf("link-time values not used: %+v", got)
	}
}
