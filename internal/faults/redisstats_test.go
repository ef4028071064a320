package faults

import "testing"

// parseRedisStats sums every command's calls, keeps them by name and reads
// the CPU seconds; other lines are ignored.
func TestParseRedisStats(t *testing.T) {
	info := "# Commandstats\r\ncmdstat_set:calls=5,usec=10,usec_per_call=2.00,rejected_calls=0,failed_calls=0\r\n" +
		"cmdstat_client|setinfo:calls=2,usec=1\r\ncmdstat_info:calls=1,usec=30\r\n\r\n# CPU\r\n" +
		"used_cpu_sys:0.250000\r\nused_cpu_user:1.500000\r\nused_cpu_sys_children:9.0\r\n"
	st := parseRedisStats(info)
	if st.Commands != 8 || st.ByName["set"] != 5 || st.ByName["client|setinfo"] != 2 || st.ByName["info"] != 1 {
		t.Errorf("commands %d by name %v, want 8: set 5, client|setinfo 2, info 1", st.Commands, st.ByName)
	}
	if st.CPUSys != 0.25 || st.CPUUser != 1.5 {
		t.Errorf("cpu sys %v user %v, want 0.25 and 1.5", st.CPUSys, st.CPUUser)
	}
}
