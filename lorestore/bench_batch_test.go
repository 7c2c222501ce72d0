package lorestore

func newBenchBatch(s *Store) *Batch { return s.NewBatch() }
func testBatch(s *Store) *Batch     { return s.NewBatch() }
