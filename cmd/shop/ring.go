package main

import (
	"context"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/discovery"
	"github.com/seckill-lab/seckill/internal/hashring"
)

// liveShops is the consistent-hash ring's members: the shop replicas whose
// heartbeats discovery sees alive (agents take no orders).
func liveShops(db *gorm.DB) hashring.Live {
	return func(ctx context.Context) ([]hashring.Member, error) {
		live, err := discovery.List(ctx, db)
		if err != nil {
			return nil, err
		}
		var out []hashring.Member
		for _, m := range live {
			if m.Kind == discovery.KindShop {
				out = append(out, hashring.Member{ID: m.ID, URL: m.URL})
			}
		}
		return out, nil
	}
}
