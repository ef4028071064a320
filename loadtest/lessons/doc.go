// Package lessons is the lesson scripts of `loadtest scenario` and of the
// agents: each lesson of the catalogue (internal/lessons: names,
// predictions, seeds) replayed against running shop replicas with faults,
// the database read back, PASS when it agrees with the prediction.
//
//   - Command, Scenarios, Runners and RunOne (scenario.go): the subcommand,
//     the lessons with their scripts, one lesson run;
//   - Skipped and SkipOf (skip.go): a lesson whose backend is missing;
//   - one file per family of scripts: db, dbsinglepoint, etcd, faults,
//     getset, getset_races, hashring, herd, locktable, more, queue,
//     reentrancy, renewal, replylost, sentinel, twolevel, zkensemble.
package lessons
