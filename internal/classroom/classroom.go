// Package classroom is the class's predictions: a trainer opens a question
// (a lesson's case, or a run set up on the Run form), students vote from
// their phones for one of catalogue.Outcomes without seeing the others'
// votes, and the reveal starts the run; its observed outcome then stands
// beside the class's answers. Votes are anonymous (a phone's random id,
// hashed) and bounded (a question closes after its minutes or its votes).
//
//   - classroom.go: the bounds, Session, Question, Ask and its checks
//   - store.go: Store: sessions and questions, their reads
//   - vote.go: Vote, one per phone per question, and the voter's id
//   - reveal.go: the reveal's two steps around starting the run
//   - observed.go: what a lesson case or a run showed, as an outcome
//   - setup.go: a run's setup in one sentence
//   - csv.go: a session's questions and tallies as CSV
package classroom

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/internal/clip"
)

// Bounds of a question.
const (
	DefaultMinutes  = 5
	MaxMinutes      = 60
	DefaultMaxVotes = 200
	MaxVotes        = 1000
	// MaxTitleLen is a session title's length in characters
	// (class_sessions.title is VARCHAR(100)).
	MaxTitleLen = 100
	// ListLimit is how many sessions GET /api/class/sessions shows.
	ListLimit = 20
)

// Statuses of a question as shown: open takes votes; closed is open in
// the table but past its minutes or full; revealing is starting its run;
// revealed has its run (and its tally shown).
const (
	StatusOpen      = "open"
	StatusClosed    = "closed"
	StatusRevealing = "revealing"
	StatusRevealed  = "revealed"
)

// Errors of the store; httpapi maps each to its answer.
var (
	ErrNoSession  = errors.New("classroom: no such session")
	ErrNoQuestion = errors.New("classroom: no such question")
	// ErrClosed: the question takes no more votes (revealed, past its
	// minutes, or full).
	ErrClosed = errors.New("classroom: the question is closed")
	// ErrRevealed: the question was revealed already (or is being).
	ErrRevealed = errors.New("classroom: the question was revealed already")
	// ErrInvalid is what every *FieldError is.
	ErrInvalid = errors.New("classroom: invalid field")
)

// Session is a class's set of questions.
type Session struct {
	ID        uint64     `json:"id"`
	Title     string     `json:"title"`
	CreatedAt time.Time  `json:"created_at"`
	Questions []Question `json:"questions"`
}

// Question is one prediction asked of the class, as the API shows it: the
// tally is null until the reveal, so no phone and no projector learns
// what the others chose before the run.
type Question struct {
	ID        uint64 `json:"id"`
	SessionID uint64 `json:"session_id"`
	// Lesson and Case (1-based) for a lesson's case; Run (the body of
	// POST /api/runs) for a run the trainer set up.
	Lesson   string             `json:"lesson,omitempty"`
	Case     int                `json:"case,omitempty"`
	Run      json.RawMessage    `json:"run,omitempty"`
	Setup    catalogue.Texts    `json:"setup"`
	Choices  []catalogue.Choice `json:"choices"`
	Pace     string             `json:"pace"`
	MaxVotes int                `json:"max_votes"`
	ClosesAt time.Time          `json:"closes_at"`
	Status   string             `json:"status"`
	Votes    int                `json:"votes"`
	// Tally is the votes per outcome (every outcome, zeros too) once
	// revealed; nil before.
	Tally       map[string]int `json:"tally"`
	LessonRunID *uint64        `json:"lesson_run_id"`
	RunID       *uint64        `json:"run_id"`
	CreatedAt   time.Time      `json:"created_at"`
	RevealedAt  *time.Time     `json:"revealed_at"`
	// Observed is what the revealed run showed (null before the reveal);
	// the API fills it (observed.go says how).
	Observed *Observed `json:"observed"`
}

// Ask is a question to open: a lesson's case or a run, with its bounds.
type Ask struct {
	Lesson string
	Case   int
	// Run is the run's body, already validated by whoever starts runs;
	// RunSetup its setup sentence (RunSetup in setup.go).
	Run      json.RawMessage
	RunSetup catalogue.Texts
	Pace     string
	Minutes  int
	MaxVotes int
}

// FieldError names the member of an Ask (or a vote) that is wrong.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// Is makes every FieldError an ErrInvalid.
func (e *FieldError) Is(target error) bool { return target == ErrInvalid }

// setup is a's setup sentence and choices: the lesson case's words, or
// the run's.
func (a Ask) setup() (catalogue.Texts, []catalogue.Choice, error) {
	if a.Run != nil {
		if a.Lesson != "" || a.Case != 0 {
			return catalogue.Texts{}, nil, &FieldError{"run", "a question asks about a lesson's case or a run, not both"}
		}
		return a.RunSetup, catalogue.CaseQuestion{}.Choices(), nil
	}
	if a.Lesson == "" {
		return catalogue.Texts{}, nil, &FieldError{"lesson", "lesson (with case) or run is required"}
	}
	if _, ok := catalogue.Find(a.Lesson); !ok {
		return catalogue.Texts{}, nil, &FieldError{"lesson", "no lesson " + clipName(a.Lesson) + "; GET /api/lessons lists them"}
	}
	qs := catalogue.CaseQuestions(a.Lesson)
	if a.Case < 1 || a.Case > len(qs) {
		return catalogue.Texts{}, nil, &FieldError{"case", caseRange(a.Lesson, len(qs))}
	}
	q := qs[a.Case-1]
	return q.Setup, q.Choices(), nil
}

// bounds fills a's defaults and checks its minutes, votes and pace.
func (a *Ask) bounds() error {
	if a.Minutes == 0 {
		a.Minutes = DefaultMinutes
	}
	if a.MaxVotes == 0 {
		a.MaxVotes = DefaultMaxVotes
	}
	switch {
	case a.Run != nil:
		a.Pace = "" // a run runs as the Run form set it up
	case a.Pace == "":
		a.Pace = catalogue.PaceClass
	}
	switch {
	case a.Minutes < 1 || a.Minutes > MaxMinutes:
		return &FieldError{"minutes", "minutes must be between 1 and 60"}
	case a.MaxVotes < 1 || a.MaxVotes > MaxVotes:
		return &FieldError{"max_votes", "max_votes must be between 1 and 1000"}
	case a.Run == nil && !catalogue.ValidPace(a.Pace):
		return &FieldError{"pace", "pace must be normal or class"}
	}
	return nil
}

func clipName(s string) string { return fmt.Sprintf("%q", clip.Input(s)) }

func caseRange(lesson string, n int) string {
	return fmt.Sprintf("case must be between 1 and %d: lesson %s has %d cases", n, lesson, n)
}
