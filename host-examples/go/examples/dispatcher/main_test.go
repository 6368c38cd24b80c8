package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runCommand runs this package's binary as the dispatcher (TestMain in
// drain_test.go) and returns its stdout, stderr and exit code.
func runCommand(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"}, args...)...)
	cmd.Env = append(append(os.Environ(), "DISPATCHER_TEST_AS_MAIN=1"), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("%v: %v", args, err)
	}
	return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
}

func TestHelpAndVersionPrintOnStdoutAndExit0WithoutLoadingTheArtifact(t *testing.T) {
	missing := "RETRY_POLICY_ARTIFACT=" + filepath.Join(t.TempDir(), "missing.wasm") // loading it would fail
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--help"}, "-allow-private-targets"},
		{[]string{"-help"}, "-watch-artifact-ms"},
		{[]string{"--version"}, "webhook:retry-policy@"},
		{[]string{"replay", "--help"}, "-store"},
	} {
		stdout, stderr, code := runCommand(t, []string{missing}, c.args...)
		if code != 0 || !strings.Contains(stdout, c.want) || stderr != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 0, %q on stdout, nothing on stderr", c.args, code, stdout, stderr, c.want)
		}
	}
}

func TestABadFlagAndAnUnreadableArtifactOrPolicyExit2OnStderr(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--nope"},
		{"-events"},
		{"-artifact", filepath.Join(dir, "missing.wasm")},
		{"-policy", filepath.Join(dir, "missing.json")},
		{"replay", "--nope"},
	} {
		stdout, stderr, code := runCommand(t, nil, args...)
		if code != 2 || stdout != "" || stderr == "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 with the reason on stderr", args, code, stdout, stderr)
		}
	}
}
