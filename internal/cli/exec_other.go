//go:build !unix

package cli

import (
	"errors"
	"os"
	"os/exec"
)

const exeSuffix = ".exe"

// handOver runs deloreis-net with the same command line and streams and
// exits with its status (there is no exec(2) to replace this process).
func handOver(path string, args []string) error {
	c := exec.Command(path, args...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := c.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		os.Exit(ee.ExitCode())
	}
	if err == nil {
		os.Exit(0)
	}
	return err
}
