package faults_test

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/faults"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// kindConstants are the string constants that package faultkind
// declares in any of its files, one per kind: the kinds the service knows.
func kindConstants(t *testing.T) map[string]string {
	t.Helper()
	pkgs, err := parser.ParseDir(token.NewFileSet(), "../faultkind", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range pkgs["faultkind"].Files {
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			for i, name := range spec.Names {
				if i >= len(spec.Values) {
					continue
				}
				if lit, ok := spec.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					v, _ := strconv.Unquote(lit.Value)
					out[name.Name] = v
				}
			}
			return true
		})
	}
	return out
}

// The table covers every kind the package declares, each once, with a run
// function, its texts in both languages, parameters the API can validate
// and prerequisites naming real strategies.
func TestTableCoversEveryKind(t *testing.T) {
	consts := kindConstants(t)
	if len(consts) < 18 {
		t.Fatalf("found %d Kind constants: %v", len(consts), consts)
	}
	names := faults.Names()
	for c, v := range consts {
		if !slices.Contains(names, v) {
			t.Errorf("%s = %q is not in the table", c, v)
		}
	}
	if len(names) != len(consts) {
		t.Errorf("the table has %d kinds, the package declares %d", len(names), len(consts))
	}
	strategies := lockstrategy.Names()
	minMS, maxMS := faults.DurationBounds()
	seen := map[faultkind.Name]bool{}
	for _, k := range faults.Kinds() {
		if seen[k.Name] {
			t.Errorf("%s twice in the table", k.Name)
		}
		seen[k.Name] = true
		if k.Run == nil {
			t.Errorf("%s has no run function", k.Name)
		}
		for what, txt := range map[string]faults.Text{"title": k.Title, "description": k.Description} {
			if txt.En == "" || txt.Zh == "" || txt.En == txt.Zh {
				t.Errorf("%s: %s %+v is not in both languages", k.Name, what, txt)
			}
		}
		for _, s := range k.Needs.Strategies {
			if !slices.Contains(strategies, s) {
				t.Errorf("%s needs strategy %q, which is not registered", k.Name, s)
			}
		}
		for _, p := range k.Params {
			if p.Label.En == "" || p.Label.Zh == "" || !p.Required {
				t.Errorf("%s: parameter %+v has no label in both languages or is not required", k.Name, p)
			}
			if !strings.Contains(k.Description.En, p.Name) && p.Type == faults.TypeMillis {
				t.Errorf("%s: the description does not say what %s is", k.Name, p.Name)
			}
			switch p.Type {
			case faults.TypeMillis:
				if p.Min != minMS || p.Max != maxMS || p.Suggested < p.Min || p.Suggested > p.Max {
					t.Errorf("%s: %+v: bounds other than [%d, %d] or a suggestion outside them", k.Name, p, minMS, maxMS)
				}
			case faults.TypeID, faults.TypeChoice:
			default:
				t.Errorf("%s: parameter %s of unknown type %q", k.Name, p.Name, p.Type)
			}
		}
	}
}

// The chaos run draws every kind but those that act on redis-getset alone,
// which is not safe and never runs in a chaos run, and the Redis node faults
// its nemesis has no schedule for yet (notDrawn); those it may draw only on
// replicas it started are the ones that kill the replica.
func TestChaosKinds(t *testing.T) {
	drawn := faults.ChaosKinds()
	for _, k := range faults.Kinds() {
		notDrawn := slices.Equal(k.Needs.Strategies, []string{"redis-getset"}) ||
			k.Name == faultkind.FreezeRedis || k.Name == faultkind.ClockJumpRedis
		if slices.Contains(drawn, string(k.Name)) == notDrawn {
			t.Errorf("%s: drawn %v, acts on redis-getset alone or not scheduled yet %v", k.Name, k.Chaos.Draw, notDrawn)
		}
		kills := strings.Contains(k.Description.En, "SIGKILLs the replica") || strings.HasPrefix(k.Description.En, "SIGKILL this replica")
		if k.Chaos.OwnedOnly != kills {
			t.Errorf("%s: owned only %v, kills its replica %v", k.Name, k.Chaos.OwnedOnly, kills)
		}
	}
	if want := []string{string(faultkind.PauseHolder), string(faultkind.NestedLock)}; !slices.Equal(drawn[:2], want) {
		t.Errorf("chaos kinds %v: not in table order", drawn)
	}
}

// Parse refuses a parameter the kind does not take (the first in table
// order), a missing or out-of-range one, and a choice this replica does not
// have; it returns the arguments typed.
func TestParse(t *testing.T) {
	s := faults.New(faults.Config{RedisAddr: "127.0.0.1:1"}, nil)
	kind := func(name faultkind.Name) faults.Kind {
		k, ok := faults.Find(string(name))
		if !ok {
			t.Fatalf("%s not in the table", name)
		}
		return k
	}
	cases := []struct {
		kind   faultkind.Name
		values map[string]any
		param  string // "" when valid
	}{
		{faultkind.PauseHolder, map[string]any{"ms": int64(5)}, ""},
		{faultkind.PauseHolder, map[string]any{}, "ms"},
		{faultkind.PauseHolder, map[string]any{"ms": int64(0)}, "ms"},
		{faultkind.PauseHolder, map[string]any{"ms": faults.MaxDuration.Milliseconds() + 1}, "ms"},
		{faultkind.PauseHolder, map[string]any{"ms": int64(5), "sale_id": uint64(1)}, "sale_id"},
		{faultkind.ExpireZKSession, map[string]any{"point": "x", "ms": int64(5)}, "ms"},
		{faultkind.SlowDB, map[string]any{"ms": int64(5)}, "sale_id"},
		{faultkind.SlowDB, map[string]any{"sale_id": uint64(0)}, "ms"},
		{faultkind.SlowDB, map[string]any{"ms": int64(5), "sale_id": uint64(0)}, "sale_id"},
		{faultkind.SlowDB, map[string]any{"ms": int64(5), "sale_id": uint64(3)}, ""},
		{faultkind.RestartRedis, map[string]any{"node": "redis"}, ""},
		{faultkind.RestartRedis, map[string]any{"node": "redlock-1"}, "node"},
		{faultkind.RestartRedis, map[string]any{}, "node"},
		{faultkind.KillConsumer, map[string]any{"point": "after_commit"}, ""},
		{faultkind.KillConsumer, map[string]any{"point": "later"}, "point"},
	}
	for _, c := range cases {
		args, err := kind(c.kind).Parse(s, c.values)
		var pe *faults.ParamError
		switch {
		case c.param == "" && err != nil:
			t.Errorf("%s %v: %v", c.kind, c.values, err)
		case c.param != "" && (!errors.As(err, &pe) || pe.Param != c.param):
			t.Errorf("%s %v: %v, want a ParamError on %s", c.kind, c.values, err, c.param)
		}
		if c.param == "" && c.kind == faultkind.SlowDB && (args.Duration("ms") != 5*time.Millisecond || args.ID("sale_id") != 3) {
			t.Errorf("slow_db args %v", args)
		}
	}
	// The node's choices are this replica's.
	for _, p := range kind(faultkind.RestartRedis).On(s).Params {
		if !slices.Equal(p.Choices, []string{"redis"}) {
			t.Errorf("restart_redis choices here %v, want [redis]", p.Choices)
		}
	}
}

// Slots decode into the types Parse expects, and Values gives back only
// what was filled.
func TestSlots(t *testing.T) {
	s := faults.NewSlots()
	for _, name := range []string{"ms", "sale_id", "node", "point"} {
		if _, ok := s[name]; !ok {
			t.Fatalf("no slot for %s: %v", name, s)
		}
	}
	ms := int64(7)
	*(s["ms"].(**int64)) = &ms
	if v := s.Values(); len(v) != 1 || v["ms"] != int64(7) {
		t.Errorf("values %v", v)
	}
}

// Every kind says what it needs in both languages, and its Arm is a run the
// API takes that meets those needs: strategies it acts on (registered), the
// watchdog turned off only where there is one, its own arguments valid (a
// sale_id being the armed run's), a pause longer than the TTL where a stale
// write needs one.
func TestNeedsAndArmOfEveryKind(t *testing.T) {
	s := faults.New(faults.Config{RedisAddr: "127.0.0.1:1", RedlockAddrs: []string{"127.0.0.1:2", "127.0.0.1:3", "127.0.0.1:4"}}, nil)
	for _, k := range faults.Kinds() {
		if len(k.Needs.Settings) == 0 {
			t.Errorf("%s says no setting it needs", k.Name)
		}
		for _, txt := range k.Needs.Settings {
			if txt.En == "" || txt.Zh == "" || txt.En == txt.Zh {
				t.Errorf("%s: need %+v is not in both languages", k.Name, txt)
			}
		}
		a := k.Arm
		if len(a.Strategies) == 0 {
			t.Errorf("%s: its arm chooses no strategy", k.Name)
		}
		for _, name := range a.Strategies {
			st, err := lockstrategy.Lookup(name)
			if err != nil {
				t.Errorf("%s: arm strategy %q: %v", k.Name, name, err)
				continue
			}
			if len(k.Needs.Strategies) > 0 && !slices.Contains(k.Needs.Strategies, name) {
				t.Errorf("%s: arm strategy %q is not one it needs %v", k.Name, name, k.Needs.Strategies)
			}
			if a.Watchdog != nil && !*a.Watchdog && !st.Renews {
				t.Errorf("%s: arm turns off the watchdog of %q, which has none", k.Name, name)
			}
		}
		if a.WorkMS < 0 || a.WorkMS > 60000 || a.TTLMS < 0 || a.TTLMS > 600000 {
			t.Errorf("%s: arm work_ms %d or ttl_ms %d outside the run form's bounds", k.Name, a.WorkMS, a.TTLMS)
		}
		values := map[string]any{}
		for name, v := range a.Params {
			if n, ok := v.(int); ok {
				values[name] = int64(n)
			} else {
				values[name] = v
			}
		}
		for _, p := range k.Params {
			if p.Name == "sale_id" {
				values["sale_id"] = uint64(7)
			}
		}
		if _, err := k.Parse(s, values); err != nil {
			t.Errorf("%s: arm params %v: %v", k.Name, a.Params, err)
		}
		stale := slices.ContainsFunc(k.Needs.Settings, func(x faults.Text) bool { return strings.Contains(x.En, "longer than the lock's TTL") })
		if ms, _ := a.Params["ms"].(int); stale && (a.TTLMS == 0 || ms <= a.TTLMS && a.WorkMS <= a.TTLMS) {
			t.Errorf("%s needs a pause past the TTL: arm ms %d, work_ms %d, ttl_ms %d", k.Name, ms, a.WorkMS, a.TTLMS)
		}
	}
}
