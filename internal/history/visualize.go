package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// Page is what the drawing's page says about itself: the sale it draws and
// the language of its heading and reading guide (porcupine's own labels
// stay English).
type Page struct {
	Sale string // e.g. "Sale #7 (flash) · redis"
	Zh   bool
}

// LinearizableText is the verdict of a linearizable sale in words, as the
// dashboard's History check panel says it.
var LinearizableText = Texts{
	En: "Every answer fits one order of events: the stock went down one unit at a time.",
	Zh: "每个应答都能排进同一个事件顺序：库存一次减少一件。",
}

// readingGuide tells a class how to read porcupine's drawing.
var readingGuide = Texts{
	En: "How to read it: one row per replica (a replica's second row holds the requests it was serving at the same time); " +
		"each box is one order request, from its arrival (left edge) to its answer (right edge), time running right. " +
		"Hover a box for the stock before and after it. A black mark (Valid LP) is where the answer fits one order of events; " +
		"a red one (Invalid LP) is where no order fits, and \"jump to first error\" goes there.",
	Zh: "读图方法：每个实例一行（同一实例同时处理的请求放在它的第二行）；每个方框是一个下单请求，左边是请求到达，右边是应答，时间向右走。" +
		"鼠标悬停在方框上可以看到它前后的库存。黑色标记（Valid LP）表示该应答能排进同一个事件顺序；" +
		"红色标记（Invalid LP）表示无法排进任何顺序，点击“jump to first error”跳到第一个错误。",
}

// Visualize writes porcupine's interactive drawing of the check of ops
// (HTML) to w, with a heading (the sale and the verdict in words), a guide
// to reading it, and its rows named by replica instead of 0, 1, 2.
func Visualize(w io.Writer, ops []Op, initialStock int64, bound time.Duration, p Page) error {
	res, info, checked := check(ops, initialStock, bound, true)
	if !checked { // the error says why: out of time, or an incomplete record
		return errors.New(res.Message.En)
	}
	var relevant []Op
	for _, op := range ops {
		if op.Outcome == OK || op.Outcome == SoldOut || op.Outcome == Unknown {
			relevant = append(relevant, op)
		}
	}
	_, _, keys := assignRows(relevant)
	var raw bytes.Buffer
	if err := porcupine.Visualize(stockModel(initialStock), info, &raw); err != nil {
		return err
	}
	page, err := dress(raw.String(), res, keys, p)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, page)
	return err
}

// dress post-processes porcupine's page (v1.3.1's template: see its
// visualization/index.html and index.js).
func dress(page string, res Result, keys []rowKey, p Page) (string, error) {
	pick := func(t Texts) string {
		if p.Zh {
			return t.Zh
		}
		return t.En
	}
	names := make([]string, len(keys))
	for i, k := range keys {
		switch {
		case k.Lane == 0:
			names[i] = k.Replica
		case p.Zh:
			names[i] = fmt.Sprintf("%s（第 %d 行）", k.Replica, k.Lane+1)
		default:
			names[i] = fmt.Sprintf("%s (row %d)", k.Replica, k.Lane+1)
		}
	}
	namesJSON, err := json.Marshal(names) // escapes <, > and &: safe inside a script
	if err != nil {
		return "", err
	}
	verdict := pick(res.Message)
	title, check := "history check", "History check"
	if res.Verdict == Linearizable {
		verdict = pick(LinearizableText)
	}
	if p.Zh {
		title, check = "历史检查", "历史检查（可线性化检查）"
	}
	lang := "en"
	if p.Zh {
		lang = "zh-CN"
	}
	// The margin keeps the heading below porcupine's legend, fixed at the top.
	head := fmt.Sprintf(`<header id="seckill-head" style="font-family:sans-serif;max-width:70rem;margin:40px 0 0">
<h1 style="font-size:1.6rem;margin:.2rem 0">%s: %s</h1>
<p id="seckill-verdict" style="font-size:1.25rem;font-weight:600;margin:.3rem 0">%s</p>
<p id="seckill-guide" style="font-size:1.05rem;margin:.3rem 0">%s</p>
</header>
`, html.EscapeString(p.Sale), check, html.EscapeString(verdict), html.EscapeString(pick(readingGuide)))
	edits := []struct{ old, new string }{
		{`<html lang="en">`, `<html lang="` + lang + `">`},
		{`<title>Porcupine</title>`, `<title>` + html.EscapeString(p.Sale+": "+title) + `</title>`},
		{"<body>\n", "<body>\n" + head},
		// The legend's svg was 660 wide: "[ jump to first error ]" was clipped.
		{`width="660" height="20" viewBox="0 0 660 20"`, `width="720" height="20" viewBox="0 0 720 20"`},
		{`<text x="0" y="10">Clients</text>`, `<text x="0" y="10">Rows</text>`},
		// The rows: porcupine numbers them by client id, here a replica's row.
		{`const tag = i < realClients ? i.toString() :`, `const tag = i < realClients ? rowName(i) :`},
		{`text.textContent = i < realClients ? i :`, `text.textContent = i < realClients ? rowName(i) :`},
		{"const data = ", "const rowNames = " + string(namesJSON) + "\n      function rowName(i) { return rowNames[i] ?? String(i) }\n\n      const data = "},
	}
	for _, e := range edits {
		if strings.Count(page, e.old) != 1 {
			return "", fmt.Errorf("porcupine's page changed: %q is not there once", e.old)
		}
		page = strings.Replace(page, e.old, e.new, 1)
	}
	return page, nil
}
