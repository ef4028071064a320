package chaos

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/verdict"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// printChaos prints the tables and the replay line; it returns the exit code.
func printChaos(out io.Writer, f chaosFlags, configs []*chaosConfig, vs []chaosVerdict, n *nemesis, cl *cluster) int {
	broke := printVerdicts(out, configs, vs)
	printChaosQueue(out, configs, vs, n.restarts.list())
	printAnswerKinds(out, configs)
	printFaults(out, n, cl)
	noFault := n.injectedTotal() == 0 && n.planned > 0
	if noFault {
		fmt.Fprintf(out, "no fault took effect (are the replicas running with %s=on?): the run proved nothing\n", config.EnvFaults)
	}
	for _, h := range n.harm {
		fmt.Fprintf(out, "not healed: %s\n", h)
	}
	for _, d := range n.defects {
		fmt.Fprintf(out, "fault API error (not a refusal): %s\n", d)
	}
	fmt.Fprintf(out, "\nseed %d; replay this schedule: %s\n", f.seed, f.replay())
	if broke || noFault || len(n.harm) > 0 || len(n.defects) > 0 {
		fmt.Fprintln(out, "chaos: FAIL: an asserted configuration broke or sold nothing, no fault took effect, one did not heal, "+
			"or the fault API answered an error that is not a refusal (see above)")
		return load.ExitFail
	}
	fmt.Fprintln(out, "chaos: every asserted invariant held")
	return load.ExitOK
}

// printVerdicts prints one row per configuration; it reports whether an
// asserted one failed.
func printVerdicts(out io.Writer, configs []*chaosConfig, vs []chaosVerdict) (failed bool) {
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "CONFIGURATION\tASSERTED\tSALES\t201/202\tUNSURE\tSOLD(DB)\tOVERSOLD\tSTUCK\tLOST\tDUPLICATES\t201 NO ROW\tROW NO 201\tOVERLAPS\tFENCED\tSTORE DRIFT\tRECLAIMED\tLINEARIZABLE\tp99 ms\tDATA\tVERDICT\t")
	for i, c := range configs {
		v := vs[i]
		c.mu.Lock()
		orders, p99 := c.kinds[shopapi.KindOrder]+c.kinds[shopapi.KindAccepted], float64(c.hist.ValueAtQuantile(99))/1000
		c.mu.Unlock()
		verdict, fail := c.verdict(v)
		failed = failed || fail
		fmt.Fprintf(tw, "%s\t%v\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%.0f\t%s\t%s\t\n", c.name(), c.MustHold, v.Sales,
			orders, v.Unknown, v.Sold, v.Oversold, v.Stuck, v.LostUpdates, v.Duplicates, v.Missing, v.Phantom, v.Violations,
			v.FencedWrites, v.StoreDrift, v.Reclaimed, linearizableCell(v.Histories), p99, dataWord(v.data().Kind), verdict)
	}
	tw.Flush()
	fmt.Fprintln(out, "STUCK: units neither sold nor on sale once the sales settled; RECLAIMED: units a killed replica left in flight, settled by a reconciliation")
	fmt.Fprintln(out, "LINEARIZABLE: the shop's porcupine check of each sale's answers (yes: every sale; NO n: n sales not; ? n: n unfinished or unread);"+
		" shown, not asserted: answers a killed replica never recorded make a sale ?, and redis-lua-stock, which gives a unit back when"+
		" its persist fails, can truly tell a buyer sold out before a later buyer gets that unit (NO)")
	fmt.Fprintln(out, "DATA: the shop's verdict on the figures (holds: no overlap; overlapped, data safe: fencing or the database refused every stale write; BROKEN: oversold, lost or over the limit):")
	for i, c := range configs {
		fmt.Fprintf(out, "  %s: %s\n", c.name(), vs[i].data().ReasonEn)
	}
	var refused, soldTo int64
	for i, c := range configs {
		c.mu.Lock()
		refused += c.kinds["invalid_field"]
		c.mu.Unlock()
		soldTo += vs[i].BadBuyers
	}
	fmt.Fprintf(out, "LOOKALIKES: %d orders from ids that differ from a buyer's by a trailing space, a control character or U+FFFD were refused (400 user_id); %d were sold to (must be 0)\n", refused, soldTo)
	for i, c := range configs {
		for _, s := range vs[i].StuckSales {
			fmt.Fprintf(out, "stuck: %s: %s\n", c.name(), s)
		}
		if vs[i].Repaired > 0 {
			fmt.Fprintf(out, "repaired: %s: %d units of drift after a non-durable Redis restart\n", c.name(), vs[i].Repaired)
		}
	}
	return failed
}

// dataWord is a verdict kind for the table.
func dataWord(kind string) string {
	switch kind {
	case verdict.OverlappedSafe:
		return "overlapped, data safe"
	case verdict.Broken:
		return "BROKEN"
	}
	return kind
}

// printChaosQueue prints the async configurations' tickets: how each ended,
// the lost ones with the mode of the restart that excuses them, and the
// drift the reconciliation found once the queue had drained.
func printChaosQueue(out io.Writer, configs []*chaosConfig, vs []chaosVerdict, restarts []redisRestartRecord) {
	if !slices.ContainsFunc(configs, func(c *chaosConfig) bool { return c.Async }) {
		return
	}
	fmt.Fprintln(out, "\nqueue (202 tickets; LOST: 404 after a Redis restart whose mode excuses it; LOST ALWAYS breaks the promise;\n"+
		"STOCK LOST: sales whose Redis stock a restart left lost at the end, with no drift to compute until it is rebuilt;\n"+
		"REPAIRED: drift found after a non-durable restart and repaired; DRIFT and STOCKS APART are judged after the repair):")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "CONFIGURATION\t202\tCONFIRMED\tFAILED\tLOST\tLOST BY MODE\tLOST ALWAYS\tPENDING\tNO TICKET\tTWO ORDERS\tPAID LATE\tREPAIRED\tDRIFT\tSTOCKS APART\tSTOCK LOST\t")
	for i, c := range configs {
		q := vs[i].Queue
		if !c.Async || q == nil {
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", c.name(), q.Accepted, q.Confirmed, q.Failed,
			q.Lost, lostModes(q.LostBy), q.LostDurable, q.Pending, q.NoTicket, q.TwoOrders, q.PaidLate, q.Repaired, q.Drift, q.StockApart, q.StockLost)
	}
	tw.Flush()
	for i, c := range configs {
		if q := vs[i].Queue; c.Async && q != nil {
			for _, a := range q.Apart {
				fmt.Fprintf(out, "  %s: stocks apart: %s\n", c.name(), a)
			}
		}
	}
	byMode := map[string]int64{}
	for _, r := range restarts {
		byMode[r.Mode]++
	}
	fmt.Fprintf(out, "restarts of the default Redis by durability: %s\n", lostModes(byMode))
}

// verdict judges c by v: a broken invariant fails an asserted
// configuration and is expected of an unasserted one, and an asserted one
// that sold nothing proved nothing.
func (c *chaosConfig) verdict(v chaosVerdict) (verdict string, fail bool) {
	broken := v.broken()
	switch {
	case len(broken) > 0 && c.MustHold:
		return "FAIL: " + strings.Join(broken, ", "), true
	case len(broken) > 0:
		return "broke as expected without fencing: " + strings.Join(broken, ", "), false
	case v.Sold == 0 && (v.Queue == nil || v.Queue.Confirmed == 0) && c.MustHold:
		// A queued configuration proved something once a ticket became an
		// order, even if every such reservation then expired unpaid.
		return "FAIL: sold nothing, proved nothing", true
	case !c.MustHold:
		return "held (not asserted)", false
	}
	return "PASS", false
}

// printAnswerKinds prints each configuration's answers by kind, most
// frequent first.
func printAnswerKinds(out io.Writer, configs []*chaosConfig) {
	fmt.Fprintln(out, "\nanswers by kind (UNSURE: no answer, a timeout or a 5xx; the order may exist):")
	for _, c := range configs {
		c.mu.Lock()
		kinds := make([]string, 0, len(c.kinds))
		for k := range c.kinds {
			kinds = append(kinds, k)
		}
		slices.SortFunc(kinds, func(a, b string) int {
			return cmp.Or(cmp.Compare(c.kinds[b], c.kinds[a]), strings.Compare(a, b))
		})
		parts := make([]string, len(kinds))
		for i, k := range kinds {
			parts[i] = fmt.Sprintf("%s %d", k, c.kinds[k])
		}
		c.mu.Unlock()
		fmt.Fprintf(out, "  %-22s %s\n", c.name()+":", strings.Join(parts, ", "))
	}
}

// printFaults prints the faults injected and missed by kind, then the
// replicas the run had to start again.
func printFaults(out io.Writer, n *nemesis, cl *cluster) {
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FAULT\tINJECTED\tANSWER LOST (may have taken effect)\tNOT INJECTED (every try refused)\t"+
		"REFUSED TRIES (target down, backend not ready)\tOF THEM, BUSY (another process's fault under way)")
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, k := range Kinds {
		if n.injected[k]+n.lost[k]+n.missed[k] > 0 {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\n", k, n.injected[k], n.lost[k], n.missed[k], n.refused[k], n.busy[k])
		}
	}
	tw.Flush()
	for _, k := range Kinds {
		if n.injected[k] == 0 && n.missed[k] > 0 && n.reasons[k] != "" {
			fmt.Fprintf(out, "%s never took effect in this run; its last refusal: %s\n", k, n.reasons[k])
		}
	}
	if cl == nil {
		return
	}
	for _, r := range cl.replicas {
		if k := r.restartCount(); k > 0 {
			fmt.Fprintf(out, "%s was restarted %d times\n", r.name, k)
		}
	}
}
