package load

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// OpeningOf is when a sale created with OpensIn opens, from the create
// answer received at answeredAt: the shop's opens_at when it says so, never
// before answeredAt+OpensIn. The shop set the opening from its own clock
// at creation, which comes before the answer; firing a create round trip
// late is harmless, firing early meets not_open.
func OpeningOf(v shopapi.SaleView, answeredAt time.Time, opensIn time.Duration) time.Time {
	opening := answeredAt.Add(opensIn)
	if t, err := time.Parse(time.RFC3339Nano, v.OpensAt); err == nil && t.After(opening) {
		opening = t
	}
	return opening
}

// Buyer makes buyer i's attempt on a target: an order, after asking for a
// purchase ticket when the sale needs one. The ticket's refusal (not_open,
// rate_limited, ...) is then the buyer's answer.
type Buyer struct {
	s          *shopapi.OrderSender
	prefix     string   // user_id = prefix + (i+1)
	ticketURIs []string // per target; nil: the sale needs no ticket
	bases      []string // target base URLs, for the warm-up
}

func NewBuyer(s *shopapi.OrderSender, bases []string, saleID uint64, prefix string, tickets bool) *Buyer {
	b := &Buyer{s: s, prefix: prefix, bases: bases}
	if tickets {
		for _, t := range bases {
			b.ticketURIs = append(b.ticketURIs, t+"/api/sales/"+strconv.FormatUint(saleID, 10)+"/ticket")
		}
	}
	return b
}

// Attempt is buyer i's attempt on target j.
func (b *Buyer) Attempt(j, i int) shopapi.Answer {
	ticket := ""
	if b.ticketURIs != nil {
		var refused shopapi.Answer
		if ticket, refused = b.ticket(j, i); ticket == "" {
			return refused
		}
	}
	return b.s.Order(j, b.prefix, i+1, ticket)
}

// ticket asks target j for buyer i's purchase ticket; "" and the answer
// that refused it when there is none.
func (b *Buyer) ticket(j, i int) (string, shopapi.Answer) {
	body := `{"user_id":"` + b.prefix + strconv.Itoa(i+1) + `"}`
	status, layer, raw, err := b.s.Post(j, b.ticketURIs[j], []byte(body))
	if err != nil {
		return "", shopapi.Answer{Kind: shopapi.FastTransportKind(err), Layer: shopapi.LayerUnknown}
	}
	if status != http.StatusOK {
		return "", shopapi.Answer{Kind: shopapi.Classify(status, raw), Layer: layer}
	}
	var t struct {
		Ticket string `json:"ticket"`
	}
	// The ticket goes back verbatim into a JSON string: one that would need
	// escaping is not the shop's.
	if json.Unmarshal(raw, &t) != nil || t.Ticket == "" || strings.ContainsAny(t.Ticket, "\"\\\n\r\t") {
		return "", shopapi.Answer{Kind: shopapi.KindHTTP + strconv.Itoa(status), Layer: layer}
	}
	return t.Ticket, shopapi.Answer{}
}

// Warm opens worker w's connection before the opening: one GET /api/limits
// (constants: no database ping a thousand times just before the herd) on
// target w mod n. The connection goes back to that target's pool.
func (b *Buyer) Warm(w int) {
	j := w % len(b.bases)
	_ = b.s.Get(j, b.bases[j]+"/api/limits")
}
