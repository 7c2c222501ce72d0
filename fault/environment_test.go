package fault

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"
)

func TestEnvironmental(t *testing.T) {
	wrapped := func(errno syscall.Errno) error {
		return fmt.Errorf("odb: write pack: %w", &fs.PathError{Op: "write", Path: "objects/pack/tmp_pack_dlr_1", Err: errno})
	}
	cases := []struct {
		err  error
		code string // "" when not environmental
	}{
		{wrapped(syscall.ENOSPC), CodeDiskFull},
		{wrapped(syscall.EDQUOT), CodeDiskFull},
		{wrapped(syscall.EROFS), CodeReadOnly},
		{wrapped(syscall.EACCES), CodeReadOnly},
		{wrapped(syscall.EPERM), CodeReadOnly},
		{wrapped(syscall.EIO), ""},
		{errors.New("something else"), ""},
		{Errorf(Refused, "stale-fence", "a use case's own"), ""},
		{nil, ""},
	}
	for _, c := range cases {
		e, ok := Environmental(c.err)
		switch {
		case c.code == "" && ok:
			t.Errorf("%v: classified as %s", c.err, e.Code)
		case c.code != "" && (!ok || e.Code != c.code || e.Class != Refused):
			t.Errorf("%v: got %+v, %v; want %s", c.err, e, ok, c.code)
		}
	}
}
