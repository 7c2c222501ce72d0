// Making a project: its store, its settings file, the scopes it declares.

package author

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/project"
)

// InitOptions say where a project is made and what it declares.
type InitOptions struct {
	// Dir is the project folder (made when missing). It is not looked
	// for: init makes a project where it is told, as git init does.
	Dir string
	// Store, when given, is the lorestore folder itself, and no settings
	// file is written.
	Store string
	// StoreOptions open and write the store.
	StoreOptions StoreOptions
	// Scopes are declared in the lore, in order (DeclareScope).
	Scopes []string
}

// InitResult says what Init did.
type InitResult struct {
	Store         string   // the store's folder
	Reinitialized bool     // the store was there already; it is unchanged but for Declared
	WroteSettings bool     // a deloreis.toml was written (there was none)
	Settings      string   // its path
	Declared      []string // the scopes this call declared
	AlreadyThere  []string // the scopes the lore declared already
}

// Init makes a project in o.Dir: its store (or, when one is there, opens
// it — reinitializing changes nothing, as git init says), a deloreis.toml
// holding only the folder's own settings when there is none, and the
// declaration of each scope in the lore.
func Init(o InitOptions) (InitResult, error) {
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return InitResult{}, err
	}
	res := InitResult{Settings: filepath.Join(dir, project.FileName)}
	local, err := project.Load(dir)
	if err != nil {
		return InitResult{}, err
	}
	res.Store = local.Store
	if o.Store != "" {
		res.Store = o.Store
	}
	st, err := lorestore.Init(res.Store, o.StoreOptions)
	if errors.Is(err, lorestore.ErrExists) {
		st, err = lorestore.Open(res.Store, o.StoreOptions)
		res.Reinitialized = err == nil
	}
	if err != nil {
		return InitResult{}, err
	}
	defer st.Close()
	if o.Store == "" {
		if _, err := os.Stat(res.Settings); errors.Is(err, os.ErrNotExist) {
			if err := project.CreateSettings(dir); err != nil {
				return InitResult{}, err
			}
			res.WroteSettings = true
		}
	}
	if len(o.Scopes) == 0 {
		return res, nil
	}
	if o.Store == "" {
		if local, err = project.Load(dir); err != nil {
			return InitResult{}, err
		}
	} else {
		local.Store = o.Store
	}
	s, err := New(Config{Store: st, Project: local, Branch: local.Branch, Pin: local.Pin})
	if err != nil {
		return InitResult{}, err
	}
	for _, scope := range o.Scopes {
		d, err := s.DeclareScope(context.Background(), &DeclareScopeParams{Scope: scope})
		if err != nil {
			return res, err
		}
		if d.Declared {
			res.Declared = append(res.Declared, scope)
		} else {
			res.AlreadyThere = append(res.AlreadyThere, scope)
		}
	}
	return res, nil
}
