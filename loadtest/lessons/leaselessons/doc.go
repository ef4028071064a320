// Package leaselessons is the lesson scripts of one family: a lock that
// expires, is lost or is released under its holder.
//
//   - Runners (runners.go): each lesson of the family with its script;
//   - one file per lesson or group of lessons: classpace, delowner, etcd,
//     faults, getset, getset_races, renewal, renewalpolicy, replylost, zk.
package leaselessons
