//go:build unix

package testenv

import (
	"fmt"
	"net"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// GitDaemon serves the bare repositories under base with real git's
// daemon on a loopback port, pushes allowed, for the rest of the test,
// and returns its git:// URL prefix.
func GitDaemon(t testing.TB, base string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("git", "daemon", "--reuseaddr", "--export-all", "--enable=receive-pack",
		"--base-path="+base, "--listen=127.0.0.1", fmt.Sprintf("--port=%d", port), base)
	// git runs git-daemon as its child: the two get a process group of
	// their own, and the cleanup kills the group, or the daemon outlives
	// the test, listening, its parent 1.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for range 100 {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "git://" + addr + "/"
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("git daemon did not start")
	return ""
}
