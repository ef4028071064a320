package classroom

import (
	"context"
	"encoding/json"
	"fmt"
)

// Started is what a reveal started: a lesson run or a run.
type Started struct {
	LessonRunID uint64
	RunID       uint64
}

// Starter starts a question's run: the lesson at the question's pace, or
// the run from its body. The API passes the same starts the dashboard's
// buttons use.
type Starter interface {
	StartLesson(ctx context.Context, lesson, pace string) (uint64, error)
	StartRun(ctx context.Context, body json.RawMessage) (uint64, error)
}

// staleReveal is how long a question may stay revealing before another
// reveal may take it over: a replica that died between the two steps
// must not leave it so for ever.
const staleReveal = "INTERVAL 1 MINUTE"

// Reveal closes question id's votes and starts its run: first the
// question is taken (open → revealing, in one statement, so two reveals
// on two replicas cannot both start a run), then start runs it, then the
// run is recorded (revealed). A start that fails gives the question back
// (open) with start's error. ErrRevealed when it was revealed already.
func (s *Store) Reveal(ctx context.Context, id uint64, start Starter) (Question, error) {
	db := s.db.WithContext(ctx)
	res := db.Exec(`UPDATE class_questions SET status = 'revealing', revealed_at = UTC_TIMESTAMP(6)
		WHERE id = ? AND (status = 'open' OR (status = 'revealing' AND revealed_at < UTC_TIMESTAMP(6) - `+staleReveal+`))`, id)
	if res.Error != nil {
		return Question{}, fmt.Errorf("classroom: reveal: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		if _, err := s.row(ctx, s.db, id, false); err != nil {
			return Question{}, err
		}
		return Question{}, ErrRevealed
	}
	row, err := s.row(ctx, s.db, id, false)
	if err != nil {
		return Question{}, err
	}
	var lessonRun, run *uint64
	if row.RunSpec != nil {
		var rid uint64
		rid, err = start.StartRun(ctx, json.RawMessage(*row.RunSpec))
		run = &rid
	} else {
		var lid uint64
		lid, err = start.StartLesson(ctx, *row.Lesson, row.Pace)
		lessonRun = &lid
	}
	if err != nil {
		// Given back: the class can still vote and the trainer reveal again.
		s.db.Exec(`UPDATE class_questions SET status = 'open', revealed_at = NULL WHERE id = ? AND status = 'revealing'`, id)
		return Question{}, err
	}
	if err := db.Exec(`UPDATE class_questions SET status = 'revealed', lesson_run_id = ?, run_id = ? WHERE id = ?`,
		lessonRun, run, id).Error; err != nil {
		return Question{}, fmt.Errorf("classroom: reveal: %w", err)
	}
	return s.Question(ctx, id)
}
