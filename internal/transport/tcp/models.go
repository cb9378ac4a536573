package tcp

import (
	"time"

	"github.com/mpigo/mpigo/internal/transport"
)

// Cost models, measured on loopback on the development machine (2 vCPU KVM guest,
// shared with other jobs, so the best of five rounds is taken):
//
//	go test -c -o /tmp/tcp.test ./internal/transport/tcp
//	/tmp/tcp.test -test.run XXX -test.bench TwoProcess -test.benchtime 1s
//
// one-way 8 B 8.7 us, 4 KiB 7.4 us, 256 KiB 71 us, 1 MiB 344 us; streaming 1 MiB
// messages 2.7 GB/s. Eager: the small-packet latency, and the slope up to 256 KiB.
// Pipeline: a request round trip more, then the streaming rate of MaxPayload
// fragments. Across real networks these are optimistic; what matters for the engine
// is their shape: over TCP, eager is the cheaper protocol up to its limit, and
// pipeline exists to bound the receiver's buffering of unexpected data.
const (
	eagerFixed        = 9 * time.Microsecond
	eagerBandwidth    = 4.0e9
	eagerMax          = 64 << 10
	pipelineFixed     = 27 * time.Microsecond
	pipelineBandwidth = 3.0e9
)

var modelTable = []transport.Model{
	{Protocol: transport.Eager, MinSize: 0, MaxSize: eagerMax, Fixed: eagerFixed, Bandwidth: eagerBandwidth},
	{Protocol: transport.Pipeline, MinSize: 0, MaxSize: 0, Fixed: pipelineFixed, Bandwidth: pipelineBandwidth},
}

// models is the same for every endpoint: one table, shared; callers must not modify it.
func (t *Transport) models() []transport.Model { return modelTable }
