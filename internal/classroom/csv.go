package classroom

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/internal/catalogue"
)

// bom opens the file: spreadsheet programs read the Chinese setups as
// UTF-8 only when it is there.
const bom = "\uFEFF"

// WriteCSV writes s's questions, one row each: what was asked, the votes
// (per outcome once revealed; blank before, as the API hides them), what
// the run showed and how many chose it. Observed must be filled.
func WriteCSV(w io.Writer, s Session) error {
	if _, err := io.WriteString(w, bom); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	head := []string{"session", "session_title", "question", "lesson", "case", "run", "setup_en", "setup_zh", "status", "votes"}
	head = append(head, catalogue.Outcomes...)
	head = append(head, "observed", "chose_observed", "sale_id", "lesson_run_id", "run_id", "asked_at", "revealed_at")
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, q := range s.Questions {
		if err := cw.Write(csvRow(s, q)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func csvRow(s Session, q Question) []string {
	row := []string{fmt.Sprint(s.ID), inert(s.Title), fmt.Sprint(q.ID), q.Lesson, blankZero(q.Case), string(q.Run),
		q.Setup.En, q.Setup.Zh, q.Status, strconv.Itoa(q.Votes)}
	for _, o := range catalogue.Outcomes {
		if q.Tally == nil {
			row = append(row, "")
		} else {
			row = append(row, strconv.Itoa(q.Tally[o]))
		}
	}
	observed, chose, sale := "", "", ""
	if o := q.Observed; o != nil {
		observed, sale = o.Outcome, blankZero(int(o.SaleID))
		if o.Outcome != "" && q.Tally != nil {
			chose = strconv.Itoa(q.Tally[o.Outcome])
		}
	}
	return append(row, observed, chose, sale, idOrBlank(q.LessonRunID), idOrBlank(q.RunID), stamp(&q.CreatedAt), stamp(q.RevealedAt))
}

func blankZero(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func idOrBlank(id *uint64) string {
	if id == nil {
		return ""
	}
	return strconv.FormatUint(*id, 10)
}

func stamp(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// inert keeps a typed text a text in a spreadsheet: one that opens like a
// formula gets a leading apostrophe.
func inert(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
