package tcp

import (
	"time"

	"github.com/mpigo/mpigo/internal/transport"
)

// Cost models, set from loopback measurements on the development machine with the
// engine on top and TCP forced (the figures and how they were taken: docs/BENCHMARKS.md,
// TCP). Eager: the small-packet latency, and the slope up to 32 KiB. Pipeline: the
// request round trip, then the streaming rate of MaxPayload fragments. Across real
// networks these are optimistic; what matters for the engine is their shape: over TCP,
// eager is the cheaper protocol up to its limit, and pipeline exists to bound the
// receiver's buffering of unexpected data.
const (
	eagerFixed        = 4 * time.Microsecond
	eagerBandwidth    = 12.0e9
	eagerMax          = 64 << 10
	pipelineFixed     = 10 * time.Microsecond
	pipelineBandwidth = 9.0e9
)

var modelTable = []transport.Model{
	{Protocol: transport.Eager, MinSize: 0, MaxSize: eagerMax, Fixed: eagerFixed, Bandwidth: eagerBandwidth},
	{Protocol: transport.Pipeline, MinSize: 0, MaxSize: 0, Fixed: pipelineFixed, Bandwidth: pipelineBandwidth},
}

// models is the same for every endpoint: one table, shared; callers must not modify it.
func (t *Transport) models() []transport.Model { return modelTable }
