package core

import (
	"fmt"
	"strings"
)

// describer is implemented by transports that can say what they found (shm: memory
// backing, single copy, calibrated speeds; tcp: addresses).
type describer interface{ Describe() string }

// TransportInfo describes the transports this rank uses and, for up to max peers, the
// protocol each message size takes to them and why (the cost model of each range), as
// UCX_PROTO_INFO does. `mpigo info` prints it from a two-rank probe job, with the
// windows' routes and World's collective table.
func TransportInfo(max int) (string, error) {
	if err := Ready("TransportInfo"); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, t := range transports {
		line := t.Name()
		if d, ok := t.(describer); ok {
			line += ": " + d.Describe()
		}
		fmt.Fprintf(&b, "transport %s\n", line)
	}
	shown := 0
	for r := 0; r < World.size && shown < max; r++ {
		if r == World.rank {
			continue
		}
		tab, err := eng.Protocols(r)
		if err != nil {
			return "", MapErr("TransportInfo", err)
		}
		b.WriteString(tab.String())
		shown++
	}
	return b.String(), nil
}
