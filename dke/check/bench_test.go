// The benchmark: check a 1,000-line module (target: under 10 ms).

package check_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dke/check"
	"github.com/deloreis/deloreis/dke/keywords"
)

// bigModule returns a valid module of at least n lines: classes with
// computed fields, procedures and value scripts calling one another, loops,
// branches, matches and rules.
func bigModule(n int) string {
	var b strings.Builder
	b.WriteString("import inventory\n\n")
	for i := 0; strings.Count(b.String(), "\n") < n; i++ {
		fmt.Fprintf(&b, `class Kind%[1]d:
    name: string
    size: int
    weight: float

    @computed
    def heavy(k) -> bool:
        return current(k.weight).value > 10.0

def total%[1]d(k: string) -> int:
    n = 0
    for a in list attributes of k:
        if a == "size":
            n += 1
        elif len(a) > 3:
            n = n + 2
    return n

def survey%[1]d(limit: int):
    for s in list subjects of Kind%[1]d:
        c = current(s.size)
        if c.found and c.value > limit:
            print(current(s.name).value, current(s.heavy).value)
            branch:
                update(s.size, limit, "survey")
                if total%[1]d("Kind%[1]d") > 100:
                    rollback
    match total%[1]d("Kind%[1]d"):
        case 0:
            inventory.restock("none")
        case _:
            print(why(Kind%[1]d.a.size).text)

@rule
def big%[1]d(s, w):
    if Kind%[1]d[s].weight == w and w > 100.0:
        Flag%[1]d[s].big = True

`, i)
	}
	return b.String()
}

func BenchmarkCheck1000Lines(b *testing.B) {
	env := testEnv(b)
	src := bigModule(1000)
	if _, _, errs := check.Source("big", src, keywords.Eng, check.Options{Module: "big", Env: env}); len(errs) > 0 {
		b.Fatal(errs)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		check.Source("big", src, keywords.Eng, check.Options{Module: "big", Env: env})
	}
	b.ReportMetric(float64(strings.Count(src, "\n")), "lines")
}

func TestBigModuleChecks(t *testing.T) {
	src := bigModule(1000)
	if _, _, errs := check.Source("big", src, keywords.Eng, check.Options{Module: "big", Env: testEnv(t)}); len(errs) > 0 {
		t.Fatal(errs)
	}
}
