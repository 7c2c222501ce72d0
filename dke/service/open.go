// Opening the service over a lorestore it owns, for the adapters that
// must not open one themselves (the command line): Open, Init and Close,
// and the keyring beside the store.

package service

import (
	"time"

	"github.com/deloreis/deloreis/dke/keys"
	"github.com/deloreis/deloreis/lorestore"
)

// StoreOptions are the options the lorestore is opened with (fsync, the
// author, warnings, the commit clock).
type StoreOptions = lorestore.Options

// OpenOptions say which lorestore a Service opens and how it answers.
type OpenOptions struct {
	// StoreDir is the lorestore's directory.
	StoreDir string
	// StoreOptions are the lorestore's options.
	StoreOptions StoreOptions
	// Branch is the branch the DKE stores live on; default main.
	Branch string
	// Now is the wall clock of module and store records and of keys;
	// default StoreOptions.Now, else time.Now.
	Now func() time.Time
	// Authority names who compiles; default "deloreis".
	Authority string
	// Budget bounds each call; the zero value is the defaults.
	Budget Budget
}

// Open opens the lorestore at o.StoreDir and returns the Service over it,
// which owns the store: Close closes it.
func Open(o OpenOptions) (*Service, error) {
	s, err := lorestore.Open(o.StoreDir, o.StoreOptions)
	if err != nil {
		return nil, err
	}
	return own(s, o)
}

// Init makes a new lorestore at o.StoreDir and returns the Service over
// it, which owns the store: Close closes it.
func Init(o OpenOptions) (*Service, error) {
	s, err := lorestore.Init(o.StoreDir, o.StoreOptions)
	if err != nil {
		return nil, err
	}
	return own(s, o)
}

// own returns the Service over s that closes s, or closes s when there
// can be none.
func own(s *lorestore.Store, o OpenOptions) (*Service, error) {
	now := o.Now
	if now == nil {
		now = o.StoreOptions.Now
	}
	svc, err := New(Config{Store: s, Branch: o.Branch, Now: now, Authority: o.Authority, Budget: o.Budget})
	if err != nil {
		s.Close()
		return nil, err
	}
	svc.owned = true
	return svc, nil
}

// Close closes the lorestore when the Service opened it (Open, Init); a
// Service made by New leaves its store to the caller.
func (s *Service) Close() error {
	if !s.owned {
		return nil
	}
	return s.cfg.Store.Close()
}

// Keyring is the keyring of the DKE server's keys: a file in the
// lorestore's git directory, outside every commit.
func (s *Service) Keyring() *keys.Ring { return keys.Open(s.cfg.Store.Dir()) }

// Branch is the branch the DKE stores live on.
func (s *Service) Branch() string { return s.cfg.Branch }
