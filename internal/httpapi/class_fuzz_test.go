package httpapi

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/seckill-lab/seckill/internal/classroom"
)

// fuzzQuestion opens a question in the fuzz database.
func fuzzQuestion(f *testing.F, e *env) classroom.Question {
	var sess classroom.Session
	mustJSON(f, e.post("/api/class/sessions", `{}`), &sess)
	var q classroom.Question
	mustJSON(f, e.post(fmt.Sprintf("/api/class/sessions/%d/questions", sess.ID), `{"lesson":"mutex-across-replicas","case":1,"max_votes":1000}`), &q)
	return q
}

// A phone's vote, fuzzed: never a 5xx, a 4xx writes no vote. Each request
// comes from another address behind a trusted proxy, so that the vote
// limit (429) does not hide the decoding.
func FuzzClassVote(f *testing.F) {
	trusted, err := NewClientIPs("192.0.2.1", HeaderXForwardedFor)
	if err != nil {
		f.Fatal(err)
	}
	e := fuzzEnv(f, withClientIPs(trusted))
	q := fuzzQuestion(f, e)
	var n atomic.Int64
	fuzzEndpoint(f, e, endpoint{method: http.MethodPut, path: fmt.Sprintf("/api/class/questions/%d/vote", q.ID),
		state: func(t *testing.T) string {
			return e.rows(t, "SELECT HEX(voter), outcome FROM class_votes WHERE question_id = ? ORDER BY voter", q.ID)
		},
		after: func(t *testing.T, status int) {
			if status < 300 {
				e.db.Exec("DELETE FROM class_votes WHERE question_id = ?", q.ID)
			}
		},
		header: func() string {
			i := n.Add(1)
			return fmt.Sprintf("X-Forwarded-For: 10.%d.%d.%d", i>>16&255, i>>8&255, i&255)
		},
	},
		`{"voter":"0123456789abcdef0123456789abcdef","outcome":"holds"}`,
		`{"voter":"0123456789ABCDEF0123456789ABCDEF","outcome":"holds"}`,
		`{"voter":"0123456789abcdef0123456789abcde","outcome":"holds"}`,
		`{"voter":"0123456789abcdef0123456789abcdef0","outcome":"holds"}`,
		`{"voter":"0123456789abcdef0123456789abcdeg","outcome":"broken"}`,
		`{"voter":"0123456789abcdef0123456789abcdef","outcome":"Holds"}`,
		`{"voter":"0123456789abcdef0123456789abcdef","outcome":"holds "}`,
		`{"voter":"0123456789abcdef0123456789abcdef","outcome":""}`,
		`{"voter":"0123456789abcdef0123456789abcdef","outcome":null}`,
		`{"voter":"０123456789abcdef0123456789abcdef","outcome":"stopped"}`,
		`{"voter":"0123456789abcdef0123456789abcdef"}`,
		`{"voter":1e40,"outcome":"holds"}`,
	)
}

// Asking a question, fuzzed: never a 5xx, a 4xx opens no question.
func FuzzClassAsk(f *testing.F) {
	e := fuzzEnv(f)
	q := fuzzQuestion(f, e)
	fuzzEndpoint(f, e, endpoint{method: http.MethodPost, path: fmt.Sprintf("/api/class/sessions/%d/questions", q.SessionID),
		state: func(t *testing.T) string {
			return e.rows(t, "SELECT COALESCE(MAX(id), 0) FROM class_questions")
		},
	},
		`{"lesson":"mutex-across-replicas","case":2}`,
		`{"lesson":"mutex-across-replicas","case":0}`,
		`{"lesson":"mutex-across-replicas","case":-1}`,
		`{"lesson":"mutex-across-replicas","case":2147483648}`,
		`{"lesson":"mutex-across-replicas","case":1,"minutes":9223372036854775807}`,
		`{"lesson":"mutex-across-replicas","case":1,"max_votes":1001}`,
		`{"lesson":"mutex-across-replicas","case":1,"pace":"class"}`,
		`{"lesson":"MUTEX-across-replicas","case":1}`,
		`{"lesson":"mutex-across-replicas\u0000","case":1}`,
		`{"run":{"strategy":"none","stock":5,"buyers":10}}`,
		`{"run":{"strategy":"all","stock":5,"buyers":10}}`,
		`{"run":{"strategy":"none","stock":5,"buyers":10,"extra":1}}`,
		`{"run":null,"lesson":"mutex-across-replicas","case":1}`,
		`{"run":[],"lesson":"mutex-across-replicas","case":1}`,
		`{"run":"x"}`,
	)
}
