package lessondb

import (
	"context"
	"errors"
	"fmt"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/catalogue"
)

// NewestMeasured is the newest finished run of lesson with a result table
// and a verdict of its figures (PASS or FAIL: a SKIP or an ERROR measured
// nothing); ok is false when there is none. The interview path reads its
// figures from it.
func (s *Store) NewestMeasured(ctx context.Context, lesson string) (run catalogue.Run, ok bool, err error) {
	err = s.db.WithContext(ctx).Where("lesson = ? AND status = ? AND verdict IN ? AND cases IS NOT NULL",
		lesson, catalogue.StatusDone, []string{catalogue.VerdictPass, catalogue.VerdictFail}).Order("id DESC").Take(&run).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return catalogue.Run{}, false, nil
	}
	if err != nil {
		return catalogue.Run{}, false, fmt.Errorf("lessondb: newest measured: %w", err)
	}
	return utc(run), true, nil
}
