// Package orderqueue is the asynchronous order mode: one Redis script takes
// the unit from the sale's stock and appends the order to a stream, and the
// buyer gets an order ticket at once (Enqueue); consumers on every replica,
// one consumer group, persist the orders in the database idempotently (the
// ticket is a unique key), acknowledge them, and reclaim the entries of a
// consumer that died (Consumer, consumer.go; its retries and the settlement
// in Redis in persist.go). The transaction that decides and writes a batch
// is not here: it is ConsumerConfig.Persist (order.QueueCommit), which takes
// Entry and returns Settlement. A ticket is pending while its unit is in
// flight, then confirmed (an order row) or failed (a ticket_failures row,
// its unit given back).
package orderqueue

import (
	"strconv"
	"strings"

	"github.com/seckill-lab/seckill/internal/lockstrategy/redisstock"
)

// Group is the consumer group every replica's consumer joins.
const Group = "orders"

// StreamKey is the stream of keyspace (the database's name, so that a demo
// and the tests sharing one Redis never read each other's orders).
func StreamKey(keyspace string) string { return keyspace + ":orders:queue" }

// saleKeys are the keys of one sale the scripts touch, under its lock key:
// the stock's (redisstock.KeysOf), and the queue's own.
type saleKeys struct {
	redisstock.SaleKeys
	Buyers   string // user -> tickets taken (the per-user limit, checked at once)
	Idem     string // user + "\x00" + idempotency key -> ticket
	Accepted string // 202s given
}

func keysOf(saleKey string) saleKeys {
	return saleKeys{SaleKeys: redisstock.KeysOf(saleKey), Buyers: saleKey + ":buyers",
		Idem: saleKey + ":idem", Accepted: saleKey + ":accepted"}
}

// ticketPrefix makes a ticket name its sale: "ot_<sale>_<32 hex>", so that a
// pending ticket is found without an index.
func ticketPrefix(saleID uint64) string { return strconv.FormatUint(saleID, 10) + "_" }

// NewTicket is a new order ticket of sale saleID.
func NewTicket(saleID uint64) string { return redisstock.NewTicket(ticketPrefix(saleID)) }

// SaleOfTicket is the sale a queue ticket names; ok false for anything else
// (a synchronous reservation's ticket names none).
func SaleOfTicket(ticket string) (uint64, bool) {
	rest, ok := strings.CutPrefix(ticket, "ot_")
	if !ok {
		return 0, false
	}
	sale, hex, ok := strings.Cut(rest, "_")
	if !ok || len(hex) != 32 {
		return 0, false
	}
	id, err := strconv.ParseUint(sale, 10, 64)
	return id, err == nil && id > 0
}

// ValidTicket says whether t has the shape of a ticket (any kind): "ot_",
// then at most 64 characters of digits, lowercase hex and "_".
func ValidTicket(t string) bool {
	rest, ok := strings.CutPrefix(t, "ot_")
	if !ok || rest == "" || len(t) > 64 {
		return false
	}
	for _, r := range rest {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r == '_') {
			return false
		}
	}
	return true
}
