package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version names a release build: -ldflags "-X main.version=v1.2.3". Left
// empty, the main module's version is used: the tag when built with
// `go install cloudplane/cmd/cloudplane@v1.2.3`, a pseudo-version from
// the checkout's commit when built in one.
var version = ""

// buildInfo says which code is running, for `cloudplane version`, the
// startup log line, the webhooks' User-Agent and cloudplane_build_info.
type buildInfo struct {
	Version   string
	Revision  string // the VCS commit; "" when built outside a checkout
	Modified  bool   // the checkout had uncommitted changes
	GoVersion string
}

func readBuild() buildInfo {
	b := buildInfo{Version: "dev", GoVersion: runtime.Version()}
	if info, ok := debug.ReadBuildInfo(); ok {
		if v := info.Main.Version; v != "" && v != "(devel)" {
			b.Version = v
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Revision = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	if version != "" {
		b.Version = version
	}
	return b
}

// commit is the revision with -dirty when the tree had changes, or
// "unknown".
func (b buildInfo) commit() string {
	c := b.Revision
	if c == "" {
		c = "unknown"
	}
	if b.Modified {
		c += "-dirty"
	}
	return c
}

func (b buildInfo) String() string {
	return fmt.Sprintf("cloudplane %s (commit %s, %s)", b.Version, b.commit(), b.GoVersion)
}

// versionCommand prints the build on one line.
func versionCommand(_ context.Context, args []string, stdout io.Writer) error {
	if err := parseFlags(newFlags("version"), args); err != nil {
		return err
	}
	_, err := fmt.Fprintln(stdout, readBuild())
	return err
}
