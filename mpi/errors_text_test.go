package mpi_test

import (
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// internalName matches the name of one of mpigo's internal packages where an error's
// text would name one: at the start of a part of it ("p2p: message truncated"),
// followed by a colon.
var internalName = func() *regexp.Regexp {
	ents, err := os.ReadDir("../internal")
	if err != nil {
		panic(err)
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	// The transports, under internal/transport.
	names = append(names, "shm", "tcp", "self", "pmi")
	return regexp.MustCompile(`(^|: |\()(` + strings.Join(names, "|") + `): `)
}()

// TestErrorTextNamesNoInternalPackage makes bad calls of many kinds on two ranks,
// over shared memory and over TCP, and checks that no error's text names one of
// mpigo's internal packages; the truncations name the call, the peer and both
// lengths, as the package doc promises for Bcast.
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

			// A receive into a buffer shorter than the message.
			if rank == 0 {
				must(t, mpi.Send(w, make([]int64, 16), 1, 7))
			} else {
				_, err := mpi.Recv(w, make([]int64, 8), 0, 7)
				expect("Recv", err, mpi.ErrTruncate, "Recv", "128", "64")
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
			must(t, win.Fence(0))
			must(t, win.Free())

			for _, s := range texts {
				if m := internalName.FindString(s); m != "" {
					t.Errorf("an error names an internal package (%q): %s", strings.Trim(m, ":( "), s)
				}
				t.Logf("rank %d: %s", rank, s)
			}
		})
	})
}
