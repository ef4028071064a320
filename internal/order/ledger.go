package order

import "github.com/seckill-lab/seckill/internal/inventory"

// refusal is the order's answer to a refusal of inventory's Ledger (the
// checks of one order made for a batch: combining's, the group commit's).
func refusal(err error) error {
	switch err {
	case inventory.ErrKeyUsed:
		return ErrDuplicateRequest
	case inventory.ErrLimitReached:
		return ErrLimitReached
	case inventory.ErrSoldOut:
		return ErrSoldOut
	}
	return err
}
