// A hook for derived data kept beside the store (the author package's
// compiled world files): background work that Close waits for, so a file
// being written when a command ends is finished, not left half-written
// behind a removed folder.

package lorestore

// Background runs f on its own goroutine as background work of the store:
// WaitBackground and Close wait for it. f must not use the store.
func (s *Store) Background(f func()) {
	s.background.Add(1)
	go func() {
		defer s.background.Done()
		f()
	}()
}
