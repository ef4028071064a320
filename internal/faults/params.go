package faults

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/internal/clip"
)

// ParamType is what a parameter's value is and how it is checked.
type ParamType string

// Parameter types.
const (
	// TypeMillis is a duration in whole milliseconds, from Min to Max.
	TypeMillis ParamType = "duration_ms"
	// TypeID is a positive integer naming a row (a sale).
	TypeID ParamType = "id"
	// TypeChoice is one of the parameter's choices.
	TypeChoice ParamType = "choice"
)

// Param is one parameter a kind takes. Every parameter of the table is
// required: the API has no defaults; Suggested is the value the dashboard's
// form starts with (one that shows the effect against the run form's own
// defaults, lock TTL 2000 ms).
type Param struct {
	Name      string    `json:"name"`
	Type      ParamType `json:"type"`
	Required  bool      `json:"required"`
	Min       int64     `json:"min,omitempty"`
	Max       int64     `json:"max,omitempty"`
	Suggested int64     `json:"suggested,omitempty"`
	Choices   []string  `json:"choices,omitempty"`
	Label     Text      `json:"label"`
	// choicesOf lists the choices of a parameter that depend on the
	// replica (Kind.On fills Choices from it).
	choicesOf func(*Service) []string
}

// ParamError is a parameter that is missing, out of bounds, or not taken by
// the kind: the API answers it as a 400 naming Param.
type ParamError struct {
	Param   string
	Message string
}

func (e *ParamError) Error() string { return "faults: " + e.Param + ": " + e.Message }

func paramError(param, format string, args ...any) *ParamError {
	return &ParamError{Param: param, Message: fmt.Sprintf(format, args...)}
}

// Slots are fresh places to decode a request's parameters into, one per
// parameter name of the table: a *int64, *uint64 or *string pointer each,
// left nil by a decoder when the member is absent.
type Slots map[string]any

// NewSlots returns empty slots for every parameter the table knows.
func NewSlots() Slots {
	s := Slots{}
	for _, p := range allParams() {
		switch p.Type {
		case TypeMillis:
			s[p.Name] = new(*int64)
		case TypeID:
			s[p.Name] = new(*uint64)
		default:
			s[p.Name] = new(*string)
		}
	}
	return s
}

// Values are the members the decoder filled, by name: int64, uint64 or
// string.
func (s Slots) Values() map[string]any {
	out := map[string]any{}
	for name, slot := range s {
		if v := reflect.ValueOf(slot).Elem(); !v.IsNil() {
			out[name] = v.Elem().Interface()
		}
	}
	return out
}

// Args are a kind's validated arguments.
type Args map[string]any

// Duration is the TypeMillis argument name.
func (a Args) Duration(name string) time.Duration {
	ms, _ := a[name].(int64)
	return time.Duration(ms) * time.Millisecond
}

// ID is the TypeID argument name.
func (a Args) ID(name string) uint64 { id, _ := a[name].(uint64); return id }

// Choice is the TypeChoice argument name.
func (a Args) Choice(name string) string { c, _ := a[name].(string); return c }

// Parse validates values (as Slots.Values gives them) against the kind's
// parameters on replica s: a parameter the kind does not take is refused
// first (the first one in table order), then each of its own in order.
func (k Kind) Parse(s *Service, values map[string]any) (Args, error) {
	takes := make([]string, len(k.Params))
	for i, p := range k.Params {
		takes[i] = p.Name
	}
	for _, p := range allParams() {
		if _, set := values[p.Name]; !set || slices.Contains(takes, p.Name) {
			continue
		}
		if len(takes) == 0 {
			return nil, paramError(p.Name, "%s takes no parameters", k.Name)
		}
		return nil, paramError(p.Name, "%s takes no %s, only %s", k.Name, p.Name, strings.Join(takes, ", "))
	}
	args := Args{}
	for _, p := range k.On(s).Params {
		v, err := p.check(values[p.Name])
		if err != nil {
			return nil, err
		}
		args[p.Name] = v
	}
	return args, nil
}

// check validates one value (nil: absent).
func (p Param) check(v any) (any, error) {
	switch p.Type {
	case TypeMillis:
		ms, ok := v.(int64)
		if !ok || ms < p.Min || ms > p.Max {
			return nil, paramError(p.Name, "%s is required, from %d to %d", p.Name, p.Min, p.Max)
		}
		return ms, nil
	case TypeID:
		id, ok := v.(uint64)
		if !ok || id == 0 {
			return nil, paramError(p.Name, "%s (a positive integer) is required", p.Name)
		}
		return id, nil
	default:
		c, ok := v.(string)
		choices := strings.Join(p.Choices, ", ")
		switch {
		case !ok:
			return nil, paramError(p.Name, "%s is required: one of %s", p.Name, choices)
		case slices.Contains(p.Choices, c):
			return c, nil
		case p.choicesOf != nil:
			return nil, paramError(p.Name, "unknown %s %q: this replica has %s", p.Name, clip.Input(c), choices)
		default:
			return nil, paramError(p.Name, "%s is required: one of %s", p.Name, choices)
		}
	}
}

// allParams are the table's parameters, each name once, in table order.
func allParams() []Param {
	var out []Param
	for _, k := range table {
		for _, p := range k.Params {
			if !slices.ContainsFunc(out, func(q Param) bool { return q.Name == p.Name }) {
				out = append(out, p)
			}
		}
	}
	return out
}

// The table's parameters: a duration (its bounds MaxDuration's), a sale, a
// choice fixed in the table or one the replica lists.
func millis(suggested int64) Param {
	return Param{Name: "ms", Type: TypeMillis, Required: true, Min: 1, Max: MaxDuration.Milliseconds(),
		Suggested: suggested, Label: Text{"Duration (ms)", "时长（毫秒）"}}
}

func saleID() Param {
	return Param{Name: "sale_id", Type: TypeID, Required: true, Min: 1, Label: Text{"Sale id", "秒杀活动 ID"}}
}

func choice(name string, label Text, choices []string) Param {
	return Param{Name: name, Type: TypeChoice, Required: true, Choices: choices, Label: label}
}

func replicaChoice(name string, label Text, of func(*Service) []string) Param {
	return Param{Name: name, Type: TypeChoice, Required: true, Label: label, choicesOf: of}
}

// DurationBounds are the bounds every duration parameter takes, in ms.
func DurationBounds() (min, max int64) {
	p := millis(0)
	return p.Min, p.Max
}
