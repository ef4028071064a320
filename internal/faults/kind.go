package faults

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/seckill-lab/seckill/internal/faultkind"
)

// Kind is one fault of the table: its name as the API takes it, its texts in
// English and Chinese, the parameters it takes (validated by Parse), where
// it can show something, whether the chaos run may draw it, and how it runs.
type Kind struct {
	Name faultkind.Name
	// Title names the fault in a heading; Description says what it does.
	Title       Text
	Description Text
	Params      []Param
	Needs       Needs
	Arm         Arm
	Chaos       Chaos
	// Run injects the fault with validated arguments; the result describes
	// what was done (the 202 body of POST /api/faults).
	Run func(ctx context.Context, s *Service, a Args) (Result, error)
}

// Text is one text in the dashboard's two languages.
type Text struct {
	En string `json:"en"`
	Zh string `json:"zh"`
}

// Needs are a fault's prerequisites: on which strategies and with which
// settings it can show something (elsewhere it runs and shows nothing, or
// is refused).
type Needs struct {
	// Strategies the fault acts on; none: any strategy that takes a lock.
	Strategies []string `json:"strategies"`
	// Settings the sale, the replica or its services must have, in words,
	// in both languages.
	Settings []Text `json:"settings"`
}

// Arm is the run-form settings on which the fault shows something, as data:
// the dashboard's "Arm for the next run" fills the Run form with them and
// injects the fault with Params once the run's sale has buyers inside. A
// zero member leaves the form's value as it is.
type Arm struct {
	// Strategies the fault shows on, the first one chosen in the form.
	Strategies []string `json:"strategies"`
	// Watchdog false turns the lease renewal off; nil leaves it.
	Watchdog *bool `json:"watchdog,omitempty"`
	WorkMS   int   `json:"work_ms,omitempty"`
	TTLMS    int   `json:"ttl_ms,omitempty"`
	// Fencing lists the fencing settings worth running, in order, the first
	// one set in the form: [false, true] shows the damage, then fencing
	// refusing it; empty: fencing changes nothing here.
	Fencing []bool `json:"fencing"`
	// OrderMode "async" when the fault acts on the queue.
	OrderMode string `json:"order_mode,omitempty"`
	// Params are the fault's own arguments (ms, node, point); a sale_id is
	// the armed run's sale.
	Params map[string]any `json:"params"`
	// Replicas is how many shop replicas the run drives: 0 leaves the form's
	// choice; 1 drives the first replica by id alone, and the fault goes to
	// it (its holder is the one inside); 2 and more: a buyer elsewhere
	// takes the lock over, another replica reclaims.
	Replicas int `json:"replicas,omitempty"`
}

// Chaos says whether `loadtest chaos` may draw the kind, and whether only on
// replicas the run started itself (a killed one must be restarted).
type Chaos struct {
	Draw      bool `json:"draw"`
	OwnedOnly bool `json:"owned_only"`
}

// Result is what a fault did, member by member.
type Result map[string]any

// Kinds is the table of faults, in the order the dashboard shows them.
func Kinds() []Kind { return slices.Clone(table) }

// Find returns the kind called name.
func Find(name string) (Kind, bool) {
	i := slices.IndexFunc(table, func(k Kind) bool { return string(k.Name) == name })
	if i < 0 {
		return Kind{}, false
	}
	return table[i], true
}

// Names are the kinds' names in table order.
func Names() []string {
	names := make([]string, len(table))
	for i, k := range table {
		names[i] = string(k.Name)
	}
	return names
}

// ChaosKinds are the kinds the chaos run may draw, in table order.
func ChaosKinds() []string {
	var names []string
	for _, k := range table {
		if k.Chaos.Draw {
			names = append(names, string(k.Name))
		}
	}
	return names
}

// On is the kind as replica s offers it: a parameter whose choices depend
// on the replica (restart_redis's nodes) lists this replica's.
func (k Kind) On(s *Service) Kind {
	k.Params = slices.Clone(k.Params)
	for i, p := range k.Params {
		if p.choicesOf != nil {
			k.Params[i].Choices = nonNil(p.choicesOf(s))
		}
	}
	return k
}

// MarshalJSON is the kind as GET /api/faults lists it: the name, the
// parameters' names ("params") and the English description (the members
// the API always had), then the rest of the table's entry.
func (k Kind) MarshalJSON() ([]byte, error) {
	names := make([]string, len(k.Params))
	for i, p := range k.Params {
		names[i] = p.Name
	}
	return json.Marshal(struct {
		Name         string   `json:"kind"`
		Params       []string `json:"params"`
		Description  string   `json:"description"`
		Title        Text     `json:"title"`
		Descriptions Text     `json:"descriptions"`
		Parameters   []Param  `json:"parameters"`
		Needs        Needs    `json:"needs"`
		Arm          Arm      `json:"arm"`
		Chaos        Chaos    `json:"chaos"`
	}{string(k.Name), names, k.Description.En, k.Title, k.Description, nonNilParams(k.Params),
		Needs{nonNil(k.Needs.Strategies), nonNilTexts(k.Needs.Settings)}, k.Arm.served(), k.Chaos})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilTexts(t []Text) []Text {
	if t == nil {
		return []Text{}
	}
	return t
}

// served is a with its lists never null.
func (a Arm) served() Arm {
	a.Strategies = nonNil(a.Strategies)
	if a.Fencing == nil {
		a.Fencing = []bool{}
	}
	if a.Params == nil {
		a.Params = map[string]any{}
	}
	return a
}

func nonNilParams(p []Param) []Param {
	if p == nil {
		return []Param{}
	}
	return p
}
