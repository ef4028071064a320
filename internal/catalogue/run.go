package catalogue

import "time"

// Statuses and verdicts of a run.
const (
	StatusPending = "pending"
	StatusRunning = "running"
	StatusDone    = "done"

	VerdictPass  = "PASS"
	VerdictFail  = "FAIL"
	VerdictError = "ERROR"
	VerdictSkip  = "SKIP"
)

// RunTimeout is how long an agent may take over one lesson before the run is
// closed as ERROR (an agent that died mid-lesson never reports). The
// slowest lesson takes about 30 s with the default 10 s lock wait.
const RunTimeout = 3 * time.Minute

// Run is one execution of a lesson.
type Run struct {
	ID         uint64     `json:"id" gorm:"primaryKey"`
	Lesson     string     `json:"lesson"`
	Status     string     `json:"status"`
	Verdict    string     `json:"verdict"`
	Observed   string     `json:"observed"`
	Output     string     `json:"output"`
	Pace       string     `json:"pace"`                         // PaceNormal or PaceClass
	Cases      Cases      `json:"cases" gorm:"serializer:json"` // the result table, once done (null before)
	Sales      SaleIDs    `json:"sales" gorm:"serializer:json"` // the sales the scenario created so far, in order
	Next       *Next      `json:"next" gorm:"serializer:json"`  // at the class pace, the case that comes next (null when none; cleared when done)
	AgentID    *string    `json:"agent"`
	CreatedAt  time.Time  `json:"created_at"`
	StartedAt  *time.Time `json:"started_at"`
	Deadline   *time.Time `json:"-"`
	FinishedAt *time.Time `json:"finished_at"`
}

// Next is what a class-paced lesson shows next, said during the pause
// before it (loadtest/lessons' next, reported by the agent while the run
// runs): the sentence in English and Chinese and when the next case starts.
type Next struct {
	En string    `json:"en"`
	Zh string    `json:"zh"`
	At time.Time `json:"at"`
}

// TableName is the table of migrations/0009 (package lessondb).
func (Run) TableName() string { return "lesson_runs" }
