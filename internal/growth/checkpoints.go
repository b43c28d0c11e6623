package growth

// The checkpoint schedule: checkpoint j (from 1) is at min(j·every, target)
// records, so there are ceil(target/every) of them and the last is at the
// target. Inserts pause at each one for the sizes and the queries.

// Checkpoints is the number of checkpoints of a phase: ceil(target/every).
func Checkpoints(target, every int64) int64 {
	if target < 1 || every < 1 {
		return 0
	}
	return (target-1)/every + 1
}

// CheckpointRecords is the record count of checkpoint j (from 1).
func CheckpointRecords(target, every int64, j int) int64 {
	return min(int64(j)*every, target)
}
