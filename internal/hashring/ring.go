// Package hashring is the consistent-hash ring of the consistent-hash
// strategy: which live replica owns a sale, as each replica sees it. The
// ring (this file) is pure: members in, owner out. The view (view.go) is
// one replica's picture of the members, read from the heartbeats in the
// database and refreshed with a bounded staleness; two replicas whose
// pictures differ (one joined or left a moment ago) can each believe they
// own a sale, which is the pitfall its lesson shows.
package hashring

import (
	"crypto/sha256"
	"encoding/binary"
	"sort"
	"strconv"
)

// VirtualNodes is how many points each member puts on the ring: with
// many, the keys spread evenly and a member that leaves hands its keys to
// all the others rather than to one neighbour.
const VirtualNodes = 64

// Member is one replica on the ring.
type Member struct {
	ID  string `json:"id"`
	URL string `json:"url"`
}

// Ring maps keys to members by consistent hashing.
type Ring struct {
	points []point // sorted by hash
}

type point struct {
	hash   uint64
	member Member
}

// New builds the ring of members, each with VirtualNodes points.
func New(members []Member) Ring {
	var r Ring
	for _, m := range members {
		for i := 0; i < VirtualNodes; i++ {
			r.points = append(r.points, point{hash: hashOf(m.ID + "#" + strconv.Itoa(i)), member: m})
		}
	}
	sort.Slice(r.points, func(i, j int) bool {
		if r.points[i].hash != r.points[j].hash {
			return r.points[i].hash < r.points[j].hash
		}
		return r.points[i].member.ID < r.points[j].member.ID
	})
	return r
}

// Owner is the member that owns key: the first point at or after the key's
// hash, going round. ok is false on an empty ring.
func (r Ring) Owner(key string) (m Member, ok bool) {
	if len(r.points) == 0 {
		return Member{}, false
	}
	h := hashOf(key)
	i := sort.Search(len(r.points), func(i int) bool { return r.points[i].hash >= h })
	if i == len(r.points) {
		i = 0
	}
	return r.points[i].member, true
}

// hashOf is the first 8 bytes of SHA-256: stable across processes and
// versions (every replica must compute the same owner) and well mixed. Not
// FNV-1a: keys that differ only in their last digits (sale:7, sale:8) get
// FNV hashes within a hair of each other, so consecutive sales all landed
// on one owner.
func hashOf(s string) uint64 {
	sum := sha256.Sum256([]byte(s))
	return binary.BigEndian.Uint64(sum[:8])
}
