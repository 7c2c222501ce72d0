// The compiled section of a world file (DL-0384): a snapshot of the
// world's evaluated program, written by and for one build.

package author

import (
	"bytes"
	"io"
	"os"
	"runtime/debug"
	"sync"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/world"
	"github.com/zeebo/blake3"
)

// compiledKey names the build whose lowering and engine a compiled
// section is the output of. A binary built from a clean checkout of the
// module names its commit, toolchain and build settings, not the
// dependencies it links (the commit fixes their versions, and deloreis
// links fewer than deloreis-net): every binary of that build agrees, so
// `deloreis check` and `deloreis serve` (which runs in deloreis-net) over
// one store do not rewrite each other's sections. Any other binary is
// named by the BLAKE3 of its executable, so that no edit goes unseen.
// Zero, when neither can be read, writes and trusts no compiled section.
var compiledKey = sync.OnceValue(func() [32]byte {
	bi, _ := debug.ReadBuildInfo()
	return buildKey(bi, func() (io.ReadCloser, error) {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		return os.Open(exe)
	})
})

// buildKey is compiledKey of a binary's build info (nil when it has
// none) and executable.
func buildKey(bi *debug.BuildInfo, exe func() (io.ReadCloser, error)) [32]byte {
	h := blake3.New()
	h.WriteString("deloreis compiled world\n")
	var k [32]byte
	if bi != nil {
		settings := map[string]string{}
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
		if rev := settings["vcs.revision"]; rev != "" && settings["vcs.modified"] == "false" {
			for _, x := range []string{bi.GoVersion, bi.Main.Path, bi.Main.Version, rev,
				settings["GOARCH"], settings["GOAMD64"], settings["CGO_ENABLED"], settings["-tags"]} {
				h.WriteString(x)
				h.WriteString("\n")
			}
			h.Sum(k[:0])
			return k
		}
	}
	f, err := exe()
	if err != nil {
		return k
	}
	defer f.Close()
	if _, err := io.Copy(h, f); err != nil {
		return k
	}
	h.Sum(k[:0])
	return k
}

// writeCompiled returns the compiled section's writer for a file: it
// waits for the world (an error means no file), then writes the build key
// and the world's snapshot, or nothing (datalog.ErrNoSnapshot) when the
// world is one a snapshot does not hold or the build has no key.
func writeCompiled(built func() (*world.World, error)) func(io.Writer) error {
	return func(out io.Writer) error {
		w, err := built()
		if err != nil {
			return err
		}
		key := compiledKey()
		if key == ([32]byte{}) {
			return datalog.ErrNoSnapshot
		}
		return w.WriteCompiled(&keyFirst{w: out, key: key[:]})
	}
}

// keyFirst writes key before the first byte written through it.
type keyFirst struct {
	w   io.Writer
	key []byte
}

func (k *keyFirst) Write(p []byte) (int, error) {
	if k.key != nil && len(p) > 0 {
		if _, err := k.w.Write(k.key); err != nil {
			return 0, err
		}
		k.key = nil
	}
	return k.w.Write(p)
}

// compiledFor returns the snapshot of a compiled section when this build
// wrote it, and whether the section is another build's (the file is then
// worth writing again).
func compiledFor(section []byte) (snapshot []byte, foreign bool) {
	if section == nil {
		return nil, false
	}
	key := compiledKey()
	if key == ([32]byte{}) || len(section) < len(key) || !bytes.Equal(section[:len(key)], key[:]) {
		return nil, true
	}
	return section[len(key):], false
}
