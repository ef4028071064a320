package interview

import "github.com/seckill-lab/seckill/internal/faultkind"

// Units of the figures.
var (
	perSecond = Text{"orders/s", "单/秒"}
	seconds   = Text{"s", "秒"}
	units     = Text{"units", "件"}
	times     = Text{"", "次"}
	answers   = Text{"answers", "个应答"}
)

// fromCase is a slot read from a lesson's case.
func fromCase(labelEn, labelZh string, unit Text, lesson, kase, field string) Slot {
	return Slot{Label: Text{labelEn, labelZh}, Unit: unit, Source: Source{Kind: FromLesson, Lesson: lesson, Case: kase, Field: field}}
}

// fromCell is a slot read from a matrix cell.
func fromCell(labelEn, labelZh string, unit Text, row string, fault faultkind.Name, field string) Slot {
	return Slot{Label: Text{labelEn, labelZh}, Unit: unit, Source: Source{Kind: FromMatrix, Row: row, Fault: fault, Field: field}}
}

// Questions is the path, in the order an interviewer asks: the guarantee,
// the hot row and the herd, the lock and its failures, then the order's
// life after the lock, and the estimate with the figures measured before.
var Questions = []Question{
	qOversell, qLocalLock, qHotRow, qCombining, qHerd, qWhichLock, qLockExpires, qPausedHolder,
	qFailover, qRedLock, qRedisFreezes, qDatabaseDown, qIdempotency, qPaymentTimeout, qReconciliation,
	qReplicaDies, qCapacity,
}
