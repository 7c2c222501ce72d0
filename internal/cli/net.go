// The two binaries (DL-0330): deloreis links no network code, and hands a
// command that needs it — the servers, the DKE tools, the casebook replay,
// every command that talks to a remote — to deloreis-net, the same
// command line with the network half (package netparts) linked in.

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/deloreis/deloreis/dke/keys"
	"github.com/deloreis/deloreis/dke/service"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/worker"
	"github.com/spf13/cobra"
)

// NetBinary is the name of the program that holds the network half.
const NetBinary = "deloreis-net"

// Net is the network half of the command line: netparts.Parts, which
// deloreis-net and the tests hand over (this package must not import
// netparts: the point is that deloreis does not link it).
type Net interface {
	Transports(ctx context.Context, url string, service lorestore.Service) (lorestore.RemoteSession, error)
	StartServer(stderr io.Writer) (stop func())
	CheckBind(addr, token string) error
	ServeMCP(ctx context.Context, reg *worker.Registry, profile worker.Profile, httpAddr, token string, in io.Reader, out, errw io.Writer) error
	DKERegistry(svc *service.Service) *worker.Registry
	DKEReadTools() []string
	ServeDKE(ctx context.Context, reg *worker.Registry, tools []string, ring *keys.Ring, httpAddr string, in io.Reader, out, errw io.Writer) error
	CallDKE(ctx context.Context, reg *worker.Registry, tool string, args json.RawMessage) (string, bool)
	BuildDKEDemo(dir string, o service.StoreOptions) (*service.Service, error)
	ReplayCasebook(ctx context.Context, projectFile, script []byte) ([]byte, int, error)
}

// netAnnotation marks a command that runs in deloreis-net.
const netAnnotation = "deloreis-net"

// needsNet marks cmd as one that deloreis hands to deloreis-net.
func needsNet(cmd *cobra.Command) *cobra.Command {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[netAnnotation] = "yes"
	return cmd
}

// errHandOver asks execute to run the command line in deloreis-net.
var errHandOver = errors.New("this command runs in " + NetBinary)

// handOverIfNeeded is errHandOver when cmd (or a command it belongs to)
// needs the network half and this program does not link it.
func (g *globals) handOverIfNeeded(cmd *cobra.Command) error {
	if g.net != nil {
		return nil
	}
	for c := cmd; c != nil; c = c.Parent() {
		if c.Annotations[netAnnotation] != "" {
			return errHandOver
		}
	}
	return nil
}

// findNet is deloreis-net: beside this program (symbolic links resolved),
// else on PATH.
func findNet() (string, error) {
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		p := filepath.Join(filepath.Dir(exe), NetBinary+exeSuffix)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	p, err := exec.LookPath(NetBinary)
	if err != nil {
		return "", fmt.Errorf("this command runs in %s, which is neither beside this program nor on PATH (go install ./cmd/... installs both)", NetBinary)
	}
	return p, nil
}

// handOverTo runs the command line args in deloreis-net; it returns only
// when that cannot be done.
func handOverTo(args []string) error {
	path, err := findNet()
	if err != nil {
		return err
	}
	return handOver(path, args)
}
