package mpi_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// internalName matches the name of one of mpigo's internal packages where an error's
// text would name one (mpitest.InternalNames).
var internalName = func() *regexp.Regexp {
	re, err := mpitest.InternalNames("../internal")
	if err != nil {
		panic(err)
	}
	return re
}()

// TestErrorTextNamesNoInternalPackage makes bad calls of many kinds on two ranks,
// over shared memory and over TCP (point-to-point, collectives, groups, topologies,
// datatypes, attributes, values, windows, files), and checks that no error's text
// names one of mpigo's internal packages and that each names its call; the
// truncations name the call, the sender and both lengths, as the package doc promises.
func TestErrorTextNamesNoInternalPackage(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr mpitest.Transport) {
		jobWith(t, mpitest.Options{N: 2, Transport: tr}, func(t *testing.T, rank, size int) {
			w := mpi.World
			var texts []string
			expect := func(what string, err error, class error, want ...string) {
				t.Helper()
				if err == nil {
					t.Errorf("%s: no error", what)
					return
				}
				texts = append(texts, err.Error())
				if class != nil && !errors.Is(err, class) {
					t.Errorf("%s: %v, want class %v", what, err, class)
				}
				for _, s := range want {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("%s: %q does not say %q", what, err, s)
					}
				}
			}

			// seen is expect for a call whose error depends on the rank and the path
			// (which rank sees a mismatch): any error it returns must name the call.
			seen := func(what string, err error, want ...string) {
				t.Helper()
				if err != nil {
					expect(what, err, nil, want...)
				}
			}

			// A receive into a buffer shorter than the message.
			if rank == 0 {
				must(t, mpi.Send(w, make([]int64, 16), 1, 7))
			} else {
				_, err := mpi.Recv(w, make([]int64, 8), 0, 7)
				expect("Recv", err, mpi.ErrTruncate, "Recv: from rank 0", "128", "64")
			}
			// A Bcast whose root sends more than the others' buffers hold.
			n := 100
			if rank != 0 {
				n = 50
			}
			err := mpi.Bcast(w, make([]float64, n), 0)
			if rank != 0 {
				expect("Bcast", err, mpi.ErrTruncate, "Bcast: from the root, rank 0", "800 bytes", "buffer 400")
			}
			// An Allreduce whose ranks contribute different lengths.
			err = mpi.Allreduce(w, make([]int32, 4+4*rank), make([]int32, 4+4*rank), mpi.Sum)
			expect("Allreduce", err, nil, "Allreduce")
			// A Gather whose rank 1 sends more than the root takes from it.
			recv := make([]int32, 8)
			err = mpi.Gather(w, make([]int32, 4+4*rank), recv, 0)
			if rank == 0 {
				expect("Gather", err, nil, "Gather")
			}
			must(t, w.Barrier())
			// A buffered send larger than the buffer attached.
			must(t, mpi.BufferAttach(make([]byte, 64)))
			expect("BufferAttach twice", mpi.BufferAttach(make([]byte, 64)), mpi.ErrBuffer, "BufferAttach")
			expect("Bsend", mpi.Bsend(w, make([]byte, 4096), 1-rank, 9), mpi.ErrBuffer, "Bsend")
			_, err = mpi.BufferDetach()
			must(t, err)
			_, err = mpi.BufferDetach()
			expect("BufferDetach", err, nil, "BufferDetach")
			// A typed buffer shorter than its count says.
			expect("SendBuf", mpi.SendBuf(w, mpi.Typed(make([]int32, 2), 4, mpi.Int32), 1-rank, 11), nil, "Send", "16", "8")
			// A request waited on twice.
			q, err := mpi.Isend(w, []int32{1}, 1-rank, 12)
			must(t, err)
			q2 := q
			_, err = q.Wait()
			must(t, err)
			_, err = mpi.Recv(w, make([]int32, 1), 1-rank, 12)
			must(t, err)
			_, err = q2.Wait()
			expect("Wait on a used request", err, mpi.ErrRequest, "Wait")
			// A group of ranks out of range; a Cartesian grid of the wrong size.
			_, err = w.Group().Incl([]int{0, 5})
			expect("Incl", err, mpi.ErrRank, "Incl")
			_, err = w.CartCreate([]int{3, 3}, []bool{false, false}, false)
			expect("CartCreate", err, nil, "CartCreate")
			// A datatype not committed; an info key too long; a freed keyval; a
			// dimension that does not divide the ranks.
			dt, err := mpi.TypeContiguous(2, mpi.Int32)
			must(t, err)
			expect("SendBuf uncommitted", mpi.SendBuf(w, mpi.Typed(make([]int32, 2), 1, dt), 1-rank, 14), mpi.ErrType, "Send")
			expect("Info.Set", mpi.InfoCreate().Set(strings.Repeat("k", 300), "v"), nil)
			k := mpi.NewKeyval(nil, nil)
			must(t, mpi.CommFreeKeyval(k))
			expect("SetAttr", w.SetAttr(k, 1), nil, "SetAttr")
			expect("DimsCreate", mpi.DimsCreate(5, []int{2, 0}), nil, "DimsCreate")
			// A value of another type than the one sent.
			if rank == 0 {
				must(t, mpi.SendValue(w, "a string", 1, 13))
			} else {
				_, _, err = mpi.RecvValue[[]float64](w, 0, 13)
				expect("RecvValue", err, mpi.ErrType, "RecvValue")
			}
			// A Put outside the target's window.
			win, _, err := mpi.WinAllocate(64, 1, nil, w)
			must(t, err)
			must(t, win.Fence(0))
			expect("Put", mpi.Put(win, make([]byte, 32), 1-rank, 48), nil, "Put")
			// Accumulates with an op a window refuses: a user's, and Maxloc on
			// elements that are no pairs.
			sum := mpi.OpCreate(func(inout, in []int32) {}, true)
			expect("Accumulate of a user op", mpi.Accumulate(win, make([]int32, 2), 1-rank, 0, sum), nil, "Accumulate")
			expect("Accumulate of Maxloc", mpi.Accumulate(win, make([]float64, 2), 1-rank, 0, mpi.Maxloc), nil, "Accumulate")
			must(t, win.Fence(0))
			must(t, win.Free())

			// A nonblocking receive and a Sendrecv shorter than their messages.
			if rank == 0 {
				must(t, mpi.Send(w, make([]int64, 16), 1, 20))
				must(t, mpi.Send(w, make([]int64, 16), 1, 21))
			} else {
				q, err := mpi.Irecv(w, make([]int64, 8), 0, 20)
				must(t, err)
				_, err = q.Wait()
				expect("Wait of an Irecv", err, mpi.ErrTruncate, "Wait: from rank 0", "128", "64")
				_, err = mpi.Sendrecv(w, []int64{}, mpi.ProcNull, 0, make([]int64, 8), 0, 21)
				expect("Sendrecv", err, mpi.ErrTruncate, "Sendrecv: from rank 0", "128", "64")
			}
			// A Scatter whose root sends rank 1 more than its buffer holds.
			rbuf := make([]int32, 8)
			if rank == 1 {
				rbuf = rbuf[:4]
			}
			err = mpi.Scatter(w, make([]int32, 16), rbuf, 0)
			if rank == 1 {
				expect("Scatter", err, mpi.ErrTruncate, "Scatter", "rank 0", "32", "16")
			}
			// Collectives whose ranks pass different lengths: each error names the
			// call and, where it can, the other rank and both lengths.
			err = mpi.Allgather(w, make([]int32, 2+2*rank), make([]int32, 4*size))
			seen("Allgather", err, "Allgather")
			err = mpi.Alltoall(w, make([]int32, 2*size*(1+rank)), make([]int32, 2*size*(1+rank)))
			seen("Alltoall", err, "Alltoall")
			err = mpi.Reduce(w, make([]int64, 4+4*rank), make([]int64, 4+4*rank), mpi.Sum, 0)
			seen("Reduce", err, "Reduce")
			must(t, w.Barrier())
			// A reduction op on a type it is not defined on.
			expect("Allreduce of Band on floats", mpi.Allreduce(w, []float64{1}, make([]float64, 1), mpi.Band), mpi.ErrOp, "Allreduce")
			// Topologies: a negative dimension, a direction beyond the grid, a graph
			// edge to no rank, a neighbour out of range.
			_, err = w.CartCreate([]int{-1, 2}, []bool{false, false}, false)
			expect("CartCreate of a negative dimension", err, nil, "CartCreate")
			cart, err := w.CartCreate([]int{size}, []bool{false}, false)
			must(t, err)
			_, _, err = cart.CartShift(3, 1)
			expect("CartShift", err, nil, "CartShift")
			must(t, cart.Free())
			_, err = w.GraphCreate([]int{1, 2}, []int{5, 0}, false)
			expect("GraphCreate", err, nil, "GraphCreate")
			_, err = w.DistGraphCreateAdjacent([]int{7}, nil, nil, nil, false)
			expect("DistGraphCreateAdjacent", err, nil, "DistGraphCreateAdjacent")
			// Datatypes: a negative count; elements that cannot be raw memory.
			_, err = mpi.TypeVector(-1, 1, 1, mpi.Int32)
			expect("TypeVector", err, nil, "TypeVector")
			expect("SendBuf of pointers", mpi.SendBuf(w, mpi.Typed(make([]*int, 2), 2, mpi.Int64), 1-rank, 15), nil)
			// A file that is not there.
			_, err = mpi.FileOpen(mpi.Self, filepath.Join(os.TempDir(), "mpigo-no-such-dir", "x"), mpi.ModeRdonly, nil)
			expect("FileOpen", err, nil, "FileOpen")

			for _, s := range texts {
				if m := internalName.FindString(s); m != "" {
					t.Errorf("an error names an internal package (%q): %s", strings.Trim(m, ":( "), s)
				}
				t.Logf("rank %d: %s", rank, s)
			}
		})
	})
}
