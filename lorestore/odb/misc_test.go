package odb

import (
	"errors"
	"io"
)

func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

func runChild(mode string) int { return 2 }

func ioReadFull(r io.Reader, b []byte) (int, error) { return io.ReadFull(r, b) }
