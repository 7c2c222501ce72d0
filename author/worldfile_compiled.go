// The compiled section of a world file (DL-0384): a snapshot of the
// world's evaluated program, written by and for one build.

package author

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"

	"github.com/deloreis/deloreis/base/phases"
	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/world"
	"github.com/zeebo/blake3"
)

// compiledKey names the build whose lowering and engine a compiled
// section is the output of. A binary built from a clean checkout of the
// module names its commit, toolchain and build settings (the commit fixes
// the dependencies' versions), so every binary of that build agrees (a
// test binary and the installed program over one store do not rewrite
// each other's sections). Any other binary is named by the BLAKE3 of its
// executable, so that no edit goes unseen. Zero, when neither can be
// read, writes and trusts no compiled section.
var compiledKey = sync.OnceValue(func() [32]byte {
	bi, _ := debug.ReadBuildInfo()
	exe, err := os.Executable()
	if err != nil {
		return buildKey(bi, nil)
	}
	return buildKey(bi, programFiles(exe))
})

// programFiles lists the executables that name an unstamped build: the
// program itself (deloreis is one program).
func programFiles(exe string) []string { return []string{exe} }

// buildKey is compiledKey of a binary's build info (nil when it has
// none) and the executables it is named by when unstamped.
func buildKey(bi *debug.BuildInfo, files []string) [32]byte {
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
	if len(files) == 0 {
		return k
	}
	for _, path := range files {
		h.WriteString(filepath.Base(path) + "\n")
		if hashFile(h, path) != nil {
			return k
		}
	}
	h.Sum(k[:0])
	return k
}

func hashFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// writeCompiled returns the compiled section's writer for a file: it
// waits for the world (an error means no file), then writes the build key
// and the world's snapshot, or nothing (datalog.ErrNoSnapshot) when the
// world is one a snapshot does not hold or the build has no key.
func writeCompiled(built func() (*world.World, error)) func(io.Writer) error {
	return func(out io.Writer) error {
		endWait := phases.Start(PhaseFileWait)
		w, err := built()
		endWait()
		if err != nil {
			return err
		}
		defer phases.Start(PhaseFileCompiled)()
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
