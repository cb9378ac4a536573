package launch

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/mpigo/mpigo/internal/prof"
)

// The picture of a profiled job, drawn by the launcher from the files the ranks wrote
// (rank-N.json: counters and matrix row; rank-N.events: the timeline): a summary as
// mpiP prints it, the communication matrix, a Chrome trace / Perfetto timeline, and
// one self-contained HTML page. A rank that wrote nothing (killed before it could) is
// named as missing; the others are drawn.

var pictureFiles = []string{"summary.txt", "matrix.csv", "trace.json", "profile.html"}

type picture struct {
	n      int
	ranks  []*prof.Profile // nil: the rank wrote no profile
	events [][]prof.Event  // per rank, Start and Dur converted to ns since t0
	t0     int64           // Unix ns of the earliest start
}

// readProfile reads what the ranks of an n-rank job wrote in dir.
func readProfile(dir string, n int) (*picture, error) {
	p := &picture{n: n, ranks: make([]*prof.Profile, n), events: make([][]prof.Event, n), t0: math.MaxInt64}
	found := 0
	for r := 0; r < n; r++ {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("rank-%d.json", r)))
		if err != nil {
			continue
		}
		pr := new(prof.Profile)
		if err := json.Unmarshal(b, pr); err != nil {
			continue
		}
		p.ranks[r] = pr
		p.t0 = min(p.t0, pr.Unix0)
		found++
	}
	if found == 0 {
		return nil, fmt.Errorf("no rank wrote a profile in %s", dir)
	}
	for r, pr := range p.ranks {
		if pr == nil {
			continue
		}
		ev, err := readEvents(filepath.Join(dir, fmt.Sprintf("rank-%d.events", r)))
		if err != nil {
			continue
		}
		for i := range ev {
			e := &ev[i]
			start := float64(pr.Unix0-p.t0) + float64(e.Start-pr.Ticks0)*pr.NsPerTick
			e.Start, e.Dur = int64(start), int64(float64(e.Dur)*pr.NsPerTick)
		}
		p.events[r] = ev
	}
	return p, nil
}

func readEvents(name string) ([]prof.Event, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return prof.ReadEvents(f)
}

// callSum is one call's totals over the job.
type callSum struct {
	call         string
	kind         string
	n, bytes     uint64
	ns           float64
	hist         []uint64
	minNs, maxNs float64 // over ranks
}

func (p *picture) calls() []*callSum {
	m := map[string]*callSum{}
	for _, pr := range p.ranks {
		if pr == nil {
			continue
		}
		for _, c := range pr.Calls {
			s := m[c.Call]
			if s == nil {
				s = &callSum{call: c.Call, kind: c.Kind, hist: make([]uint64, prof.HistBuckets), minNs: math.Inf(1)}
				m[c.Call] = s
			}
			s.n += c.N
			s.bytes += c.Bytes
			s.ns += c.Ns
			s.minNs, s.maxNs = math.Min(s.minNs, c.Ns), math.Max(s.maxNs, c.Ns)
			for b, v := range c.Hist {
				if b < len(s.hist) {
					s.hist[b] += v
				}
			}
		}
	}
	out := make([]*callSum, 0, len(m))
	for _, s := range m {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ns > out[j].ns })
	return out
}

func bucketRange(b int) string {
	if b == 0 {
		return "0"
	}
	lo, hi := uint64(1)<<(b-1), uint64(1)<<b-1
	if b == prof.HistBuckets-1 {
		return fmt.Sprintf(">=%s", sizeName(lo))
	}
	if lo == hi {
		return sizeName(lo)
	}
	return sizeName(lo) + "-" + sizeName(hi)
}

func sizeName(n uint64) string {
	switch {
	case n >= 1<<30 && (n+1)%(1<<30) == 0:
		return fmt.Sprintf("%dG", (n+1)>>30)
	case n >= 1<<20 && (n+1)%(1<<20) == 0:
		return fmt.Sprintf("%dM", (n+1)>>20)
	case n >= 1<<10 && (n+1)%(1<<10) == 0:
		return fmt.Sprintf("%dK", (n+1)>>10)
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dG", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dM", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dK", n>>10)
	}
	return fmt.Sprint(n)
}

// summary writes the mpiP-style report.
func (p *picture) summary(w io.Writer) {
	fmt.Fprintf(w, "mpigo profile: %d ranks\n", p.n)
	var missing []string
	for r, pr := range p.ranks {
		if pr == nil {
			missing = append(missing, fmt.Sprint(r))
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(w, "no profile from ranks %s (ended before they could write one)\n", strings.Join(missing, ","))
	}
	fmt.Fprintln(w, "\ntime per rank:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  rank\twall s\tMPI s\tMPI %\tcompute s\tended\t")
	var mpiSum, wallSum, compMax, compSum float64
	var compMin = math.Inf(1)
	type rk struct {
		r         int
		mpi, comp float64
	}
	var rks []rk
	for r, pr := range p.ranks {
		if pr == nil {
			continue
		}
		comp := math.Max(pr.Wall-pr.MPI, 0)
		fmt.Fprintf(tw, "  %d\t%.3f\t%.3f\t%.1f\t%.3f\t%s\t\n", r, pr.Wall, pr.MPI, pct(pr.MPI, pr.Wall), comp, pr.Reason)
		mpiSum += pr.MPI
		wallSum += pr.Wall
		compMax, compMin, compSum = math.Max(compMax, comp), math.Min(compMin, comp), compSum+comp
		rks = append(rks, rk{r, pr.MPI, comp})
	}
	fmt.Fprintf(tw, "  all\t%.3f\t%.3f\t%.1f\t%.3f\t\t\n", wallSum, mpiSum, pct(mpiSum, wallSum), compSum)
	tw.Flush()

	// The slowest ranks are those that compute longest: the others wait for them in MPI.
	sort.Slice(rks, func(i, j int) bool { return rks[i].comp > rks[j].comp })
	var slow []string
	for _, x := range rks[:min(3, len(rks))] {
		slow = append(slow, fmt.Sprintf("rank %d (%.3f s outside MPI, %.3f s in it)", x.r, x.comp, x.mpi))
	}
	fmt.Fprintf(w, "\nslowest ranks (most time outside MPI; the others wait for them): %s\n", strings.Join(slow, ", "))
	if len(rks) > 0 && compSum > 0 {
		mean := compSum / float64(len(rks))
		fmt.Fprintf(w, "load imbalance: compute time max/mean %.2f (max %.3f s, min %.3f s, mean %.3f s); %.1f%% of the job's time would be saved by perfect balance\n",
			compMax/mean, compMax, compMin, mean, pct(compMax-mean, compMax))
	}

	fmt.Fprintln(w, "\ntime per call (all ranks):")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  call\tkind\tcount\ttime s\t% MPI\tmin/rank s\tmax/rank s\tbytes\tavg bytes\t")
	cs := p.calls()
	for _, c := range cs {
		avg := 0.0
		if c.n > 0 {
			avg = float64(c.bytes) / float64(c.n)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%.6f\t%.1f\t%.6f\t%.6f\t%d\t%.0f\t\n", c.call, c.kind, c.n, c.ns/1e9, pct(c.ns/1e9, mpiSum),
			c.minNs/1e9, c.maxNs/1e9, c.bytes, avg)
	}
	tw.Flush()

	fmt.Fprintln(w, "\nmessage sizes (calls per size class, all ranks):")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  call\tbytes\tcalls")
	for _, c := range cs {
		if c.bytes == 0 {
			continue
		}
		for b, v := range c.hist {
			if v > 0 {
				fmt.Fprintf(tw, "  %s\t%s\t%d\n", c.call, bucketRange(b), v)
			}
		}
	}
	tw.Flush()
	fmt.Fprintln(w)
}

func pct(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return 100 * a / b
}

// matrix is the communication matrix: from rank i to rank j, every byte and message
// (the engine's messages, the node collectives' flows, one-sided operations on node
// memory), and of them the collectives' and the one-sided operations'.
type matrix struct {
	bytes, msgs         [][]uint64
	collBytes, collMsgs [][]uint64
	rmaBytes, rmaOps    [][]uint64
}

// matrix gathers the ranks' rows. A rank writes what it sent and, for one-sided
// operations it made, what it took from others (Get, the fetching operations'
// results), which goes into the other rank's row.
func (p *picture) matrix() matrix {
	mk := func() [][]uint64 {
		m := make([][]uint64, p.n)
		for i := range m {
			m[i] = make([]uint64, p.n)
		}
		return m
	}
	m := matrix{mk(), mk(), mk(), mk(), mk(), mk()}
	for i, pr := range p.ranks {
		if pr == nil {
			continue
		}
		copy(m.bytes[i], pr.SentBytes)
		copy(m.msgs[i], pr.SentMsgs)
		copy(m.collBytes[i], pr.CollBytes)
		copy(m.collMsgs[i], pr.CollMsgs)
		for j := 0; j < p.n; j++ {
			if j < len(pr.RMABytes) && j < len(pr.RMAOps) {
				m.rmaBytes[i][j] += pr.RMABytes[j]
				m.rmaOps[i][j] += pr.RMAOps[j]
			}
			if j < len(pr.RMAInBytes) && j < len(pr.RMAInOps) {
				m.rmaBytes[j][i] += pr.RMAInBytes[j]
				m.rmaOps[j][i] += pr.RMAInOps[j]
			}
		}
	}
	for i := range m.bytes {
		for j := range m.bytes[i] {
			m.bytes[i][j] += m.rmaBytes[i][j]
			m.msgs[i][j] += m.rmaOps[i][j]
		}
	}
	return m
}

func (p *picture) writeAll(dir, summary string) error {
	if err := os.WriteFile(filepath.Join(dir, "summary.txt"), []byte(summary), 0o644); err != nil {
		return err
	}
	x := p.matrix()
	var m strings.Builder
	m.WriteString("from,to,bytes,messages,coll_bytes,coll_messages,rma_bytes,rma_ops\n")
	for i := range x.bytes {
		for j := range x.bytes[i] {
			if x.msgs[i][j] > 0 {
				fmt.Fprintf(&m, "%d,%d,%d,%d,%d,%d,%d,%d\n", i, j, x.bytes[i][j], x.msgs[i][j],
					x.collBytes[i][j], x.collMsgs[i][j], x.rmaBytes[i][j], x.rmaOps[i][j])
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "matrix.csv"), []byte(m.String()), 0o644); err != nil {
		return err
	}
	if err := p.writeTrace(filepath.Join(dir, "trace.json")); err != nil {
		return err
	}
	return p.writeHTML(filepath.Join(dir, "profile.html"), summary)
}

// traceEvent is one event of the Chrome trace event format ("X": a complete event;
// "M": metadata naming a track).
type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  float64        `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// writeTrace writes the timeline in the Chrome trace / Perfetto JSON format: one
// process (track) per rank; each call's category says what it is (collective, wait,
// send, recv, start), so that collectives and waits can be picked out.
func (p *picture) writeTrace(name string) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	bw.WriteString(`{"displayTimeUnit":"ns","traceEvents":[`)
	first := true
	emit := func(e traceEvent) {
		b, _ := json.Marshal(e)
		if !first {
			bw.WriteByte(',')
		}
		first = false
		bw.WriteString("\n")
		bw.Write(b)
	}
	for r, pr := range p.ranks {
		if pr == nil {
			continue
		}
		emit(traceEvent{Name: "process_name", Ph: "M", Pid: r, Args: map[string]any{"name": fmt.Sprintf("rank %d (%s, pid %d)", r, pr.Host, pr.Pid)}})
		emit(traceEvent{Name: "process_sort_index", Ph: "M", Pid: r, Args: map[string]any{"sort_index": r}})
		for _, e := range p.events[r] {
			args := map[string]any{"bytes": e.Bytes, "comm": e.Comm}
			if e.Peer >= 0 {
				args["peer"] = e.Peer
			}
			if e.Tag >= 0 {
				args["tag"] = e.Tag
			}
			emit(traceEvent{Name: e.Call.String(), Cat: e.Call.Kind().String(), Ph: "X", Ts: float64(e.Start) / 1e3,
				Dur: math.Max(float64(e.Dur)/1e3, 0.001), Pid: r, Args: args})
		}
	}
	bw.WriteString("\n]}\n")
	return bw.Flush()
}
