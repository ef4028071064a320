package history

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// on is op served by replica.
func on(o Op, replica string) Op { o.ReplicaID = replica; return o }

// The drawing names its rows by replica (a replica's second row when it
// served two requests at once), says the sale and the verdict in words and
// how to read it, in English or Chinese.
func TestVisualizeNamesRowsAndSaysTheVerdict(t *testing.T) {
	ops := []Op{on(left(op(1, 0, 10, OK), 4), "replica-2"), on(left(op(2, 1, 11, OK), 4), "replica-1"),
		on(op(3, 2, 12, OK), "replica-1"), on(op(4, 20, 21, Refused), "replica-1")}
	var en, zh bytes.Buffer
	if err := Visualize(&en, ops, 5, time.Second, Page{Sale: "Sale 7 (<b>x</b>, none)"}); err != nil {
		t.Fatal(err)
	}
	if err := Visualize(&zh, ops, 5, time.Second, Page{Sale: "秒杀场次 7", Zh: true}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<h1 style="font-size:1.6rem;margin:.2rem 0">Sale 7 (&lt;b&gt;x&lt;/b&gt;, none): History check</h1>`,
		"Orders 101 and 102 both left the stock at 4", "How to read it: one row per replica",
		`const rowNames = ["replica-1","replica-1 (row 2)","replica-2"]`, "rowName(i) :", `viewBox="0 0 720 20"`,
	} {
		if !strings.Contains(en.String(), want) {
			t.Errorf("the English page has no %q", want)
		}
	}
	if strings.Contains(en.String(), "<b>x</b>") {
		t.Error("the sale's name is not escaped")
	}
	for _, want := range []string{`<html lang="zh-CN">`, "历史检查（可线性化检查）", "订单 101、102 写入后库存都是 4", "读图方法",
		`"replica-1（第 2 行）"`} {
		if !strings.Contains(zh.String(), want) {
			t.Errorf("the Chinese page has no %q", want)
		}
	}
	var ok bytes.Buffer
	if err := Visualize(&ok, []Op{op(1, 0, 10, OK)}, 5, time.Second, Page{Sale: "Sale 8"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ok.String(), LinearizableText.En) {
		t.Error("a linearizable sale's page does not say it in words")
	}
}
