// Package agent is `loadtest agent`: a long-running load-test replica that
// registers with the shop (a heartbeat in the replicas table), claims its
// share of each run created with POST /api/runs and executes it with the
// load engine, and claims the lessons the dashboard queues and runs them.
// It reports to the shop's API only; it has no database access.
//
//   - agent.go: the command's flags, the heartbeat, and the control client
//     that fails over between the shop's replicas;
//   - share.go: one run share: the targets, the buyers, the moving deadline
//     and the reports sent every second;
//   - lesson.go: claiming a queued lesson, running its script, reporting.
package agent
