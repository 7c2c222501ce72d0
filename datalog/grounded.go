// This file holds grounded labelling of an attack graph: the least fixpoint
// in which an argument is in when every attacker is out and out when some
// attacker is in, by counter propagation in linear time.

package datalog

// Label is an argument's label in the grounded extension. The zero value is
// Undecided, so a missing map entry never reads as In.
type Label uint8

// The three labels.
const (
	Undecided Label = iota // neither: self, mutual, odd or even cycles with no outside decision
	In                     // every attacker is out (or there is none)
	Out                    // some attacker is in
)

// String renders "in", "out" or "undecided".
func (l Label) String() string {
	switch l {
	case In:
		return "in"
	case Out:
		return "out"
	case Undecided:
		return "undecided"
	}
	return "invalid"
}

// Grounded labels args by the grounded semantics of attacks (attacker,
// target). An argument with no attacker, or whose attackers are all out, is
// in; an argument with an attacker in is out; the rest (self-attack, mutual
// attack, odd and even cycles no in argument breaks) is undecided. Restoring
// is built in: a target whose every attacker is out is in again. Duplicate
// arguments count once; duplicate attacks are harmless; attacks naming an
// argument not in args are ignored. The map has one entry per distinct
// argument.
func Grounded(args []string, attacks [][2]string) map[string]Label {
	// One map write per argument: the last occurrence of a name is its id;
	// an earlier one is an id no attack names, whose label the last one's
	// overwrites below.
	ids := make(map[string]int32, len(args))
	for i, a := range args {
		ids[a] = int32(i)
	}
	edges := make([][2]int32, 0, len(attacks))
	for _, at := range attacks {
		s, ok1 := ids[at[0]]
		t, ok2 := ids[at[1]]
		if ok1 && ok2 {
			edges = append(edges, [2]int32{s, t})
		}
	}
	labels := GroundedIDs(len(args), edges)
	out := make(map[string]Label, len(ids))
	for i, a := range args {
		out[a] = labels[i]
	}
	return out
}

// GroundedIDs is Grounded over arguments 0…n-1; attacks outside that range
// are ignored. It runs in O(n + len(attacks)).
func GroundedIDs(n int, attacks [][2]int32) []Label {
	off := make([]int32, n+1)
	live := make([]int32, n) // attackers not yet out
	for _, e := range attacks {
		if inRange(e, n) {
			off[e[0]+1]++
			live[e[1]]++
		}
	}
	for i := 1; i <= n; i++ {
		off[i] += off[i-1]
	}
	targets := make([]int32, off[n])
	fill := make([]int32, n)
	copy(fill, off[:n])
	for _, e := range attacks {
		if inRange(e, n) {
			targets[fill[e[0]]] = e[1]
			fill[e[0]]++
		}
	}
	labels := make([]Label, n)
	queue := fill[:0] // reuse: fill is no longer needed
	for i, c := range live {
		if c == 0 {
			labels[i] = In
			queue = append(queue, int32(i))
		}
	}
	for head := 0; head < len(queue); head++ {
		x := queue[head]
		ts := targets[off[x]:off[x+1]]
		if labels[x] == In {
			for _, t := range ts {
				if labels[t] == Undecided {
					labels[t] = Out
					queue = append(queue, t)
				}
			}
			continue
		}
		for _, t := range ts {
			if live[t]--; live[t] == 0 && labels[t] == Undecided {
				labels[t] = In
				queue = append(queue, t)
			}
		}
	}
	return labels
}

func inRange(e [2]int32, n int) bool {
	return e[0] >= 0 && e[1] >= 0 && int(e[0]) < n && int(e[1]) < n
}
