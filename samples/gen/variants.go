package main

// variants are the variety samples, in the order the generator writes them.
var variants = []variant{
	{name: "barrier-stall-v1", seed: 0x51b10, build: buildVBarrierStall1,
		rule: "barrier-stall-slow-compute-node", subject: "streams-risingwave-compute-2", severity: "critical"},
	{name: "barrier-stall-v2", seed: 0x51b23, build: buildVBarrierStall2,
		rule: "barrier-stall-slow-compute-node", subject: "fraud-compute-0", severity: "critical"},
	{name: "barrier-stall-v3", seed: 0x51b30, build: buildVBarrierStall3,
		rule: "barrier-stall-slow-compute-node", subject: "ledger-risingwave-compute-1", severity: "critical"},
	{name: "offset-replay-v1", seed: 0x0ff510, build: buildVOffsetReplay1,
		rule: "kafka-offset-replay-after-meta-restart", subject: "src_orders"},
	{name: "offset-replay-v2", seed: 0x0ff525, build: buildVOffsetReplay2,
		rule: "kafka-offset-replay-after-meta-restart", subject: "src_orders"},
	{name: "offset-replay-v3", seed: 0x0ff530, build: buildVOffsetReplay3,
		rule: "kafka-offset-replay-after-meta-restart", subject: "src_orders"},
	{name: "oom-crash-loop-v1", seed: 0x00a110, build: buildVOOMCrashLoop1,
		rule: "compute-oom-crash-loop", subject: "clicks-risingwave-compute-0", severity: "critical"},
	{name: "oom-crash-loop-v2", seed: 0x00a125, build: buildVOOMCrashLoop2,
		rule: "compute-oom-crash-loop", subject: "sessions-compute-0", severity: "critical"},
	{name: "oom-crash-loop-v3", seed: 0x00a130, build: buildVOOMCrashLoop3,
		rule: "compute-oom-crash-loop", subject: "feed-risingwave-compute-0", severity: "critical"},
}
