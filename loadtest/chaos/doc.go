// Package chaos is `loadtest chaos`, a Jepsen-style run: buyers order on
// every safe strategy while a seeded, random schedule of faults runs, then
// the database is checked against every answer a buyer got.
//
//   - Command: the subcommand (flags.go parses and checks its flags; the
//     replay line prints them back);
//   - the schedule (schedule.go: the fault kinds, Kinds, and the seeded
//     plan) and the nemesis that runs it (nemesis.go, zk.go);
//   - the cluster of shop replicas it starts behind TCP proxies
//     (cluster.go);
//   - the checker: every acknowledged order in the database, no oversale,
//     no stuck unit (check.go, stuck.go), and the queue's tickets and
//     orders judged with the stream's durability (queue.go,
//     queue_check.go);
//   - the report (report.go).
package chaos
