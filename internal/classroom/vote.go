package classroom

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"regexp"
	"slices"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/catalogue"
)

// voterPattern is a phone's id: 32 lowercase hex digits (128 random bits
// the vote page makes once and keeps). One spelling only, so the same
// phone is the same voter in Go and in the database whatever its
// collation.
var voterPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

// voterKey is what the table keeps of a phone's id: its SHA-256, so the
// table holds nothing a reader could vote with.
func voterKey(voter string) []byte {
	sum := sha256.Sum256([]byte(voter))
	return sum[:]
}

// CheckVote says what is wrong with a vote's members, before any read.
func CheckVote(voter, outcome string) error {
	if !voterPattern.MatchString(voter) {
		return &FieldError{"voter", "voter must be 32 lowercase hex digits (the vote page makes one per phone)"}
	}
	if !slices.Contains(catalogue.Outcomes, outcome) {
		return &FieldError{"outcome", fmt.Sprintf("outcome must be one of %v", catalogue.Outcomes)}
	}
	return nil
}

// Vote records voter's outcome on question id, or changes it: one vote per
// phone, until the reveal. ErrClosed when the question was revealed, is
// past its minutes, or is full (a new voter; a phone that voted may still
// change its vote). It returns the question's vote count.
func (s *Store) Vote(ctx context.Context, id uint64, voter, outcome string) (int, error) {
	if err := CheckVote(voter, outcome); err != nil {
		return 0, err
	}
	key := voterKey(voter)
	var votes int64
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// The question's row locked: votes and the reveal of one question
		// serialise here, so no vote lands after the reveal read the tally.
		row, err := s.row(ctx, tx, id, true)
		if err != nil {
			return err
		}
		if row.Status != StatusOpen || !row.Open {
			return ErrClosed
		}
		var mine int64
		if err := tx.Raw(`SELECT COUNT(*) FROM class_votes WHERE question_id = ? AND voter = ?`, id, key).Scan(&mine).Error; err != nil {
			return err
		}
		if err := tx.Raw(`SELECT COUNT(*) FROM class_votes WHERE question_id = ?`, id).Scan(&votes).Error; err != nil {
			return err
		}
		if mine > 0 {
			return tx.Exec(`UPDATE class_votes SET outcome = ?, updated_at = UTC_TIMESTAMP(6) WHERE question_id = ? AND voter = ?`,
				outcome, id, key).Error
		}
		if votes >= int64(row.MaxVotes) {
			return ErrClosed
		}
		votes++
		return tx.Exec(`INSERT INTO class_votes (question_id, voter, outcome, created_at, updated_at)
			VALUES (?, ?, ?, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))`, id, key, outcome).Error
	})
	if err != nil {
		if errors.Is(err, ErrClosed) || errors.Is(err, ErrNoQuestion) {
			return 0, err
		}
		return 0, fmt.Errorf("classroom: vote: %w", err)
	}
	return int(votes), nil
}
