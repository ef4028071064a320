// Package lessons is what every lesson script runs on: each lesson of the
// catalogue (internal/lessons: names, predictions, seeds) is replayed
// against running shop replicas with faults, the database read back, PASS
// when it agrees with the prediction. The scripts themselves are in the
// families leaselessons, failoverlessons and contentionlessons; package
// all assembles them and is `loadtest scenario`.
//
//   - Scenario, ScenarioRun, Script and RunOne (scenario.go): a lesson with
//     its script, what it runs against, one lesson run; the shared steps
//     Fault, WaitPaused, StalledOrder, Settled, Quiescent and
//     BrokenThenHeld;
//   - NewScenarioRun, Sales, Cases and CaseTable (cases.go): the sales a
//     run made and their table;
//   - Next and Rounds (classpace.go): the class pace;
//   - OrderAsync, Last, Warm and Burst (orders.go): sending orders;
//   - HoldAndFault and OverlapWhileHeld (hold.go): a holder stalled while a
//     fault is made;
//   - LossTrail, LeaseEvent and EnterBeside (leasetrail.go): what the lease
//     events show;
//   - GetsetGaps, WaitGaps and Held (gaps.go), LockRow (lockrow.go),
//     ReplicaName (names.go), Describe and KindList (describe.go);
//   - Skipped and SkipOf (skip.go): a lesson whose backend is missing.
package lessons
