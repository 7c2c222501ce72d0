package fault

import (
	"errors"
	"syscall"
)

// Codes of failures the machine causes, not the request: the disk is
// full, or the file system refuses the access (read-only, no permission).
// Their class is Refused (DL-0439): the request was well formed, a
// precondition outside it failed, and repeating it unchanged fails again
// until someone frees space or grants the write — unlike Internal, which
// says the server failed and a retry may succeed.
const (
	CodeDiskFull = "disk-full"
	CodeReadOnly = "read-only"
)

// Environmental gives the typed error of a failure the file system
// reported (ENOSPC or EDQUOT: disk-full; EROFS, EACCES or EPERM:
// read-only), wrapping err, or false for anything else. A use case's own
// *Error is left to the caller.
func Environmental(err error) (*Error, bool) {
	if err == nil {
		return nil, false
	}
	if _, ok := As(err); ok {
		return nil, false
	}
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return &Error{Class: Refused, Code: CodeDiskFull,
			Message: "The disk that holds the lorestore is full; nothing was written. Free some space and try again. (" + err.Error() + ")"}, true
	case errors.Is(err, syscall.EROFS), errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return &Error{Class: Refused, Code: CodeReadOnly,
			Message: "The file system refused the access (read-only, or no permission); nothing was written. (" + err.Error() + ")"}, true
	}
	return nil, false
}
