// Io measures MPI-IO by the method of ../shared/anchors/io.c, whose header is the
// contract: one file in $ANCHOR_IODIR (default /dev/shm) shared by every rank; each
// figure the median of reps repetitions (9 times the scale, between 3 and 64); every
// write followed by Sync inside the timed region; everything read back checked
// against what was written (a mismatch aborts). Keys ("io_n<np>"): open_close (us),
// write_contig and read_contig (a 16 MiB block per rank, WriteAtAll/ReadAtAll, MB/s
// of all ranks), write_strided and read_strided (4 KiB blocks round robin over the
// ranks through a resized filetype, MB/s), write_small (4096 independent 64-byte
// WriteAt per rank, interleaved by rank, us per record), write_ordered (FileWriteOrdered
// of one 4 KiB record per rank from the shared file pointer, 200 times the scale, us
// per call).
//
//	mpigo run -n 4 ./bench/io [scale]
package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mpigo/mpigo/bench/osu"
	"github.com/mpigo/mpigo/mpi"
)

const (
	block     = 16 << 20
	strideBlk = 4096
	small     = 64
	nsmall    = 4096
)

var (
	w     *mpi.Comm
	rank  int
	np    int
	bench string
)

func must(err error) {
	if err != nil {
		osu.Die("io: %v", err)
	}
}

// fill writes io.c's pattern: 8-byte words of rank, repetition and position.
func fill(b []byte, r, rep int) {
	for i := 0; i+8 <= len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], uint64(r)<<48^uint64(rep)<<40^uint64(i))
	}
}

// memset sets every byte of b to v as io.c's memset does: a copy doubling what is
// set, not a loop over the bytes, whose time inside the timed loops would be the
// benchmark's rather than the library's.
func memset(b []byte, v byte) {
	if len(b) == 0 {
		return
	}
	b[0] = v
	for k := 1; k < len(b); k *= 2 {
		copy(b[k:], b[:k])
	}
}

// check aborts the job unless ok holds on every rank.
func check(what string, ok bool) {
	in, all := []int32{0}, []int32{0}
	if ok {
		in[0] = 1
	}
	must(mpi.Allreduce(w, in, all, mpi.Land))
	if all[0] == 0 {
		if rank == 0 {
			fmt.Fprintf(os.Stderr, "io: wrong data read back: %s\n", what)
		}
		mpi.Abort(2)
	}
}

func result(key string, v float64, unit string) {
	if rank == 0 {
		osu.Result(bench, key, v, 3, unit)
	}
}

// timed runs f between barriers and returns its time in seconds.
func timed(f func()) float64 {
	must(w.Barrier())
	t0 := mpi.Wtime()
	f()
	must(w.Barrier())
	return mpi.Wtime() - t0
}

func main() {
	osu.Init()
	defer mpi.Finalize()
	w, rank, np = mpi.World, mpi.World.Rank(), mpi.World.Size()
	bench = fmt.Sprintf("io_n%d", np)
	scale := osu.Scale()
	reps := min(max(osu.Scaled(9, max(scale, 1)), 3), 64)
	dir := os.Getenv("ANCHOR_IODIR")
	if dir == "" {
		dir = "/dev/shm"
	}
	stamp := []int64{int64(os.Getpid())}
	must(mpi.Bcast(w, stamp, 0))
	path := filepath.Join(dir, fmt.Sprintf("anchor-io-%d.dat", stamp[0]))
	wbuf, rbuf := osu.Buffer(block), osu.Buffer(block)
	t, tr := make([]float64, reps), make([]float64, reps)
	amode := mpi.ModeCreate | mpi.ModeRdwr

	for r := range reps {
		t[r] = timed(func() {
			f, err := mpi.FileOpen(w, path, amode, nil)
			must(err)
			must(f.Close())
		})
	}
	result("open_close", osu.Median(t)*1e6, "us")

	f, err := mpi.FileOpen(w, path, amode, nil)
	must(err)
	total := float64(block) * float64(np)
	off := int64(rank) * block
	for r := range reps {
		fill(wbuf, rank, r)
		t[r] = timed(func() {
			_, err := mpi.FileWriteAtAll(f, off, wbuf)
			must(err)
			must(f.Sync())
		})
		clear(rbuf)
		tr[r] = timed(func() {
			_, err := mpi.FileReadAtAll(f, off, rbuf)
			must(err)
		})
		check("read_contig", bytes.Equal(wbuf, rbuf))
	}
	result("write_contig", total/osu.Median(t)/1e6, "MB/s")
	result("read_contig", total/osu.Median(tr)/1e6, "MB/s")

	blk, err := mpi.TypeContiguous(strideBlk, mpi.Byte)
	must(err)
	ft, err := mpi.TypeResized(blk, 0, strideBlk*np)
	must(err)
	must(ft.Commit())
	must(f.SetView(int64(rank*strideBlk), mpi.Byte, ft, "native", nil))
	for r := range reps {
		fill(wbuf, rank, r+100)
		t[r] = timed(func() {
			_, err := mpi.FileWriteAtAll(f, 0, wbuf)
			must(err)
			must(f.Sync())
		})
		clear(rbuf)
		tr[r] = timed(func() {
			_, err := mpi.FileReadAtAll(f, 0, rbuf)
			must(err)
		})
		check("read_strided", bytes.Equal(wbuf, rbuf))
	}
	result("write_strided", total/osu.Median(t)/1e6, "MB/s")
	result("read_strided", total/osu.Median(tr)/1e6, "MB/s")
	// The strided data seen as plain bytes: block k belongs to rank k % np.
	must(f.SetView(0, mpi.Byte, mpi.Byte, "native", nil))
	k := min(np-1, 1)
	probe, want := make([]byte, strideBlk), make([]byte, strideBlk)
	_, err = mpi.FileReadAt(f, int64(k*strideBlk), probe)
	must(err)
	fill(want, k%np, reps-1+100)
	check("strided layout", bytes.Equal(probe, want))

	for r := range reps {
		t[r] = timed(func() {
			for i := range nsmall {
				at := int64(i*np+rank) * small
				rec := wbuf[:small]
				memset(rec, byte(i+rank+r))
				_, err := mpi.FileWriteAt(f, at, rec)
				must(err)
			}
			must(f.Sync())
		})
	}
	result("write_small", osu.Median(t)*1e6/nsmall, "us")
	rec := make([]byte, small)
	last := nsmall - 1
	_, err = mpi.FileReadAt(f, int64(last*np+rank)*small, rec)
	must(err)
	check("write_small", rec[0] == byte(last+rank+reps-1) && rec[small-1] == rec[0])

	nord := osu.Scaled(200, scale)
	for r := range reps {
		_, err := f.SeekShared(0, io.SeekStart)
		must(err)
		t[r] = timed(func() {
			for range nord {
				rec := wbuf[:strideBlk]
				memset(rec, byte(rank+1))
				_, err := mpi.FileWriteOrdered(f, rec)
				must(err)
			}
		})
	}
	result("write_ordered", osu.Median(t)*1e6/float64(nord), "us")
	// The last rank's record of the first round.
	q := np - 1
	probe = probe[:strideBlk]
	_, err = mpi.FileReadAt(f, int64(q*strideBlk), probe)
	must(err)
	check("write_ordered", probe[0] == byte(q+1) && probe[strideBlk-1] == byte(q+1))

	must(f.Close())
	must(ft.Free())
	must(blk.Free())
	must(w.Barrier())
	if rank == 0 {
		must(mpi.FileDelete(path, nil))
	}
}
