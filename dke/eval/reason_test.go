package eval

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dke/claims"
	"github.com/deloreis/deloreis/dke/keywords"
)

const climateRules = `@rule
def warm_rooms(s, r, c):
    if Sensor[s].room == r and Sensor[s].celsius == c and c > 25.0:
        Room[r].warm = True

@rule
def sunny_rooms(r):
    if Room[r].sunny == True:
        Room[r].warm = True

@constraint
def readings_have_rooms(s, c):
    if Sensor[s].celsius == c:
        assert Sensor[s].room
        assert c < 100.0
`

const climateData = `remember(Sensor.s1.room, "kitchen", "survey")
remember(Sensor.s1.celsius, 27.0, "probe")
remember(Sensor.s2.celsius, 19.5, "probe")
remember(Sensor.s3.room, "hall", "survey")
remember(Sensor.s3.celsius, 120.0, "probe")
remember(Room.kitchen.sunny, True, "plan")
`

func reason(t *testing.T, w *world) *Reasoning {
	t.Helper()
	snap, _ := w.store.Snapshot()
	r, err := Reason(snap, w.mods)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestReasoning reads what checkup needs: constraint violations naming
// cells, the attributes the rules read and derive, and the rule count.
func TestReasoning(t *testing.T) {
	w := newWorld()
	w.do(t, step{compile: "climate", lang: keywords.Eng, src: climateRules})
	w.do(t, step{lang: keywords.Eng, src: climateData})
	r := reason(t, w)
	var got []string
	for _, v := range r.Violations() {
		got = append(got, v.Constraint+" "+strings.Join(v.Cells, ","))
	}
	want := []string{"climate.readings_have_rooms Sensor.s2.room", "climate.readings_have_rooms Sensor.s3.celsius"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("violations %q, want %q", got, want)
	}
	if got := fmt.Sprint(r.Reads(), r.Derives(), r.Rules()); got != "[Room.sunny Sensor.celsius Sensor.room] [Room.warm] 2" {
		t.Errorf("reads, derives, rules: %s", got)
	}
	if v, rule, ok := r.Derived(claims.Cell{Kind: "Room", Subject: "hall", Attr: "warm"}); !ok || rule != "climate.warm_rooms" || !v.Bool {
		t.Errorf("hall is warm by warm_rooms (s3 reads 120.0 there), got %v by %q", v, rule)
	}
	if v, rule, ok := r.Derived(claims.Cell{Kind: "Room", Subject: "attic", Attr: "warm"}); ok {
		t.Errorf("no sensor and no sun in the attic, got %v by %s", v, rule)
	}
	if got := fmt.Sprint(r.Needs(claims.Cell{Kind: "Room", Subject: "cellar", Attr: "warm"})); got != "[Room.cellar.sunny Sensor.*.room]" {
		t.Errorf("needs %s", got)
	}
}

// TestWithdrawingARule: conclusions are derived at read time, so a rule
// withdrawn (the module recompiled without it, as forget_rule leaves it)
// withdraws what it alone concluded, and a conclusion another rule still
// supports survives.
func TestWithdrawingARule(t *testing.T) {
	kitchen := claims.Cell{Kind: "Room", Subject: "kitchen", Attr: "warm"}
	tests := []struct {
		name  string
		rules string
		want  string // the rule concluding kitchen.warm, "" for none
	}{
		{"both rules", climateRules, "climate.sunny_rooms"},
		{"without sunny_rooms", withoutRule(climateRules, "sunny_rooms"), "climate.warm_rooms"},
		{"without warm_rooms", withoutRule(climateRules, "warm_rooms"), "climate.sunny_rooms"},
		{"without either", withoutRule(withoutRule(climateRules, "warm_rooms"), "sunny_rooms"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld()
			w.do(t, step{compile: "climate", lang: keywords.Eng, src: tt.rules})
			w.do(t, step{lang: keywords.Eng, src: climateData})
			_, rule, ok := reason(t, w).Derived(kitchen)
			if rule != tt.want || ok != (tt.want != "") {
				t.Errorf("kitchen.warm by %q (%v), want %q", rule, ok, tt.want)
			}
		})
	}
}

// withoutRule drops the @rule def named name from a module source.
func withoutRule(src, name string) string {
	var out []string
	for _, block := range strings.Split(src, "\n\n") {
		if !strings.Contains(block, "def "+name+"(") {
			out = append(out, block)
		}
	}
	return strings.Join(out, "\n\n")
}

// TestIncrementalModel: the rule model brought up to date write by write
// answers as one built from scratch over the same view.
func TestIncrementalModel(t *testing.T) {
	w := newWorld()
	w.do(t, step{compile: "climate", lang: keywords.Eng, src: climateRules + "\n@rule\ndef cold_rooms(r):\n    if Room[r].name and not Room[r].warm:\n        Room[r].cold = True\n"})
	snap, _ := w.store.Snapshot()
	tx := claims.NewTx(snap)
	st := lowerStanding(w.mods, "", nil)
	inc, err := buildModel(tx, st, newMeter(context.Background(), 0))
	if err != nil {
		t.Fatal(err)
	}
	rooms := []string{"kitchen", "hall", "attic"}
	state := uint32(7)
	next := func(n int) int { state = state*1664525 + 1013904223; return int(state>>8) % n }
	for i := range 300 {
		s, r := "s"+strconvI(next(6)), rooms[next(3)]
		var cell claims.Cell
		switch next(5) {
		case 0:
			cell = claims.Cell{Kind: "Sensor", Subject: s, Attr: "room"}
			tx.Update(cell, claims.Str(r), "survey")
		case 1:
			cell = claims.Cell{Kind: "Sensor", Subject: s, Attr: "celsius"}
			tx.Update(cell, claims.Float(float64(next(60))+0.5), "probe")
		case 2:
			cell = claims.Cell{Kind: "Room", Subject: r, Attr: "sunny"}
			tx.Update(cell, claims.Bool(next(2) == 0), "plan")
		case 3:
			cell = claims.Cell{Kind: "Room", Subject: r, Attr: "name"}
			tx.Update(cell, claims.Str(r), "plan")
		default:
			cell = claims.Cell{Kind: "Sensor", Subject: s, Attr: "celsius"}
			tx.Forget(cell)
		}
		if err := inc.apply(tx, []claims.Cell{cell}); err != nil {
			t.Fatal(err)
		}
		scratch, err := buildModel(tx, st, newMeter(context.Background(), 0))
		if err != nil {
			t.Fatal(err)
		}
		if a, b := modelText(inc, rooms), modelText(scratch, rooms); a != b {
			t.Fatalf("after write %d (%v): incremental\n%s\nfrom scratch\n%s", i, cell, a, b)
		}
	}
}

func modelText(rm *ruleModel, rooms []string) string {
	var b strings.Builder
	for _, r := range rooms {
		for _, a := range []string{"warm", "cold"} {
			c := claims.Cell{Kind: "Room", Subject: r, Attr: a}
			if con, ok := rm.conclude(c); ok {
				fmt.Fprintf(&b, "%s=%v by %v\n", c, con.val, con.rules)
			}
			fmt.Fprintf(&b, "%s needs %v\n", c, rm.needs(c))
		}
	}
	fmt.Fprintf(&b, "%v\n", rm.violations())
	return b.String()
}

func strconvI(i int) string { return fmt.Sprint(i) }

func TestConclusions(t *testing.T) {
	w := newWorld()
	w.do(t, step{compile: "c", lang: keywords.Eng, src: "@rule\ndef warm(r):\n    if Room[r].sunny == True:\n        Room[r].warm = True\n"})
	w.do(t, step{lang: keywords.Eng, src: "remember(Room.b.sunny, True, \"p\")\nremember(Room.a.sunny, True, \"p\")\nremember(Room.c.sunny, False, \"p\")\n"})
	snap, _ := w.store.Snapshot()
	rs, err := Reason(snap, w.mods)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range rs.Conclusions() {
		got = append(got, c.String())
	}
	if strings.Join(got, " ") != "Room.a.warm Room.b.warm" {
		t.Errorf("conclusions %v", got)
	}
}
