package mpi_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// A nil *Datatype is MPI_DATATYPE_NULL. As the datatype of no items it is taken by
// every family of calls (real programs pass it so, and MPICH takes it since 4.0.1);
// with items it is ErrType naming the argument. abi's nulltype.c checks the C face.

// none is a Buf of no items of the null datatype.
func none() mpi.Buf { return mpi.Typed([]byte(nil), 0, nil) }

// wantNullErr checks that err is ErrType saying MPI_DATATYPE_NULL and naming arg.
func wantNullErr(t *testing.T, what string, err error, arg string) {
	t.Helper()
	if !errors.Is(err, mpi.ErrType) || err == nil || !strings.Contains(err.Error(), "MPI_DATATYPE_NULL") || !strings.Contains(err.Error(), arg) {
		t.Errorf("%s: %v; want ErrType naming MPI_DATATYPE_NULL and %s", what, err, arg)
	}
}

// TestNullDatatypeP2P: blocking sends in each mode, nonblocking, persistent,
// partitioned, send-receive and matched receives of no items of the null datatype.
func TestNullDatatypeP2P(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w, peer := mpi.World, 1-rank
		if rank == 0 {
			must(t, mpi.SendBuf(w, none(), peer, 1))
			must(t, mpi.SsendBuf(w, none(), peer, 2))
		} else {
			for tag := 1; tag <= 2; tag++ {
				st, err := mpi.RecvBuf(w, none(), peer, tag)
				must(t, err)
				if st.Source != peer || st.Tag != tag || st.Bytes() != 0 {
					t.Errorf("RecvBuf of tag %d: source %d tag %d, %d bytes", tag, st.Source, st.Tag, st.Bytes())
				}
			}
		}
		st, err := mpi.RecvBuf(w, none(), mpi.ProcNull, 10)
		must(t, err)
		if st.Source != mpi.ProcNull {
			t.Errorf("RecvBuf from ProcNull: source %d", st.Source)
		}

		// Nonblocking and persistent.
		s, err := mpi.IsendBuf(w, none(), peer, 3)
		must(t, err)
		r, err := mpi.IrecvBuf(w, none(), peer, 3)
		must(t, err)
		must(t, mpi.Waitall([]mpi.Request{s, r}, nil))
		ps, err := mpi.SendInitBuf(w, none(), peer, 4)
		must(t, err)
		pr, err := mpi.RecvInitBuf(w, none(), peer, 4)
		must(t, err)
		for range 2 {
			rs := []mpi.Request{ps, pr}
			must(t, mpi.Startall(rs))
			sts := make([]mpi.Status, 2)
			must(t, mpi.Waitall(rs, sts))
			if sts[1].Tag != 4 {
				t.Errorf("persistent receive: tag %d", sts[1].Tag)
			}
		}
		must(t, ps.Free())
		must(t, pr.Free())

		// Partitioned: two partitions of no items.
		var q mpi.Request
		if rank == 0 {
			q, err = mpi.PsendInitBuf(w, none(), 2, peer, 5)
		} else {
			q, err = mpi.PrecvInitBuf(w, none(), 2, peer, 5)
		}
		must(t, err)
		must(t, q.Start())
		if rank == 0 {
			must(t, q.PreadyRange(0, 1))
		}
		_, err = q.Wait()
		must(t, err)
		must(t, q.Free())

		// Send-receive, and a matched receive.
		if st, err = mpi.SendrecvBuf(w, none(), peer, 6, none(), peer, 6); err != nil || st.Tag != 6 {
			t.Errorf("SendrecvBuf: tag %d, %v", st.Tag, err)
		}
		must(t, mpi.SendBuf(w, none(), peer, 7))
		m, _, err := w.Mprobe(peer, 7)
		must(t, err)
		if st, err = mpi.MrecvBuf(none(), &m); err != nil || st.Tag != 7 {
			t.Errorf("MrecvBuf: tag %d, %v", st.Tag, err)
		}

		// Packing no items.
		if n, err := mpi.PackSize(0, nil); n != 0 || err != nil {
			t.Errorf("PackSize(0, nil): %d, %v", n, err)
		}
		pos := 0
		must(t, mpi.Pack(none(), make([]byte, 8), &pos))
		must(t, mpi.Unpack(make([]byte, 8), &pos, none()))
		if pos != 0 {
			t.Errorf("Pack and Unpack of no items moved the position to %d", pos)
		}
		_, err = mpi.PackSize(1, nil)
		wantNullErr(t, "PackSize(1, nil)", err, "dt")

		// Data into no items is truncation, not a datatype error.
		if rank == 0 {
			must(t, mpi.Send(w, []int32{1}, peer, 8))
		} else if _, err := mpi.RecvBuf(w, none(), peer, 8); !errors.Is(err, mpi.ErrTruncate) {
			t.Errorf("4 bytes into no items: %v, want ErrTruncate", err)
		}

		// Items of the null datatype.
		wantNullErr(t, "SendBuf of 1 item", mpi.SendBuf(w, mpi.Typed([]int32{1}, 1, nil), peer, 9), "dt")
		_, err = mpi.IrecvBuf(w, mpi.Typed([]int32{1}, 1, nil), peer, 9)
		wantNullErr(t, "IrecvBuf of 1 item", err, "dt")
		_, err = mpi.PsendInitBuf(w, mpi.Typed([]int32{1, 2}, 2, nil), 2, peer, 9)
		wantNullErr(t, "PsendInitBuf of 2 items", err, "dt")
	})
}

// TestNullDatatypeCollectives: collectives whose blocks have no items of the null
// datatype, beside blocks of data of a real one.
func TestNullDatatypeCollectives(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		must(t, mpi.BcastBuf(w, none(), 0))
		must(t, mpi.GatherBuf(w, none(), none(), 0))
		must(t, mpi.AllgatherBuf(w, none(), none()))
		must(t, mpi.AlltoallBuf(w, none(), none()))
		zero := []int{0, 0}
		must(t, mpi.GathervBuf(w, none(), none(), zero, zero, 1))
		must(t, mpi.AlltoallvBuf(w, none(), zero, zero, none(), zero, zero))
		// A real type of no items on one side, the null one on the other.
		must(t, mpi.AllgatherBuf(w, mpi.Typed([]int32{1}, 0, mpi.Int32), none()))
		q, err := mpi.IbcastBuf(w, none(), 1)
		must(t, err)
		_, err = q.Wait()
		must(t, err)
		q, err = mpi.AlltoallInitBuf(w, none(), none())
		must(t, err)
		must(t, q.Start())
		_, err = q.Wait()
		must(t, err)
		must(t, q.Free())
		// Reductions of no items: the op is not looked at.
		must(t, mpi.AllreduceBuf(w, none(), none(), mpi.Sum))
		must(t, mpi.ReduceBuf(w, none(), none(), mpi.Max, 0))
		must(t, mpi.AllreduceBuf(w, mpi.InPlaceBuf, none(), mpi.Prod))
		must(t, mpi.ScanBuf(w, none(), none(), mpi.Sum))
		q, err = mpi.IallreduceBuf(w, none(), none(), mpi.Sum)
		must(t, err)
		_, err = q.Wait()
		must(t, err)
		// Items of it: every rank alike, so that none waits for another.
		wantNullErr(t, "BcastBuf of 1 item", mpi.BcastBuf(w, mpi.Typed([]int32{1}, 1, nil), 0), "dt")
		// A v form whose counts give the null datatype items: the Buf has none, the
		// counts say otherwise.
		one, at := []int{1, 1}, []int{0, 1}
		wantNullErr(t, "AlltoallvBuf of counts 1", mpi.AlltoallvBuf(w, none(), one, at, none(), one, at), "send's datatype")
		wantNullErr(t, "AllgathervBuf of counts 1", mpi.AllgathervBuf(w, none(), none(), one, at), "recv's datatype")
	})
}

// TestNullDatatypeRMAAndFile: one-sided operations and file accesses of no items.
func TestNullDatatypeRMAAndFile(t *testing.T) {
	ioJob(t, 2, func(t *testing.T, dir string, rank, size int) {
		peer := 1 - rank
		win, err := mpi.WinCreate(make([]byte, 16), 4, nil, mpi.World)
		must(t, err)
		must(t, win.Fence(0))
		must(t, mpi.PutBuf(win, none(), peer, 0, 0, nil))
		must(t, mpi.GetBuf(win, none(), peer, 0, 0, nil))
		must(t, mpi.AccumulateBuf(win, none(), peer, 0, 0, nil, mpi.Sum))
		must(t, mpi.GetAccumulateBuf(win, none(), none(), peer, 0, 0, nil, mpi.Sum))
		must(t, mpi.PutBuf(win, mpi.Typed([]int32{1}, 0, mpi.Int32), peer, 0, 0, nil))
		wantNullErr(t, "PutBuf of 1 target item", mpi.PutBuf(win, mpi.Typed([]int32{1}, 1, mpi.Int32), peer, 0, 1, nil), "target datatype")
		must(t, win.Fence(0))
		must(t, win.Free())

		f, err := mpi.FileOpen(mpi.World, filepath.Join(dir, "null"), mpi.ModeCreate|mpi.ModeRdwr|mpi.ModeDeleteOnClose, nil)
		must(t, err)
		if st, err := mpi.FileWriteAtBuf(f, 0, none()); err != nil || st.Bytes() != 0 {
			t.Errorf("FileWriteAtBuf of no items: %d bytes, %v", st.Bytes(), err)
		}
		_, err = mpi.FileReadAtBuf(f, 0, none())
		must(t, err)
		_, err = mpi.FileWriteAtAllBuf(f, 0, none())
		must(t, err)
		q, err := mpi.FileIreadAtBuf(f, 0, none())
		must(t, err)
		_, err = q.Wait()
		must(t, err)
		_, err = mpi.FileWriteAtBuf(f, 0, mpi.Typed([]byte{1}, 1, nil))
		wantNullErr(t, "FileWriteAtBuf of 1 item", err, "dt")
		must(t, f.Close())
	})
}

// TestNoByteTypeVForms: the v forms' blocks of a datatype of no bytes
// (TypeContiguous(0, ...)) move nothing whatever their counts, as the C face's do;
// the schedules sliced such a buffer by the counts, and panicked.
func TestNoByteTypeVForms(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		z, err := mpi.TypeContiguous(0, mpi.Int32)
		must(t, err)
		must(t, z.Commit())
		zb := func(n int) mpi.Buf { return mpi.Typed([]byte(nil), n, z) }
		one, at := []int{1, 1}, []int{0, 1}
		must(t, mpi.AllgathervBuf(w, zb(1), zb(2), one, at))
		must(t, mpi.AlltoallvBuf(w, zb(2), one, at, zb(2), one, at))
		must(t, mpi.GathervBuf(w, zb(1), zb(2), one, at, 0))
		must(t, mpi.ScattervBuf(w, zb(2), one, at, zb(1), 1))
		q, err := mpi.IalltoallvBuf(w, zb(2), one, at, zb(2), one, at)
		must(t, err)
		_, err = q.Wait()
		must(t, err)
		must(t, z.Free())
	})
}
