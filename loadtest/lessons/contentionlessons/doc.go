// Package contentionlessons is the lesson scripts of one family: many
// buyers on one sale: which lock, which wait, which store.
//
//   - Runners (runners.go): each lesson of the family with its script;
//   - one file per lesson or group of lessons: combine, db, herd, locktable,
//     more, mutex, polling, queue, reentrancy, twolevel.
package contentionlessons
