package eval

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dke/claims"
	"github.com/deloreis/deloreis/dke/keywords"
	"github.com/deloreis/deloreis/dke/syntax"
)

// compareKeysBefore is compareKeys as it was before the engine compared
// (its own implementation), kept to hold the engine's comparison to it.
func compareKeysBefore(op syntax.Op, a, b string) bool {
	var c int
	if a[:2] != b[:2] {
		return op == syntax.Neq
	}
	switch a[:2] {
	case "n:":
		x, _ := strconv.ParseFloat(a[2:], 64)
		y, _ := strconv.ParseFloat(b[2:], 64)
		c = cmp3(x < y, x > y)
	default:
		c = strings.Compare(a, b)
	}
	switch op {
	case syntax.Eql:
		return c == 0
	case syntax.Neq:
		return c != 0
	case syntax.Lss:
		return c < 0
	case syntax.Leq:
		return c <= 0
	case syntax.Gtr:
		return c > 0
	case syntax.Geq:
		return c >= 0
	}
	return false
}

// TestCompareKeysKeepsItsSemantics: every operator over every pair of a
// spread of encoded values (numbers that order otherwise as strings,
// integers and floats of one value, huge, infinite and NaN, strings,
// booleans, lists) gives what compareKeys gave before it became the
// engine's comparison.
func TestCompareKeysKeepsItsSemantics(t *testing.T) {
	vals := []claims.Value{
		claims.Int(2), claims.Int(10), claims.Int(-3), claims.Float(10), claims.Float(2.5), claims.Float(math.Copysign(0, -1)),
		claims.Int(math.MaxInt64), claims.Float(1e300), claims.Float(math.Inf(1)), claims.Float(math.Inf(-1)), claims.Float(math.NaN()),
		claims.Str("10"), claims.Str("9"), claims.Str(""), claims.Str("a:b"), claims.Str("n:1"),
		claims.Bool(true), claims.Bool(false), claims.List([]string{"a"}), claims.List(nil),
	}
	ops := []syntax.Op{syntax.Eql, syntax.Neq, syntax.Lss, syntax.Leq, syntax.Gtr, syntax.Geq, syntax.InOp, syntax.NotInOp}
	for _, x := range vals {
		for _, y := range vals {
			a, b := key(x), key(y)
			for _, op := range ops {
				if got, want := compareKeys(op, a, b), compareKeysBefore(op, a, b); got != want {
					t.Errorf("%q %v %q = %v, was %v", a, op, b, got, want)
				}
			}
		}
	}
}

// TestCompareVarsAnswer: a rule comparing two variables over 2,000 items
// (4,000 distinct values) answers under the default budget, item by item
// as the comparison says. Before the engine compared, the rule was
// lowered to the 16 million pairs of values and the run was refused for
// its memory budget.
func TestCompareVarsAnswer(t *testing.T) {
	const n = 2000
	w := pairsWorld(t, n)
	var src strings.Builder
	var want []string
	for i := 0; i < n; i += 19 {
		fmt.Fprintf(&src, "print(current(Item.i%d.ordered).found)\n", i)
		want = append(want, map[bool]string{true: "True", false: "False"}[float64(2*i) < float64((i*7919)%n)*2+0.5])
	}
	r := w.do(t, step{lang: keywords.Eng, src: src.String()})
	got := r.Prints()
	if !r.OK() || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("prints %v\nwant %v\n%s", got, want, firstLines(r.Transcript(), 3))
	}
}

func firstLines(s string, n int) string {
	ls := strings.SplitN(s, "\n", n+1)
	return strings.Join(ls[:min(n, len(ls))], "\n")
}

// TestCompareAfterWrites: within one run, writes to the values a
// comparison reads (a reading, its sensor's limit, a new reading, the
// sensor a reading belongs to) change what the rule derives at the next
// read, the model brought up to date incrementally; before the engine
// compared, each new value also extended the pairs of the comparison.
func TestCompareAfterWrites(t *testing.T) {
	w := overLimitWorld(t, 100) // limits 50…59; reading k is over when k > 50 + k%10
	src := `print(current(Reading.r3.over).found, current(Reading.r61.over).found)
update(Reading.r3.value, 70, "probe")
print(current(Reading.r3.over).found)
update(Limit.s3.max, 80, "probe")
print(current(Reading.r3.over).found)
remember(Reading.r200.sensor, "s3", "probe")
remember(Reading.r200.value, 80.5, "probe")
print(current(Reading.r200.over).found)
update(Reading.r200.sensor, "s1", "probe")
print(current(Reading.r200.over).found, current(Reading.r61.over).found)
update(Reading.r61.value, -1, "probe")
print(current(Reading.r61.over).found)
`
	r := w.do(t, step{lang: keywords.Eng, src: src})
	want := []string{"False True", "True", "False", "True", "True True", "False"}
	if got := r.Prints(); !r.OK() || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("prints %q, want %q\n%s", got, want, firstLines(r.Transcript(), 3))
	}
}
