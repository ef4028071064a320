package metrics

// quorumRounds are the quorum rounds of a sale's lock acquisitions (redlock):
// Rounds/Acquisitions is the rounds per acquisition, Split the rounds that
// failed because the masters' votes split among contenders (the herd
// livelock of the lesson redlock-herd). Zero for every other strategy.
type quorumRounds struct {
	Acquisitions int64 `json:"acquisitions"`
	Rounds       int64 `json:"rounds"`
	Split        int64 `json:"split"`
}

func (q quorumRounds) add(o quorumRounds) quorumRounds {
	return quorumRounds{Acquisitions: q.Acquisitions + o.Acquisitions, Rounds: q.Rounds + o.Rounds, Split: q.Split + o.Split}
}
