package claims

import (
	"strings"
	"testing"
)

func TestJudgeSaysWhatIsMissing(t *testing.T) {
	c := Judge(map[string]float64{"redis": 3000, "db-lock-table": 0}, "run #7")
	if c[0].Verdict != NotMeasured || !strings.Contains(c[0].Measured, "zookeeper") ||
		!strings.Contains(c[0].Measured, "a database lock") || !strings.HasPrefix(c[0].Measured, "run #7") {
		t.Errorf("ranking: %+v", c[0])
	}
	if c[1].Verdict != NotMeasured {
		t.Errorf("ceiling: %+v", c[1])
	}
}

func TestJudgeUsesTheBestDatabaseLock(t *testing.T) {
	c := Judge(map[string]float64{"redis": 3000, "zookeeper": 600, "db-pessimistic": 700, "db-lock-table": 50}, "x")
	if c[0].Verdict != DoesNotHold || !strings.Contains(c[0].Measured, "db-pessimistic 700/s") {
		t.Errorf("ranking: %+v", c[0])
	}
	if c[1].Verdict != Holds || !strings.Contains(c[1].Measured, "db-lock-table 50/s") {
		t.Errorf("ceiling: %+v", c[1])
	}
}
