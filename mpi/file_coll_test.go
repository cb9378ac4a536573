package mpi_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// twoPhaseBlocks are rank r's blocks of a tile of 200 bytes: interleaved with the
// other ranks', with holes no rank writes.
func twoPhaseBlocks(r int) (lens, disps []int) {
	return []int{5 + r, 3, 2*r + 1}, []int{r * 10, 50 + r*7, 100 + r*13}
}

// TestFileTwoPhase writes and reads interleaved noncontiguous views collectively under
// hints that change the number of aggregators, their buffers, the domains' alignment
// and whether collective buffering runs at all: every setting gives the same file,
// keeps the holes' old bytes, and reads back the same data, a read cut by the end of
// the file reporting what there was and leaving the rest of the memory alone. The
// last rank takes part with no data.
func TestFileTwoPhase(t *testing.T) {
	ioJob(t, 4, func(t *testing.T, dir string, rank, size int) {
		const tile, tiles = 200, 5
		settings := [][]string{
			{"romio_cb_write", "disable", "romio_cb_read", "disable"},
			{},
			{"romio_cb_write", "enable", "romio_cb_read", "enable", "cb_nodes", "1", "cb_buffer_size", "64"},
			{"romio_cb_write", "enable", "romio_cb_read", "enable", "cb_nodes", "3", "cb_buffer_size", "100", "striping_unit", "16"},
			{"cb_nodes", "2", "cb_buffer_size", "333", "striping_unit", "128"},
		}
		// The reference: the old bytes, then every rank's data where its view puts it.
		old := bytes.Repeat([]byte{0xEE}, tile*tiles)
		ref := bytes.Clone(old)
		data := make([][]byte, size)
		for r := range size {
			lens, disps := twoPhaseBlocks(r)
			for k := range tiles {
				for j := range lens {
					for b := range lens[j] {
						v := byte(r*50 + len(data[r])%50 + 1)
						if r == size-1 {
							continue // the last rank writes nothing
						}
						data[r] = append(data[r], v)
						ref[k*tile+disps[j]+b] = v
					}
				}
			}
		}
		lens, disps := twoPhaseBlocks(rank)
		blocks, err := mpi.TypeHindexed(lens, disps, mpi.Byte)
		must(t, err)
		ft, err := mpi.TypeResized(blocks, 0, tile)
		must(t, err)
		must(t, ft.Commit())
		for i, kv := range settings {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				name := filepath.Join(dir, fmt.Sprint("t", i))
				f := openPrefilled(t, name, old, kv...)
				must(t, f.SetView(0, mpi.Byte, ft, "native", nil))
				st, err := mpi.FileWriteAll(f, data[rank])
				must(t, err)
				if st.Bytes() != int64(len(data[rank])) {
					t.Errorf("wrote %d bytes, want %d", st.Bytes(), len(data[rank]))
				}
				syncAll(t, f)
				if rank == 0 {
					raw, err := os.ReadFile(name)
					must(t, err)
					if !bytes.Equal(raw, ref) {
						t.Errorf("the file differs from the reference (%d bytes, want %d)", len(raw), len(ref))
					}
				}
				back := bytes.Repeat([]byte{0x55}, len(data[rank])+7)
				st, err = mpi.FileReadAtAll(f, 0, back[:len(data[rank])])
				must(t, err)
				if st.Bytes() != int64(len(data[rank])) || !bytes.Equal(back[:len(data[rank])], data[rank]) {
					t.Errorf("read back %d bytes, equal %v", st.Bytes(), bytes.Equal(back[:len(data[rank])], data[rank]))
				}
				// Cut the file inside the third tile: each rank reads what lies before the
				// first of its runs the file does not wholly hold.
				const cut = 2*tile + 60
				must(t, f.SetSize(cut))
				for i := range back {
					back[i] = 0x55
				}
				_, err = f.Seek(0, io.SeekStart) // the write moved the pointer
				must(t, err)
				st, err = mpi.FileReadAll(f, back[:len(data[rank])])
				must(t, err)
				want := 0
				if rank != size-1 {
					want = 2 * (len(data[rank]) / tiles)
					for j := range lens {
						if disps[j]+lens[j] <= 60 {
							want += lens[j]
						} else {
							want += max(0, 60-disps[j])
							break
						}
					}
				}
				if st.Bytes() != int64(want) || !bytes.Equal(back[:want], data[rank][:want]) {
					t.Errorf("a read cut by the end: %d bytes (want %d), equal %v", st.Bytes(), want, bytes.Equal(back[:want], data[rank][:want]))
				}
				if !bytes.Equal(back[want:], bytes.Repeat([]byte{0x55}, len(back)-want)) {
					t.Errorf("a read cut by the end wrote past what it read")
				}
				must(t, f.Close())
			})
		}
		must(t, ft.Free())
		must(t, blocks.Free())
	})
}

// TestFileSyncWriters checks that Sync has the processes that wrote since their last
// sync call fsync, and only them: after a two-phase write the aggregator, which wrote
// every rank's data, and not the ranks whose data it wrote; after an independent
// write its writer; after SetSize the rank that made the call; after an ordered
// write the rank that wrote every rank's record; after nothing, none;
// and that the file is then the reference.
func TestFileSyncWriters(t *testing.T) {
	ioJob(t, 3, func(t *testing.T, dir string, rank, size int) {
		const blk, tiles = 4, 8
		in := mpi.InfoCreate()
		must(t, in.Set("romio_cb_write", "enable"))
		must(t, in.Set("cb_nodes", "1"))
		name := filepath.Join(dir, "synced")
		f, err := mpi.FileOpen(mpi.World, name, mpi.ModeRdwr|mpi.ModeCreate|mpi.ModeDeleteOnClose, in)
		must(t, err)
		must(t, in.Free())
		last := mpi.FileSyncs(f)
		synced := func(what string, want int64) {
			t.Helper()
			must(t, f.Sync())
			if got := mpi.FileSyncs(f) - last; got != want {
				t.Errorf("%s: rank %d synced %d times, want %d", what, rank, got, want)
			}
			last = mpi.FileSyncs(f)
		}
		ref := make([]byte, 300)
		data := make([][]byte, size)
		for r := range size {
			for k := range tiles * blk {
				data[r] = append(data[r], byte(r*40+k+1))
				ref[(k/blk*size+r)*blk+k%blk] = data[r][k]
			}
		}
		blkT, ft := setStridedView(t, f, blk, rank, size)
		_, err = mpi.FileWriteAll(f, data[rank])
		must(t, err)
		synced("a two-phase write through rank 0", map[bool]int64{true: 1, false: 0}[rank == 0])
		must(t, f.SetView(0, mpi.Byte, mpi.Byte, "native", nil))
		indep := bytes.Repeat([]byte{0xA0}, 10)
		copy(ref[200:], indep)
		if rank == size-1 {
			_, err = mpi.FileWriteAt(f, 200, indep)
			must(t, err)
		}
		synced("an independent write by the last rank", map[bool]int64{true: 1, false: 0}[rank == size-1])
		synced("no write", 0)
		must(t, f.SetSize(int64(len(ref))))
		synced("SetSize", map[bool]int64{true: 1, false: 0}[rank == 0])
		_, err = f.SeekShared(250, io.SeekStart)
		must(t, err)
		rec := []byte{byte(0xC0 + rank), byte(0xD0 + rank)}
		for r := range size {
			ref[250+2*r], ref[251+2*r] = byte(0xC0+r), byte(0xD0+r)
		}
		_, err = mpi.FileWriteOrdered(f, rec)
		must(t, err)
		synced("an ordered write, which rank 0 makes", map[bool]int64{true: 1, false: 0}[rank == 0])
		must(t, mpi.World.Barrier())
		if rank == 0 {
			raw, err := os.ReadFile(name)
			must(t, err)
			if !bytes.Equal(raw, ref) {
				t.Errorf("the file differs from the reference (%d bytes, want %d)", len(raw), len(ref))
			}
		}
		must(t, f.Close())
		must(t, ft.Free())
		must(t, blkT.Free())
	})
}

// openPrefilled opens name on the world, deleted on close, with the hints kv (key,
// value, ...), and rank 0 writes old at its start, synced on every rank before it
// returns.
func openPrefilled(t *testing.T, name string, old []byte, kv ...string) *mpi.File {
	t.Helper()
	in := mpi.InfoCreate()
	for j := 0; j < len(kv); j += 2 {
		must(t, in.Set(kv[j], kv[j+1]))
	}
	f, err := mpi.FileOpen(mpi.World, name, mpi.ModeRdwr|mpi.ModeCreate|mpi.ModeDeleteOnClose, in)
	must(t, err)
	must(t, in.Free())
	if mpi.World.Rank() == 0 {
		_, err = mpi.FileWriteAt(f, 0, old)
		must(t, err)
	}
	syncAll(t, f)
	return f
}

// setStridedView gives rank's view of f blocks of blk bytes, every size-th block from
// its own, so that the ranks' blocks interleave in the file; it returns the block's
// type and the filetype, for the caller to free.
func setStridedView(t *testing.T, f *mpi.File, blk, rank, size int) (bt, ft *mpi.Datatype) {
	t.Helper()
	return setStridedTiles(t, f, blk, rank, size)
}

// setStridedTiles is setStridedView with tiles of tile blocks (size of them the
// ranks', the rest holes).
func setStridedTiles(t *testing.T, f *mpi.File, blk, rank, tile int) (bt, ft *mpi.Datatype) {
	t.Helper()
	bt, err := mpi.TypeContiguous(blk, mpi.Byte)
	must(t, err)
	ft, err = mpi.TypeResized(bt, 0, blk*tile)
	must(t, err)
	must(t, ft.Commit())
	must(t, f.SetView(int64(rank*blk), mpi.Byte, ft, "native", nil))
	return bt, ft
}

// TestFileTwoPhaseLongPieces writes interleaved blocks of 1500 bytes (an aggregator
// writes such pieces where they arrived, by vectored writes) through one and two
// aggregators whose windows cut blocks in two, from contiguous memory and from a
// strided memory type, with a hole block per tile that keeps its old bytes: the file
// is the reference byte for byte, on the disk and on /dev/shm.
func TestFileTwoPhaseLongPieces(t *testing.T) {
	ioJobsInMemoryAndTemp(t, mpitest.Options{N: 3}, twoPhaseLongPieces)
}

func twoPhaseLongPieces(t *testing.T, dir string, rank, size int) {
	const blk, tiles = 1500, 20
	tile := blk * (size + 1)
	old := bytes.Repeat([]byte{0xEE}, tile*tiles)
	ref := bytes.Clone(old)
	data := make([][]byte, size)
	for r := range size {
		for k := range tiles * blk {
			v := byte(r*61 + k*7 + k>>8 + 1)
			data[r] = append(data[r], v)
			ref[k/blk*tile+r*blk+k%blk] = v
		}
	}
	// The strided memory: every other int32 of a buffer twice as long.
	vec, err := mpi.TypeVector(blk*tiles/4, 1, 2, mpi.Int32)
	must(t, err)
	must(t, vec.Commit())
	spread := make([]byte, 2*len(data[rank]))
	for i := 0; i < len(data[rank]); i += 4 {
		copy(spread[2*i:2*i+4], data[rank][i:i+4])
	}
	for i, kv := range [][]string{
		{"cb_nodes", "1", "cb_buffer_size", "10000"},
		{"cb_nodes", "2", "cb_buffer_size", "7000", "striping_unit", "512"},
	} {
		for _, strided := range []bool{false, true} {
			name := filepath.Join(dir, fmt.Sprint("long", i, strided))
			f := openPrefilled(t, name, old, append([]string{"romio_cb_write", "enable"}, kv...)...)
			bt, ft := setStridedViewHoles(t, f, blk, rank, size)
			if strided {
				sb := make([]int32, len(spread)/4)
				for j := range sb {
					sb[j] = int32(uint32(spread[4*j]) | uint32(spread[4*j+1])<<8 | uint32(spread[4*j+2])<<16 | uint32(spread[4*j+3])<<24)
				}
				_, err = mpi.FileWriteAllBuf(f, mpi.Typed(sb, 1, vec))
			} else {
				_, err = mpi.FileWriteAll(f, data[rank])
			}
			must(t, err)
			syncAll(t, f)
			if rank == 0 {
				raw, err := os.ReadFile(name)
				must(t, err)
				if !bytes.Equal(raw, ref) {
					t.Errorf("hints %v, strided memory %v: the file differs from the reference (%d bytes, want %d)", kv, strided, len(raw), len(ref))
				}
			}
			must(t, f.Close())
			must(t, ft.Free())
			must(t, bt.Free())
		}
	}
	must(t, vec.Free())
}

// setStridedViewHoles is setStridedView with a hole of a block after each tile's
// blocks of the size ranks.
func setStridedViewHoles(t *testing.T, f *mpi.File, blk, rank, size int) (bt, ft *mpi.Datatype) {
	t.Helper()
	return setStridedTiles(t, f, blk, rank, size+1)
}

// TestFileWriteBehind: on a local disk the long writes of a file start their
// writeback as they go (few of their pages are left dirty in the page cache, by
// cachestat), collective and independent; the hint mpigo_write_behind is reported
// as "automatic", and "disable" leaves the next writes' pages dirty until the sync.
func TestFileWriteBehind(t *testing.T) {
	ioJob(t, 2, func(t *testing.T, dir string, rank, size int) {
		name := filepath.Join(dir, "behind")
		f, err := mpi.FileOpen(mpi.World, name, mpi.ModeRdwr|mpi.ModeCreate|mpi.ModeDeleteOnClose, nil)
		must(t, err)
		if v := infoMap(t, f)["mpigo_write_behind"]; v != "automatic" {
			t.Errorf("hint mpigo_write_behind = %q, want automatic", v)
		}
		probe, err := os.Open(name)
		must(t, err)
		defer probe.Close()
		var fs unix.Statfs_t
		must(t, unix.Fstatfs(int(probe.Fd()), &fs))
		disk := fs.Type == unix.EXT4_SUPER_MAGIC || fs.Type == unix.XFS_SUPER_MAGIC || fs.Type == unix.BTRFS_SUPER_MAGIC
		const blk = 6 << 20
		mine := bytes.Repeat([]byte{byte(rank + 1)}, blk)
		round := 0
		write := func(what, behind string, coll bool) {
			t.Helper()
			if behind != "" {
				in := mpi.InfoCreate()
				must(t, in.Set("mpigo_write_behind", behind))
				must(t, f.SetInfo(in))
				must(t, in.Free())
			}
			off := int64((round*size + rank) * blk)
			round++
			if coll {
				_, err = mpi.FileWriteAtAll(f, off, mine)
			} else {
				_, err = mpi.FileWriteAt(f, off, mine)
			}
			must(t, err)
			var st unix.Cachestat_t
			r := unix.CachestatRange{Off: uint64(off), Len: blk}
			if !disk || unix.Cachestat(uint(probe.Fd()), &r, &st, 0) != nil {
				return // not a local disk, or a kernel without cachestat: nothing to see
			}
			pages := uint64(blk / 4096)
			if on := behind != "disable"; on && st.Dirty > pages/4 || !on && st.Dirty < pages/2 {
				t.Errorf("%s (mpigo_write_behind %q): %d of rank %d's %d pages dirty", what, behind, st.Dirty, rank, pages)
			}
		}
		write("FileWriteAtAll", "", true)
		write("FileWriteAtAll", "disable", true)
		write("FileWriteAt", "enable", false)
		must(t, f.Sync())
		back := make([]byte, blk)
		for r := range round {
			_, err = mpi.FileReadAt(f, int64((r*size+rank)*blk), back)
			must(t, err)
			if !bytes.Equal(back, mine) {
				t.Errorf("round %d: the file does not hold rank %d's block", r, rank)
			}
		}
		must(t, f.Close())
	})
}
