//go:build race

package author

// The race pass is there for the goroutines; TestFileBaseRefusesWhatDecodeRefuses
// (one goroutine, a decode per altered byte) runs whole in make test's unit
// step, without the race detector, and here alters a sample of its bytes
// (each decode about ten times slower).
func init() {
	refuseEveryByte, refuseStride = 300, 61
}
