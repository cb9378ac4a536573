package mpi_test

import (
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// moveCase is a data-movement collective whose blocks are b bytes on every rank but
// odd, whose blocks (or, for Alltoallv, whose block to rank odd+1) are other bytes.
type moveCase struct{ b, other, odd int }

// Outcomes a rank may be due: success, MPI_ERR_COUNT (a message shorter than its
// block), MPI_ERR_TRUNCATE (longer), either of the two (mustErr: some rank passed on
// a block that disagreed), or success or either (mayErr: the rank gets the odd block
// only through a rank that could not tell).
const (
	wantOK = iota
	wantCount
	wantTrunc
	mustErr
	mayErr
)

// short is the outcome at a receiver whose block is want bytes where got arrive.
func short(got, want int) int {
	switch {
	case got < want:
		return wantCount
	case got > want:
		return wantTrunc
	}
	return wantOK
}

// pat is byte i of the block that rank src sends rank dst.
func pat(src, dst, i int) byte { return byte(src*37 + dst*11 + i) }

// block makes src's block for dst of m bytes.
func block(src, dst, m int) []byte {
	b := make([]byte, m)
	for i := range b {
		b[i] = pat(src, dst, i)
	}
	return b
}

func eeBytes(m int) []byte {
	b := make([]byte, m)
	for i := range b {
		b[i] = 0xee
	}
	return b
}

// checkBlock: b holds the first min(len(b), sent) bytes of src's block for dst, the
// rest as it was (0xee).
func checkBlock(t *testing.T, what string, b []byte, src, dst, sent int) {
	t.Helper()
	for i := range b {
		want := pat(src, dst, i)
		if i >= sent {
			want = 0xee
		}
		if b[i] != want {
			t.Fatalf("%s: the block from rank %d: byte %d = %#x, want %#x", what, src, i, b[i], want)
		}
	}
}

// moveFamilies runs one mismatched collective at this rank: the call's error, the
// outcome this rank is due, and a check of its data given the error.
var moveFamilies = map[string]func(t *testing.T, w *mpi.Comm, k moveCase, nb bool) (error, int, func(string)){
	"scatter":    scatterMis,
	"scatterv":   scattervMis,
	"gatherv":    gathervMis,
	"allgather":  allgatherMis,
	"allgatherv": allgathervMis,
	"alltoall":   alltoallMis,
	"alltoallv":  alltoallvMis,
	"alltoallw":  alltoallwMis,
}

// wait completes a nonblocking call's request.
func wait(q mpi.Request, err error) error {
	if err != nil {
		return err
	}
	_, err = q.Wait()
	return err
}

// Scatter from root 0: rank odd's recv is other bytes (the root's own, when odd is 0,
// so that the root sends blocks of other bytes to everyone).
func scatterMis(t *testing.T, w *mpi.Comm, k moveCase, nb bool) (error, int, func(string)) {
	r, n := w.Rank(), w.Size()
	m := k.b
	if r == k.odd {
		m = k.other
	}
	var send []byte
	if r == 0 {
		for i := 0; i < n; i++ {
			send = append(send, block(0, i, m)...)
		}
	}
	recv := eeBytes(m)
	var err error
	if nb {
		err = wait(mpi.Iscatter(w, send, recv, 0))
	} else {
		err = mpi.Scatter(w, send, recv, 0)
	}
	sent := k.b // the root's block
	if k.odd == 0 {
		sent = k.other
	}
	out := wantOK
	if r != 0 {
		out = short(sent, m)
	}
	return err, out, func(what string) { checkBlock(t, what, recv, 0, r, sent) }
}

// Scatterv from root 0, whose counts are b: rank odd's recv is other bytes.
func scattervMis(t *testing.T, w *mpi.Comm, k moveCase, nb bool) (error, int, func(string)) {
	r, n := w.Rank(), w.Size()
	var send []byte
	var counts, displs []int
	if r == 0 {
		for i := 0; i < n; i++ {
			send = append(send, block(0, i, k.b)...)
			counts, displs = append(counts, k.b), append(displs, i*k.b)
		}
	}
	m := k.b
	if r == k.odd {
		m = k.other
	}
	recv := eeBytes(m)
	var err error
	if nb {
		err = wait(mpi.Iscatterv(w, send, counts, displs, recv, 0))
	} else {
		err = mpi.Scatterv(w, send, counts, displs, recv, 0)
	}
	return err, short(k.b, m), func(what string) { checkBlock(t, what, recv, 0, r, k.b) }
}

// Gatherv to root 0, whose counts are b: rank odd sends other bytes.
func gathervMis(t *testing.T, w *mpi.Comm, k moveCase, nb bool) (error, int, func(string)) {
	r, n := w.Rank(), w.Size()
	m := k.b
	if r == k.odd {
		m = k.other
	}
	var recv []byte
	var counts, displs []int
	if r == 0 {
		recv = eeBytes(n * k.b)
		for i := 0; i < n; i++ {
			counts, displs = append(counts, k.b), append(displs, i*k.b)
		}
	}
	send := block(r, 0, m)
	var err error
	if nb {
		err = wait(mpi.Igatherv(w, send, recv, counts, displs, 0))
	} else {
		err = mpi.Gatherv(w, send, recv, counts, displs, 0)
	}
	out := wantOK
	if r == 0 {
		out = short(k.other, k.b)
	}
	return err, out, func(what string) {
		for i := 0; i < n && r == 0; i++ {
			sent := k.b
			if i == k.odd {
				sent = k.other
			}
			checkBlock(t, what, recv[i*k.b:(i+1)*k.b], i, 0, sent)
		}
	}
}

// Allgather in which rank odd's blocks are other bytes: every rank gets rank odd's
// block, the odd rank every other's.
func allgatherMis(t *testing.T, w *mpi.Comm, k moveCase, nb bool) (error, int, func(string)) {
	r, n := w.Rank(), w.Size()
	m := k.b
	if r == k.odd {
		m = k.other
	}
	send, recv := block(r, 0, m), eeBytes(n*m)
	var err error
	if nb {
		err = wait(mpi.Iallgather(w, send, recv))
	} else {
		err = mpi.Allgather(w, send, recv)
	}
	out := mustErr
	if r != k.odd && k.b == 0 {
		out = mayErr // passed on by a rank that expects nothing of it
	}
	return err, out, func(what string) {
		for i := 0; i < n; i++ {
			checkBlock(t, what, recv[i*m:(i+1)*m], i, 0, m)
		}
	}
}

// Allgatherv in which rank odd sends other bytes (its own counts say so, everyone
// else's say b).
func allgathervMis(t *testing.T, w *mpi.Comm, k moveCase, nb bool) (error, int, func(string)) {
	r, n := w.Rank(), w.Size()
	counts, displs := make([]int, n), make([]int, n)
	total := 0
	for i := range counts {
		counts[i] = k.b
		if i == k.odd && r == k.odd {
			counts[i] = k.other
		}
		displs[i] = total
		total += counts[i]
	}
	send, recv := block(r, 0, counts[r]), eeBytes(total)
	var err error
	if nb {
		err = wait(mpi.Iallgatherv(w, send, recv, counts, displs))
	} else {
		err = mpi.Allgatherv(w, send, recv, counts, displs)
	}
	out := mustErr // every other rank gets the odd block, first or from a rank that broke
	if r == k.odd {
		out = mayErr
	}
	return err, out, func(what string) {
		for i := 0; i < n; i++ {
			checkBlock(t, what, recv[displs[i]:displs[i]+counts[i]], i, 0, counts[i])
		}
	}
}

// Alltoall in which rank odd's blocks are other bytes.
func alltoallMis(t *testing.T, w *mpi.Comm, k moveCase, nb bool) (error, int, func(string)) {
	r, n := w.Rank(), w.Size()
	m := k.b
	if r == k.odd {
		m = k.other
	}
	var send []byte
	for i := 0; i < n; i++ {
		send = append(send, block(r, i, m)...)
	}
	recv := eeBytes(n * m)
	var err error
	if nb {
		err = wait(mpi.Ialltoall(w, send, recv))
	} else {
		err = mpi.Alltoall(w, send, recv)
	}
	out := short(k.other, k.b)
	if r == k.odd {
		out = short(k.b, k.other)
	}
	return err, out, func(what string) {
		for i := 0; i < n; i++ {
			sent := k.b
			if i == k.odd {
				sent = k.other
			}
			checkBlock(t, what, recv[i*m:(i+1)*m], i, r, sent)
		}
	}
}

// Alltoallv of b-byte blocks in which rank odd sends other bytes to rank odd+1.
func alltoallvMis(t *testing.T, w *mpi.Comm, k moveCase, nb bool) (error, int, func(string)) {
	r, n := w.Rank(), w.Size()
	to := (k.odd + 1) % n
	var send []byte
	sc, sd, rc, rd := make([]int, n), make([]int, n), make([]int, n), make([]int, n)
	for i := 0; i < n; i++ {
		sc[i] = k.b
		if r == k.odd && i == to {
			sc[i] = k.other
		}
		sd[i] = len(send)
		send = append(send, block(r, i, sc[i])...)
		rc[i], rd[i] = k.b, i*k.b
	}
	recv := eeBytes(n * k.b)
	var err error
	if nb {
		err = wait(mpi.Ialltoallv(w, send, sc, sd, recv, rc, rd))
	} else {
		err = mpi.Alltoallv(w, send, sc, sd, recv, rc, rd)
	}
	out := wantOK
	if r == to {
		out = short(k.other, k.b)
	}
	return err, out, func(what string) {
		for i := 0; i < n; i++ {
			sent := k.b
			if i == k.odd && r == to {
				sent = k.other
			}
			checkBlock(t, what, recv[i*k.b:(i+1)*k.b], i, r, sent)
		}
	}
}

// Alltoallw as alltoallvMis, in bytes (MPI_BYTE blocks).
func alltoallwMis(t *testing.T, w *mpi.Comm, k moveCase, nb bool) (error, int, func(string)) {
	r, n := w.Rank(), w.Size()
	to := (k.odd + 1) % n
	var send []byte
	sc, sd, rc, rd := make([]int, n), make([]int, n), make([]int, n), make([]int, n)
	types := make([]*mpi.Datatype, n)
	for i := 0; i < n; i++ {
		sc[i] = k.b
		if r == k.odd && i == to {
			sc[i] = k.other
		}
		sd[i] = len(send)
		send = append(send, block(r, i, sc[i])...)
		rc[i], rd[i], types[i] = k.b, i*k.b, mpi.Byte
	}
	recv := eeBytes(n * k.b)
	var err error
	if nb {
		err = wait(mpi.Ialltoallw(w, send, sc, sd, types, recv, rc, rd, types))
	} else {
		err = mpi.Alltoallw(w, send, sc, sd, types, recv, rc, rd, types)
	}
	out := wantOK
	if r == to {
		out = short(k.other, k.b)
	}
	return err, out, func(what string) {
		for i := 0; i < n; i++ {
			sent := k.b
			if i == k.odd && r == to {
				sent = k.other
			}
			checkBlock(t, what, recv[i*k.b:(i+1)*k.b], i, r, sent)
		}
	}
}

// moveMismatches: short (eager) and long (rendezvous) blocks, shorter and longer, the
// odd rank first, last or between, and empty blocks where the family sends them (not
// the v forms, whose empty blocks are no message); none straddles a switch of
// algorithm (coll_allgather_large 64 KiB in all).
func moveMismatches(family string, n int) []moveCase {
	cs := []moveCase{{64, 8, n - 1}, {8, 64, 1}, {1024, 1000, 1}, {96 << 10, 160 << 10, n - 1}, {160 << 10, 96 << 10, 1}}
	switch family {
	case "scatter":
		cs = append(cs, moveCase{16, 0, 1}, moveCase{0, 16, n - 1}, moveCase{64, 8, 0}, moveCase{8, 64, 0}, moveCase{0, 8, 0})
	case "allgather", "alltoall":
		cs = append(cs, moveCase{16, 0, 1}, moveCase{0, 16, n - 1}, moveCase{64, 8, 0})
	case "gatherv", "scatterv":
	default:
		cs = append(cs, moveCase{64, 8, 0})
	}
	return cs
}

// TestMoveMismatchedSizes: Scatter, Scatterv, Gatherv, Allgather, Allgatherv, Alltoall,
// Alltoallv and Alltoallw (blocking and nonblocking) in which one rank's blocks disagree with
// its peers' (erroneous: MPI requires matching type signatures) end with
// MPI_ERR_COUNT at a receiver whose block is longer than what came, MPI_ERR_TRUNCATE
// where it is shorter (the block holding what fits), an error on every rank that got
// a block passed on after it (the allgathers' rings and Bruck), and success with the
// right data elsewhere; no rank hangs, and the communicator stays in step. On shared
// memory (with and without the node's region) and TCP at 2, 3 and 4 ranks.
func TestMoveMismatchedSizes(t *testing.T) {
	families := []string{"scatter", "scatterv", "gatherv", "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"}
	for _, f := range families {
		for _, p := range pathsShmSchedTCP {
			for n := 2; n <= 4; n++ {
				t.Run(fmt.Sprintf("%s/%s/%d", f, p.Name, n), func(t *testing.T) {
					mpitest.Job(t, mpitest.Options{N: n, Transport: p, Timeout: 30 * time.Second}, func(t *testing.T) {
						must(t, mpi.Init())
						for _, k := range moveMismatches(f, n) {
							for _, nb := range []bool{false, true} {
								moveMismatch(t, mpi.World, f, k, nb)
							}
						}
						must(t, mpi.Finalize())
					})
				})
			}
		}
	}
}

func moveMismatch(t *testing.T, w *mpi.Comm, family string, k moveCase, nb bool) {
	t.Helper()
	rank := w.Rank()
	what := fmt.Sprintf("%s %+v nonblocking=%v: rank %d", family, k, nb, rank)
	if os.Getenv("MPIGO_TEST_TRACE") != "" {
		fmt.Fprintln(os.Stderr, what)
	}
	err, out, check := moveFamilies[family](t, w, k, nb)
	count, trunc := errors.Is(err, mpi.ErrCount), errors.Is(err, mpi.ErrTruncate)
	switch {
	case out == wantOK && err != nil:
		t.Errorf("%s: %v", what, err)
	case out == wantCount && !count:
		t.Errorf("%s: err %v, want ErrCount", what, err)
	case out == wantTrunc && !trunc:
		t.Errorf("%s: err %v, want ErrTruncate", what, err)
	case out == mustErr && !count && !trunc:
		t.Errorf("%s: err %v, want ErrCount or ErrTruncate", what, err)
	case out == mayErr && err != nil && !count && !trunc:
		t.Errorf("%s: err %v, want success, ErrCount or ErrTruncate", what, err)
	}
	// Where the receivers do not pass blocks on, every block arrives (what fits of
	// the odd one); elsewhere a rank's success means its data is right.
	if out == wantOK || out == wantCount || out == wantTrunc || err == nil {
		check(what)
	}
	// In step: a matched Allgather works after it.
	one, all := []int32{int32(rank)}, make([]int32, w.Size())
	must(t, mpi.Allgather(w, one, all))
	for r := range all {
		if all[r] != int32(r) {
			t.Fatalf("%s: the Allgather after it got %v", what, all)
		}
	}
}

// interCase is a collective on an intercommunicator of side A (world ranks 0, 1) and
// side B (2, 3, 4), rooted at A's rank 1 where it has a root, whose blocks are b bytes
// but for B's rank odd, whose are other (for Alltoallv: its block for A's rank 0).
type interCase struct{ b, other, odd int }

// interFamilies run one such call at this process (side 0: A, 1: B; r its local
// rank): the call's error, the outcome it is due, and a check of its data on success.
var interFamilies = map[string]func(t *testing.T, ic *mpi.Comm, side int, k interCase, nb bool) (error, int, func(string)){
	"bcast": func(t *testing.T, ic *mpi.Comm, side int, k interCase, nb bool) (error, int, func(string)) {
		r := ic.Rank()
		root, m := 1, k.b
		if side == 0 {
			root = map[bool]int{true: mpi.Root, false: mpi.ProcNull}[r == 1]
		} else if r == k.odd {
			m = k.other
		}
		buf := eeBytes(m)
		if side == 0 && r == 1 {
			buf = block(1, 0, m)
		}
		err := mpi.Bcast(ic, buf, root)
		out := wantOK
		switch {
		case side == 1 && r == k.odd:
			out = short(k.b, m)
		case side == 1 && k.odd == 0:
			out = mustErr // from a leader that broke
		}
		return err, out, func(what string) {
			if side == 1 || r == 1 {
				checkBlock(t, what, buf, 1, 0, k.b)
			}
		}
	},
	"gather": func(t *testing.T, ic *mpi.Comm, side int, k interCase, nb bool) (error, int, func(string)) {
		r := ic.Rank()
		var send, recv []byte
		root := 1
		switch {
		case side == 0 && r == 1:
			root, recv = mpi.Root, eeBytes(3*k.b)
		case side == 0:
			root = mpi.ProcNull
		case r == k.odd:
			send = block(r, 0, k.other)
		default:
			send = block(r, 0, k.b)
		}
		err := mpi.Gather(ic, send, recv, root)
		out := wantOK
		switch {
		case side == 1 && r == 0:
			out = mustErr // the leader gets the odd block
		case side == 0 && r == 1:
			out = rootOutcome(k) // from a leader that broke
		case side == 1 && r == k.odd:
			out = mayErr
		}
		return err, out, func(what string) {
			for j := 0; j < 3 && recv != nil; j++ {
				checkBlock(t, what, recv[j*k.b:(j+1)*k.b], j, 0, k.b)
			}
		}
	},
	"gatherv": func(t *testing.T, ic *mpi.Comm, side int, k interCase, nb bool) (error, int, func(string)) {
		r := ic.Rank()
		var send, recv []byte
		var counts, displs []int
		root := 1
		switch {
		case side == 0 && r == 1:
			root, recv = mpi.Root, eeBytes(3*k.b)
			counts, displs = []int{k.b, k.b, k.b}, []int{0, k.b, 2 * k.b}
		case side == 0:
			root = mpi.ProcNull
		case r == k.odd:
			send = block(r, 0, k.other)
		default:
			send = block(r, 0, k.b)
		}
		var err error
		if nb {
			err = wait(mpi.Igatherv(ic, send, recv, counts, displs, root))
		} else {
			err = mpi.Gatherv(ic, send, recv, counts, displs, root)
		}
		out := wantOK
		if side == 0 && r == 1 {
			out = short(k.other, k.b)
		}
		return err, out, func(what string) {
			for j := 0; j < 3 && recv != nil; j++ {
				sent := k.b
				if j == k.odd {
					sent = k.other
				}
				checkBlock(t, what, recv[j*k.b:(j+1)*k.b], j, 0, sent)
			}
		}
	},
	"scatter": func(t *testing.T, ic *mpi.Comm, side int, k interCase, nb bool) (error, int, func(string)) {
		r := ic.Rank()
		var send, recv []byte
		root := 1
		switch {
		case side == 0 && r == 1:
			root = mpi.Root
			for j := 0; j < 3; j++ {
				send = append(send, block(1, j, k.b)...)
			}
		case side == 0:
			root = mpi.ProcNull
		case r == k.odd:
			recv = eeBytes(k.other)
		default:
			recv = eeBytes(k.b)
		}
		var err error
		if nb {
			err = wait(mpi.Iscatter(ic, send, recv, root))
		} else {
			err = mpi.Scatter(ic, send, recv, root)
		}
		out := wantOK
		switch {
		case side == 1 && r == k.odd:
			out = short(k.b, k.other)
		case side == 1 && k.odd == 0:
			out = mustErr // from a leader that broke
		}
		return err, out, func(what string) {
			if side == 1 {
				checkBlock(t, what, recv, 1, r, k.b)
			}
		}
	},
	"scatterv": func(t *testing.T, ic *mpi.Comm, side int, k interCase, nb bool) (error, int, func(string)) {
		r := ic.Rank()
		var send, recv []byte
		var counts, displs []int
		root := 1
		switch {
		case side == 0 && r == 1:
			root = mpi.Root
			for j := 0; j < 3; j++ {
				send = append(send, block(1, j, k.b)...)
			}
			counts, displs = []int{k.b, k.b, k.b}, []int{0, k.b, 2 * k.b}
		case side == 0:
			root = mpi.ProcNull
		case r == k.odd:
			recv = eeBytes(k.other)
		default:
			recv = eeBytes(k.b)
		}
		err := mpi.Scatterv(ic, send, counts, displs, recv, root)
		out := wantOK
		if side == 1 && r == k.odd {
			out = short(k.b, k.other)
		}
		return err, out, func(what string) {
			if side == 1 {
				checkBlock(t, what, recv, 1, r, k.b)
			}
		}
	},
	"allgather": func(t *testing.T, ic *mpi.Comm, side int, k interCase, nb bool) (error, int, func(string)) {
		r, remote := ic.Rank(), 3-side
		m := k.b
		if side == 1 && r == k.odd {
			m = k.other
		}
		send, recv := block(r, side, m), eeBytes(remote*m)
		var err error
		if nb {
			err = wait(mpi.Iallgather(ic, send, recv))
		} else {
			err = mpi.Allgather(ic, send, recv)
		}
		return err, allOutcome(k, side, r), func(string) {}
	},
	"allgatherv": func(t *testing.T, ic *mpi.Comm, side int, k interCase, nb bool) (error, int, func(string)) {
		r, remote := ic.Rank(), 3-side
		m := k.b
		if side == 1 && r == k.odd {
			m = k.other
		}
		counts, displs := make([]int, remote), make([]int, remote)
		for j := range counts {
			counts[j], displs[j] = k.b, j*k.b
		}
		send, recv := block(r, side, m), eeBytes(remote*k.b)
		err := mpi.Allgatherv(ic, send, recv, counts, displs)
		out := wantOK
		if side == 0 {
			out = short(k.other, k.b)
		}
		return err, out, func(what string) {
			for j := 0; j < remote; j++ {
				sent := k.b
				if side == 0 && j == k.odd {
					sent = k.other
				}
				checkBlock(t, what, recv[j*k.b:(j+1)*k.b], j, 1-side, sent)
			}
		}
	},
	"alltoall": func(t *testing.T, ic *mpi.Comm, side int, k interCase, nb bool) (error, int, func(string)) {
		r, remote := ic.Rank(), 3-side
		m := k.b
		if side == 1 && r == k.odd {
			m = k.other
		}
		var send []byte
		for j := 0; j < remote; j++ {
			send = append(send, block(10*side+r, j, m)...)
		}
		recv := eeBytes(remote * m)
		var err error
		if nb {
			err = wait(mpi.Ialltoall(ic, send, recv))
		} else {
			err = mpi.Alltoall(ic, send, recv)
		}
		out := wantOK
		switch {
		case side == 0:
			out = short(k.other, k.b)
		case r == k.odd:
			out = short(k.b, k.other)
		}
		return err, out, func(what string) {
			for j := 0; j < remote; j++ {
				sent := k.b
				if side == 0 && j == k.odd {
					sent = k.other
				}
				checkBlock(t, what, recv[j*m:(j+1)*m], 10*(1-side)+j, r, sent)
			}
		}
	},
	"alltoallv": func(t *testing.T, ic *mpi.Comm, side int, k interCase, nb bool) (error, int, func(string)) {
		r, remote := ic.Rank(), 3-side
		var send []byte
		sc, sd, rc, rd := make([]int, remote), make([]int, remote), make([]int, remote), make([]int, remote)
		for j := 0; j < remote; j++ {
			sc[j] = k.b
			if side == 1 && r == k.odd && j == 0 {
				sc[j] = k.other
			}
			sd[j] = len(send)
			send = append(send, block(10*side+r, j, sc[j])...)
			rc[j], rd[j] = k.b, j*k.b
		}
		recv := eeBytes(remote * k.b)
		var err error
		if nb {
			err = wait(mpi.Ialltoallv(ic, send, sc, sd, recv, rc, rd))
		} else {
			err = mpi.Alltoallv(ic, send, sc, sd, recv, rc, rd)
		}
		out := wantOK
		if side == 0 && r == 0 {
			out = short(k.other, k.b)
		}
		return err, out, func(what string) {
			for j := 0; j < remote; j++ {
				sent := k.b
				if side == 0 && r == 0 && j == k.odd {
					sent = k.other
				}
				checkBlock(t, what, recv[j*k.b:(j+1)*k.b], 10*(1-side)+j, r, sent)
			}
		}
	},
	"reduce": func(t *testing.T, ic *mpi.Comm, side int, k interCase, nb bool) (error, int, func(string)) {
		r := ic.Rank()
		var send, recv []byte
		root := 1
		switch {
		case side == 0 && r == 1:
			root, recv = mpi.Root, eeBytes(k.b)
		case side == 0:
			root = mpi.ProcNull
		case r == k.odd:
			send = block(r, 0, k.other)
		default:
			send = block(r, 0, k.b)
		}
		err := mpi.Reduce(ic, send, recv, mpi.Bor, root)
		out := wantOK
		switch {
		case side == 1 && r == 0:
			out = mustErr
		case side == 0 && r == 1:
			out = rootOutcome(k)
		case side == 1:
			out = mayErr
		}
		return err, out, func(string) {}
	},
	"allreduce": func(t *testing.T, ic *mpi.Comm, side int, k interCase, nb bool) (error, int, func(string)) {
		r := ic.Rank()
		m := k.b
		if side == 1 && r == k.odd {
			m = k.other
		}
		send, recv := block(r, 0, m), eeBytes(m)
		var err error
		if nb {
			err = wait(mpi.Iallreduce(ic, send, recv, mpi.Bor))
		} else {
			err = mpi.Allreduce(ic, send, recv, mpi.Bor)
		}
		return err, allOutcome(k, side, r), func(string) {}
	},
}

// rootOutcome is a root's that gets the result of a leader that broke: empty, an
// error unless the root expects nothing.
func rootOutcome(k interCase) int {
	if k.b > 0 {
		return mustErr
	}
	return mayErr
}

// allOutcome is a process's in an intercommunicator's Allgather or Allreduce, where
// B's leader gets the odd block and every process gets a broken leader's (empty)
// result, which only a process that expects something finds wrong.
func allOutcome(k interCase, side, r int) int {
	switch {
	case side == 1 && (r == 0 || r == k.odd && k.other > 0):
		return mustErr
	case side == 1 && r == k.odd, k.b == 0:
		return mayErr
	}
	return mustErr
}

// TestInterMismatchedSizes: the intercommunicator forms of Bcast, Gather(v),
// Scatter(v), Allgather(v), Alltoall(v), Reduce and Allreduce in which one process of
// side B passes blocks of another length (shorter, longer, empty, short and long
// messages) end with MPI_ERR_COUNT or MPI_ERR_TRUNCATE at the process that receives
// the odd block, and at every process that gets a result passed on by a leader that
// received it; success elsewhere with the right data; no hang, and the
// intercommunicator stays in step. 5 processes (2 and 3), shared memory and TCP.
func TestInterMismatchedSizes(t *testing.T) {
	families := []string{"bcast", "gather", "gatherv", "scatter", "scatterv", "allgather", "allgatherv", "alltoall", "alltoallv", "reduce", "allreduce"}
	cases := []interCase{{64, 8, 2}, {8, 64, 1}, {64, 8, 0}, {16, 0, 1}, {0, 16, 2}, {96 << 10, 160 << 10, 1}, {160 << 10, 96 << 10, 0}}
	for _, p := range pathsShmTCP {
		t.Run(p.Name, func(t *testing.T) {
			mpitest.Job(t, mpitest.Options{N: 5, Transport: p, Timeout: 60 * time.Second}, func(t *testing.T) {
				must(t, mpi.Init())
				side := 0
				if mpi.World.Rank() >= 2 {
					side = 1
				}
				local, err := mpi.World.Split(side, mpi.World.Rank())
				must(t, err)
				ic, err := mpi.IntercommCreate(local, 0, mpi.World, map[int]int{0: 2, 1: 0}[side], 7)
				must(t, err)
				for _, f := range families {
					for _, k := range cases {
						for _, nb := range []bool{false, true} {
							interMismatch(t, ic, side, f, k, nb)
						}
					}
				}
				must(t, mpi.Finalize())
			})
		})
	}
}

func interMismatch(t *testing.T, ic *mpi.Comm, side int, family string, k interCase, nb bool) {
	t.Helper()
	what := fmt.Sprintf("inter %s %+v nonblocking=%v: side %d rank %d", family, k, nb, side, ic.Rank())
	if os.Getenv("MPIGO_TEST_TRACE") != "" {
		fmt.Fprintln(os.Stderr, what)
	}
	err, out, check := interFamilies[family](t, ic, side, k, nb)
	count, trunc := errors.Is(err, mpi.ErrCount), errors.Is(err, mpi.ErrTruncate)
	switch {
	case out == wantOK && err != nil:
		t.Errorf("%s: %v", what, err)
	case out == wantCount && !count:
		t.Errorf("%s: err %v, want ErrCount", what, err)
	case out == wantTrunc && !trunc:
		t.Errorf("%s: err %v, want ErrTruncate", what, err)
	case out == mustErr && !count && !trunc:
		t.Errorf("%s: err %v, want ErrCount or ErrTruncate", what, err)
	case out == mayErr && err != nil && !count && !trunc:
		t.Errorf("%s: err %v, want success, ErrCount or ErrTruncate", what, err)
	}
	// Where each block goes straight to its receiver, every block arrives (what fits
	// of the odd one); elsewhere a process's success means its data is right.
	switch family {
	case "gatherv", "scatterv", "allgatherv", "alltoall", "alltoallv":
		check(what)
	default:
		if err == nil {
			check(what)
		}
	}
	// In step: a matched Barrier and Allgather work after it.
	must(t, ic.Barrier())
	one, all := []int32{int32(10*side + ic.Rank())}, make([]int32, 3-side)
	must(t, mpi.Allgather(ic, one, all))
	for j := range all {
		if all[j] != int32(10*(1-side)+j) {
			t.Fatalf("%s: the Allgather after it got %v", what, all)
		}
	}
}

// TestNeighborMismatchedSizes: a NeighborAlltoall on a periodic ring in which rank
// odd's blocks are other bytes (erroneous) ends with MPI_ERR_COUNT at a rank whose
// block from a neighbour is longer than what came and MPI_ERR_TRUNCATE where it is
// shorter (the neighbours of odd, and odd itself), naming the sender, with every
// other block in place and success elsewhere; blocking and nonblocking, shared memory
// and TCP, 2 to 4 ranks (at 2 both of a rank's neighbours are the other rank).
func TestNeighborMismatchedSizes(t *testing.T) {
	for _, p := range pathsShmTCP {
		for n := 2; n <= 4; n++ {
			t.Run(fmt.Sprintf("%s/%d", p.Name, n), func(t *testing.T) {
				mpitest.Job(t, mpitest.Options{N: n, Transport: p, Timeout: 30 * time.Second}, func(t *testing.T) {
					must(t, mpi.Init())
					ring, err := mpi.World.CartCreate([]int{n}, []bool{true}, false)
					must(t, err)
					r := ring.Rank()
					nbr := [2]int{(r - 1 + n) % n, (r + 1) % n} // a ring's -1 and +1 neighbours
					for _, k := range []moveCase{{64, 8, n - 1}, {8, 64, 1}, {16, 0, 0}, {0, 16, 1}, {96 << 10, 160 << 10, 1}} {
						for _, nb := range []bool{false, true} {
							m := k.b
							if r == k.odd {
								m = k.other
							}
							// Block i goes to neighbour i, which gets it as its block 1-i.
							send := append(block(r, 1, m), block(r, 0, m)...)
							recv := eeBytes(2 * m)
							if nb {
								err = wait(mpi.IneighborAlltoall(ring, send, recv))
							} else {
								err = mpi.NeighborAlltoall(ring, send, recv)
							}
							what := fmt.Sprintf("%+v nonblocking=%v: rank %d", k, nb, r)
							out := wantOK
							switch {
							case r == k.odd:
								out = short(k.b, k.other)
							case nbr[0] == k.odd || nbr[1] == k.odd:
								out = short(k.other, k.b)
							}
							count, trunc := errors.Is(err, mpi.ErrCount), errors.Is(err, mpi.ErrTruncate)
							switch {
							case out == wantOK && err != nil:
								t.Errorf("%s: %v", what, err)
							case out == wantCount && !count:
								t.Errorf("%s: err %v, want ErrCount", what, err)
							case out == wantTrunc && !trunc:
								t.Errorf("%s: err %v, want ErrTruncate", what, err)
							}
							for i, j := range nbr {
								sent := k.b
								if j == k.odd {
									sent = k.other
								}
								checkBlock(t, what, recv[i*m:(i+1)*m], j, i, sent)
							}
							must(t, ring.Barrier())
						}
					}
					must(t, mpi.Finalize())
				})
			})
		}
	}
}
