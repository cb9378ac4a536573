package launch

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"

	"github.com/mpigo/mpigo/internal/wireup"
)

// Messages between a launcher and its agents, over the agent's standard input (down)
// and output (up), framed as the wire-up protocol frames are. Fences use the wire-up
// message types themselves (MsgFenceUp, MsgFenceDn): to a collector an agent is a child
// like a rank, covering a span of ranks.
const (
	msgSpec    byte = 16 // down: the agent's job description (JSON)
	msgSignal  byte = 17 // down: signal number (uvarint) for every rank of the subtree
	msgOutput  byte = 18 // up: rank (uvarint), stream (1 stdout, 2 stderr), whole lines
	msgExit    byte = 19 // up: rank, pid, wait status (uvarints), flags (1 hello, 2 finalized), the crash line (child.crash)
	msgAbort   byte = 20 // up: rank, pid (uvarints), then MsgAbort's body: code (varint), kind (wireup.AbortCall or AbortError), message
	msgFailure byte = 21 // up: host index (uvarint), what went wrong (text)
	msgStats   byte = 22 // up, last: node id, fences, bytes up, bytes down (uvarints) of one agent
	msgQuery   byte = 23 // down: ask every rank of the subtree where it is (wireup.MsgQuery)
	msgRank    byte = 24 // up: rank (uvarint), wire-up type (MsgState or MsgReport), the rank's message
	msgAsked   byte = 25 // up: an agent's answer to msgQuery: its node id, then the ranks it asked (uvarints)
	msgAnswer  byte = 26 // down: rank (uvarint), then a wireup.MsgAnswer body for it (its request went up as msgRank)
	msgStarted byte = 27 // up, a spawned job's agents: node id (uvarint), what kept its ranks from starting ("": they started)
)

// agentSpec is what an agent needs to run its part of the job.
type agentSpec struct {
	JobID     string
	Apps      []App // the programs; Hosts are not sent (the layout says where each rank runs)
	Env       []string
	Settings  map[string]string
	NodeMap   string // the whole job's layout
	Hosts     []string
	Host      int      // this agent's node id
	Fanout    int      // children per agent in the launch tree
	Agent     []string // the launch agent command (ssh, or --launch-agent)
	AgentPath string   // the mpigo binary to run as agent on the children
	KillGrace int64    // nanoseconds

	Universe   int    // MPI_UNIVERSE_SIZE
	ParentPort string // a spawned job's: the port its ranks connect to
}

func writeJSON(w io.Writer, typ byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return wireup.WriteFrame(w, typ, b)
}

func readSpec(r io.Reader) (*agentSpec, error) {
	typ, body, err := wireup.ReadFrame(r, nil)
	if err != nil {
		return nil, fmt.Errorf("reading the job description: %v", err)
	}
	if typ != msgSpec {
		return nil, fmt.Errorf("expected the job description, got message type %d", typ)
	}
	s := new(agentSpec)
	if err := json.Unmarshal(body, s); err != nil {
		return nil, fmt.Errorf("job description: %v", err)
	}
	return s, nil
}

// treeChildren lists the children of node h in the launch tree over n nodes with the
// given fan-out; h = -1 is the root launcher. The tree is a heap: the root's children are
// 0..k-1, node h's are k(h+1)..k(h+1)+k-1, so its depth grows with log_k(n).
func treeChildren(h, n, k int) []int {
	var out []int
	first := k * (h + 1)
	for i := first; i < first+k && i < n; i++ {
		out = append(out, i)
	}
	return out
}

// subtree lists node h and all nodes below it, ascending.
func subtree(h, n, k int) []int {
	out := []int{h}
	for i := 0; i < len(out); i++ {
		out = append(out, treeChildren(out[i], n, k)...)
	}
	sortInts(out)
	return out
}

func sortInts(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

func appendUvarints(b []byte, vs ...uint64) []byte {
	for _, v := range vs {
		b = binary.AppendUvarint(b, v)
	}
	return b
}

// uvarints reads n uvarints from b and returns them and the rest.
func uvarints(b []byte, n int) ([]uint64, []byte, error) {
	out := make([]uint64, n)
	for i := range out {
		v, k := binary.Uvarint(b)
		if k <= 0 {
			return nil, nil, fmt.Errorf("truncated agent message")
		}
		out[i], b = v, b[k:]
	}
	return out, b, nil
}
