package mpi_test

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// runOver runs body on n ranks once per transport.
func runOver(t *testing.T, n int, body func(t *testing.T)) {
	t.Helper()
	eachTransport(t, func(t *testing.T, tr mpitest.Transport) {
		mpitest.Job(t, mpitest.Options{N: n, Transport: tr}, body)
	})
}

// worldOf makes a communicator of every process from s.
func worldOf(t *testing.T, s *mpi.Session, tag string) *mpi.Comm {
	t.Helper()
	g, err := s.GroupFromPset("mpi://WORLD")
	must(t, err)
	c, err := mpi.CommCreateFromGroup(g, tag, nil, nil)
	must(t, err)
	return c
}

// useComm checks c works: an Allreduce and a ring of Send/Recv.
func useComm(t *testing.T, c *mpi.Comm) {
	t.Helper()
	r, n := c.Rank(), c.Size()
	sum := []int64{0}
	must(t, mpi.Allreduce(c, []int64{int64(r + 1)}, sum, mpi.Sum))
	if want := int64(n * (n + 1) / 2); sum[0] != want {
		t.Fatalf("Allreduce on %d ranks: %d, want %d", n, sum[0], want)
	}
	if n < 2 {
		return
	}
	in := []int32{-1}
	next, prev := (r+1)%n, (r+n-1)%n
	if r%2 == 0 {
		must(t, mpi.Send(c, []int32{int32(r)}, next, 7))
		_, err := mpi.Recv(c, in, prev, 7)
		must(t, err)
	} else {
		_, err := mpi.Recv(c, in, prev, 7)
		must(t, err)
		must(t, mpi.Send(c, []int32{int32(r)}, next, 7))
	}
	if in[0] != int32(prev) {
		t.Fatalf("rank %d got %d from its left, want %d", r, in[0], prev)
	}
}

// TestSessionOnly is a program with sessions only: no Init, a communicator of every
// process from mpi://WORLD, collectives and point-to-point on it.
func TestSessionOnly(t *testing.T) {
	runOver(t, 3, func(t *testing.T) {
		s, err := mpi.SessionInit(nil, mpi.ErrorsReturn)
		must(t, err)
		if mpi.Initialized() || mpi.Finalized() {
			t.Fatal("a session made the world model initialized")
		}
		n, err := s.NumPsets(nil)
		must(t, err)
		if n != 2 {
			t.Fatalf("NumPsets = %d, want 2", n)
		}
		for i, want := range []string{"mpi://WORLD", "mpi://SELF"} {
			name, err := s.NthPset(nil, i)
			must(t, err)
			if name != want {
				t.Errorf("NthPset(%d) = %q, want %q", i, name, want)
			}
		}
		in, err := s.PsetInfo("mpi://world") // names in any case
		must(t, err)
		if v, ok, _ := in.Get("mpi_size"); !ok || v != "3" {
			t.Errorf("mpi://world's mpi_size = %q (%v), want 3", v, ok)
		}
		in, err = s.PsetInfo("MPI://SELF")
		must(t, err)
		if v, _, _ := in.Get("mpi_size"); v != "1" {
			t.Errorf("mpi://SELF's mpi_size = %q, want 1", v)
		}
		in, err = s.Info()
		must(t, err)
		for _, k := range []string{"mpi_thread_support_level", "thread_level"} {
			if v, _, _ := in.Get(k); v != "MPI_THREAD_MULTIPLE" {
				t.Errorf("%s = %q, want MPI_THREAD_MULTIPLE", k, v)
			}
		}

		if v, _, _ := mpi.InfoEnv.Get("maxprocs"); v != "3" {
			t.Errorf("InfoEnv's maxprocs with sessions only = %q, want 3", v)
		}
		c := worldOf(t, s, "org.mpigo.test.world")
		if c.Size() != 3 || c.Rank() < 0 || c.Rank() > 2 {
			t.Fatalf("communicator from mpi://WORLD: rank %d of %d", c.Rank(), c.Size())
		}
		useComm(t, c)
		dup, err := c.Dup()
		must(t, err)
		useComm(t, dup)
		must(t, dup.Free())

		gs, err := s.GroupFromPset("mpi://SELF")
		must(t, err)
		self, err := mpi.CommCreateFromGroup(gs, "org.mpigo.test.self", nil, nil)
		must(t, err)
		if self.Size() != 1 || self.Rank() != 0 {
			t.Errorf("communicator from mpi://SELF: rank %d of %d", self.Rank(), self.Size())
		}
		useComm(t, self)

		// World is the world model's: closed to a program with sessions only.
		if err := mpi.World.Barrier(); !errors.Is(err, mpi.ErrOther) || !strings.Contains(err.Error(), "world model") {
			t.Errorf("World.Barrier without Init: %v, want ErrOther naming the world model", err)
		}
		if r := mpi.World.Rank(); r != mpi.Undefined {
			t.Errorf("World.Rank without Init = %d, want Undefined", r)
		}
		must(t, self.Free())
		must(t, c.Free())
		must(t, s.Finalize())
		if mpi.Initialized() || mpi.Finalized() {
			t.Error("finalizing the session changed the world model's state")
		}
		if _, err := s.NumPsets(nil); !errors.Is(err, mpi.ErrSession) {
			t.Errorf("NumPsets after Finalize: %v, want ErrSession", err)
		}
		// MPI idles: its calls fail until a session begins again.
		if err := mpi.BufferFlush(); !errors.Is(err, mpi.ErrOther) {
			t.Errorf("BufferFlush with MPI idle: %v, want ErrOther", err)
		}
		for round := 0; round < 2; round++ {
			s, err := mpi.SessionInit(nil, nil)
			must(t, err)
			c := worldOf(t, s, "again")
			useComm(t, c)
			must(t, c.Free())
			must(t, s.Finalize())
		}
	})
}

// TestSessionWithWorld mixes sessions with the world model, in both orders: the
// runtime lives until the last of them ends.
func TestSessionWithWorld(t *testing.T) {
	mpitest.Run(t, 3, func(t *testing.T) {
		// A session first, then Init.
		s1, err := mpi.SessionInit(nil, nil)
		must(t, err)
		must(t, mpi.Init())
		if !mpi.Initialized() {
			t.Fatal("Init after a session: not Initialized")
		}
		c1 := worldOf(t, s1, "first")
		cmp, err := mpi.CommCompare(c1, mpi.World)
		must(t, err)
		if cmp != mpi.Congruent {
			t.Errorf("mpi://WORLD's communicator against World: %v, want Congruent", cmp)
		}
		useComm(t, c1)
		useComm(t, mpi.World)
		must(t, c1.Free())
		must(t, s1.Finalize())
		useComm(t, mpi.World) // the world model keeps MPI up

		// A session begun under the world model outlives it.
		s2, err := mpi.SessionInit(nil, nil)
		must(t, err)
		c2 := worldOf(t, s2, "second")
		must(t, mpi.Finalize())
		if !mpi.Finalized() {
			t.Fatal("Finalize with a session left: not Finalized")
		}
		if err := mpi.World.Barrier(); !errors.Is(err, mpi.ErrOther) {
			t.Errorf("World.Barrier after Finalize: %v, want ErrOther", err)
		}
		useComm(t, c2)
		must(t, c2.Free())
		must(t, s2.Finalize())
	})
}

// TestTwoSessions runs two sessions at once, making communicators from overlapping
// groups concurrently in two goroutines, told apart by their string tags.
func TestTwoSessions(t *testing.T) {
	runOver(t, 4, func(t *testing.T) {
		a, err := mpi.SessionInit(nil, nil)
		must(t, err)
		info := mpi.InfoCreate()
		must(t, info.Set("thread_level", "MPI_THREAD_SERIALIZED"))
		b, err := mpi.SessionInit(info, nil)
		must(t, err)
		in, err := b.Info()
		must(t, err)
		if v, _, _ := in.Get("mpi_thread_support_level"); v != mpi.ThreadSerialized.String() || v != "MPI_THREAD_SERIALIZED" {
			t.Errorf("second session's level = %q, want MPI_THREAD_SERIALIZED", v)
		}
		ga, err := a.GroupFromPset("mpi://WORLD")
		must(t, err)
		gb, err := b.GroupFromPset("mpi://WORLD")
		must(t, err)
		// b: the even ranks, reversed; a: everybody.
		gEven, err := gb.Incl([]int{2, 0})
		must(t, err)
		me := ga.Rank()
		var wg sync.WaitGroup
		comms := make([]*mpi.Comm, 2)
		errs := make([]error, 2)
		for i := 0; i < 2; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				switch i {
				case 0:
					comms[0], errs[0] = mpi.CommCreateFromGroup(ga, "tag-a", nil, nil)
				case 1:
					if me%2 == 0 {
						comms[1], errs[1] = mpi.CommCreateFromGroup(gEven, "tag-b", nil, nil)
					}
				}
			}(i)
		}
		wg.Wait()
		must(t, errs[0])
		must(t, errs[1])
		useComm(t, comms[0])
		if me%2 == 0 {
			if comms[1].Size() != 2 || comms[1].Rank() != map[int]int{2: 0, 0: 1}[me] {
				t.Fatalf("even communicator: rank %d of %d on world rank %d", comms[1].Rank(), comms[1].Size(), me)
			}
			useComm(t, comms[1])
			must(t, comms[1].Free())
		}
		must(t, comms[0].Free())
		must(t, a.Finalize())
		must(t, b.Finalize())
	})
}

// TestIntercommFromGroups joins the lower and upper halves of the job.
func TestIntercommFromGroups(t *testing.T) {
	runOver(t, 4, func(t *testing.T) {
		s, err := mpi.SessionInit(nil, nil)
		must(t, err)
		g, err := s.GroupFromPset("mpi://WORLD")
		must(t, err)
		lo, err := g.Incl([]int{0, 1})
		must(t, err)
		hi, err := g.Incl([]int{3, 2})
		must(t, err)
		me := g.Rank()
		local, remote, ll, rl := lo, hi, 0, 1
		if me >= 2 {
			local, remote, ll, rl = hi, lo, 1, 0
		}
		ic, err := mpi.IntercommCreateFromGroups(local, ll, remote, rl, "halves", nil, nil)
		must(t, err)
		if !ic.IsInter() || ic.Size() != 2 || ic.RemoteSize() != 2 {
			t.Fatalf("intercommunicator: inter %v, size %d, remote %d", ic.IsInter(), ic.Size(), ic.RemoteSize())
		}
		// Rank i of each side sends to rank i of the other.
		r := ic.Rank()
		got := []int32{-1}
		_, err = mpi.Sendrecv(ic, []int32{int32(me)}, r, 3, got, r, 3)
		must(t, err)
		want, _ := mpi.TranslateRanks(remote, []int{r}, g)
		if int(got[0]) != want[0] {
			t.Errorf("world rank %d got %d from the other side's rank %d, want %d", me, got[0], r, want[0])
		}
		merged, err := ic.IntercommMerge(me >= 2)
		must(t, err)
		useComm(t, merged)
		must(t, merged.Free())
		must(t, ic.Free())

		// Overlapping groups, and leaders out of range.
		if _, err := mpi.IntercommCreateFromGroups(g, 0, lo, 0, "x", nil, nil); !errors.Is(err, mpi.ErrGroup) {
			t.Errorf("overlapping groups: %v, want ErrGroup", err)
		}
		if _, err := mpi.IntercommCreateFromGroups(local, 5, remote, 0, "x", nil, nil); !errors.Is(err, mpi.ErrRank) {
			t.Errorf("local leader 5 of 2: %v, want ErrRank", err)
		}
		// A leader out of range at one rank only fails every rank of both sides.
		bad := rl
		if me == 3 {
			bad = 7
		}
		if _, err := mpi.IntercommCreateFromGroups(local, ll, remote, bad, "y", nil, nil); !errors.Is(err, mpi.ErrRank) {
			t.Errorf("remote leader 7 at rank 3 only: rank %d got %v, want ErrRank", me, err)
		}
		must(t, s.Finalize())
	})
}

// TestSessionErrors gives the session calls bad input: nil and finalized sessions,
// unknown process sets, handlers of the wrong kind, a string tag too long; and checks
// where each error goes.
func TestSessionErrors(t *testing.T) {
	mpitest.Run(t, 2, func(t *testing.T) {
		var nilS *mpi.Session
		if _, err := nilS.NumPsets(nil); !errors.Is(err, mpi.ErrSession) {
			t.Errorf("NumPsets on nil: %v, want ErrSession", err)
		}
		if _, err := nilS.GroupFromPset("mpi://WORLD"); !errors.Is(err, mpi.ErrSession) {
			t.Errorf("GroupFromPset on nil: %v, want ErrSession", err)
		}
		if err := nilS.Finalize(); !errors.Is(err, mpi.ErrSession) {
			t.Errorf("Finalize on nil: %v, want ErrSession", err)
		}
		if err := nilS.SetErrHandler(nil); !errors.Is(err, mpi.ErrSession) {
			t.Errorf("SetErrHandler on nil: %v, want ErrSession", err)
		}
		if nilS.ErrHandler() != mpi.ErrorsReturn {
			t.Error("nil session's handler is not ErrorsReturn")
		}

		// A handler of another kind is refused.
		commH := mpi.NewErrHandler(func(*mpi.Comm, error) {})
		if _, err := mpi.SessionInit(nil, commH); !errors.Is(err, mpi.ErrErrhandler) {
			t.Errorf("SessionInit with a communicator handler: %v, want ErrErrhandler", err)
		}

		var seen []string
		var seenS []*mpi.Session
		h := mpi.NewSessionErrHandler(func(s *mpi.Session, err error) {
			seen = append(seen, err.Error())
			seenS = append(seenS, s)
		})
		s, err := mpi.SessionInit(nil, h)
		must(t, err)
		if s.ErrHandler() != h {
			t.Error("SessionInit's handler is not the session's")
		}
		if _, err := s.GroupFromPset("mpi://nowhere"); !errors.Is(err, mpi.ErrArg) || !strings.Contains(err.Error(), "mpi://nowhere") {
			t.Errorf("unknown pset: %v, want ErrArg naming it", err)
		}
		if _, err := s.PsetInfo("mpi://nowhere"); !errors.Is(err, mpi.ErrArg) {
			t.Errorf("PsetInfo of an unknown pset: %v, want ErrArg", err)
		}
		if _, err := s.NthPset(nil, 2); !errors.Is(err, mpi.ErrArg) {
			t.Errorf("NthPset(2): %v, want ErrArg", err)
		}
		if _, err := s.NthPset(nil, -1); !errors.Is(err, mpi.ErrArg) {
			t.Errorf("NthPset(-1): %v, want ErrArg", err)
		}
		if len(seen) != 4 || seenS[0] != s {
			t.Errorf("the session's handler saw %d errors (%q), want 4 with the session", len(seen), seen)
		}
		if err := s.SetErrHandler(mpi.NewWinErrHandler(func(*mpi.Win, error) {})); !errors.Is(err, mpi.ErrErrhandler) {
			t.Errorf("a window handler on a session: %v, want ErrErrhandler", err)
		}
		mine := errors.New("mine")
		seen = nil
		if err := s.CallErrHandler(mine); err != mine || len(seen) != 1 || seen[0] != "mine" {
			t.Errorf("CallErrHandler: %v, handler saw %q", err, seen)
		}
		must(t, s.SetErrHandler(mpi.ErrorsReturn))
		if s.ErrHandler() != mpi.ErrorsReturn {
			t.Error("handler not reset to ErrorsReturn")
		}
		bad := mpi.InfoCreate()
		must(t, bad.Free())
		if _, err := s.NumPsets(bad); !errors.Is(err, mpi.ErrInfo) {
			t.Errorf("NumPsets with a freed info: %v, want ErrInfo", err)
		}

		// CommCreateFromGroup: its handler argument serves its errors.
		g, err := s.GroupFromPset("mpi://WORLD")
		must(t, err)
		var ce []error
		ch := mpi.NewErrHandler(func(c *mpi.Comm, err error) { ce = append(ce, err) })
		if _, err := mpi.CommCreateFromGroup(g, strings.Repeat("x", mpi.MaxStringTag), nil, ch); !errors.Is(err, mpi.ErrArg) || len(ce) != 1 {
			t.Errorf("a string tag of MaxStringTag bytes: %v (handler saw %d), want ErrArg through the handler", err, len(ce))
		}
		if _, err := mpi.CommCreateFromGroup(g, "t", nil, h); !errors.Is(err, mpi.ErrErrhandler) {
			t.Errorf("a session handler for a communicator: %v, want ErrErrhandler", err)
		}
		if _, err := mpi.CommCreateFromGroup(nil, "t", nil, nil); !errors.Is(err, mpi.ErrGroup) {
			t.Errorf("a nil group: %v, want ErrGroup", err)
		}
		if c, err := mpi.CommCreateFromGroup(mpi.GroupEmpty, "t", nil, nil); c != nil || err != nil {
			t.Errorf("GroupEmpty: %v, %v; want nil, nil", c, err)
		}
		other, err := g.Excl([]int{g.Rank()})
		must(t, err)
		if _, err := mpi.CommCreateFromGroup(other, "t", nil, nil); !errors.Is(err, mpi.ErrGroup) {
			t.Errorf("a group without the caller: %v, want ErrGroup", err)
		}
		// The new communicator takes the handler and the hints given.
		hints := mpi.InfoCreate()
		must(t, hints.Set("mpi_assert_no_any_tag", "true"))
		c, err := mpi.CommCreateFromGroup(g, "hinted", hints, ch)
		must(t, err)
		if c.ErrHandler() != ch {
			t.Error("the new communicator's handler is not the one given")
		}
		ci, err := c.Info()
		must(t, err)
		if v, _, _ := ci.Get("mpi_assert_no_any_tag"); v != "true" {
			t.Errorf("mpi_assert_no_any_tag = %q, want true", v)
		}
		must(t, c.Free())

		must(t, s.Finalize())
		if err := s.Finalize(); !errors.Is(err, mpi.ErrSession) {
			t.Errorf("a second Finalize: %v, want ErrSession", err)
		}
		if _, err := s.Info(); !errors.Is(err, mpi.ErrSession) {
			t.Errorf("Info after Finalize: %v, want ErrSession", err)
		}
		if err := s.CallErrHandler(mine); !errors.Is(err, mpi.ErrSession) {
			t.Errorf("CallErrHandler after Finalize: %v, want ErrSession", err)
		}
	})
}

// TestFileErrHandler checks the file side of error handling without files: FileNull's
// handler, which files will start with, and handles that are not open files.
func TestFileErrHandler(t *testing.T) {
	mpitest.Run(t, 2, func(t *testing.T) {
		must(t, mpi.Init())
		must(t, mpi.World.SetErrHandler(mpi.ErrorsAreFatal))
		h, err := mpi.FileNull.ErrHandler()
		must(t, err)
		if mpi.FileNull.Name() != "MPI_FILE_NULL" {
			t.Errorf("FileNull's name %q", mpi.FileNull.Name())
		}
		if h != mpi.ErrorsReturn {
			t.Errorf("files' default handler = %v, want ErrorsReturn whatever World's is", h)
		}
		var got []*mpi.File
		var msgs []string
		fh := mpi.NewFileErrHandler(func(f *mpi.File, err error) {
			got = append(got, f)
			msgs = append(msgs, err.Error())
		})
		must(t, mpi.FileNull.SetErrHandler(fh))
		if h, _ := mpi.FileNull.ErrHandler(); h != fh {
			t.Error("FileNull's handler is not the one set")
		}
		if err := mpi.FileNull.CallErrHandler(errors.New("io")); err == nil || len(got) != 1 || got[0] != nil || msgs[0] != "io" {
			t.Errorf("CallErrHandler on FileNull: %v, handler saw %v %q", err, got, msgs)
		}
		// Handlers of other kinds, both ways.
		if err := mpi.FileNull.SetErrHandler(mpi.NewErrHandler(func(*mpi.Comm, error) {})); !errors.Is(err, mpi.ErrErrhandler) {
			t.Errorf("a communicator handler on FileNull: %v, want ErrErrhandler", err)
		}
		must(t, mpi.World.SetErrHandler(mpi.ErrorsReturn))
		if err := mpi.World.SetErrHandler(fh); !errors.Is(err, mpi.ErrErrhandler) {
			t.Errorf("a file handler on World: %v, want ErrErrhandler", err)
		}
		if err := mpi.World.SetErrHandler(mpi.NewWinErrHandler(func(*mpi.Win, error) {})); !errors.Is(err, mpi.ErrErrhandler) {
			t.Errorf("a window handler on World: %v, want ErrErrhandler", err)
		}
		w, _, err := mpi.WinAllocate(8, 1, nil, mpi.World)
		must(t, err)
		if err := w.SetErrHandler(fh); !errors.Is(err, mpi.ErrErrhandler) {
			t.Errorf("a file handler on a window: %v, want ErrErrhandler", err)
		}
		must(t, w.Free())
		// A File mpigo did not open: ErrFile, through FileNull's handler.
		got, msgs = nil, nil
		bad := &mpi.File{}
		if err := bad.SetErrHandler(mpi.ErrorsReturn); !errors.Is(err, mpi.ErrFile) || len(got) != 1 {
			t.Errorf("SetErrHandler on a file never opened: %v (default handler ran %d times), want ErrFile through it", err, len(got))
		}
		if _, err := bad.ErrHandler(); !errors.Is(err, mpi.ErrFile) {
			t.Errorf("ErrHandler of a file never opened: %v, want ErrFile", err)
		}
		if err := bad.CallErrHandler(errors.New("x")); !errors.Is(err, mpi.ErrFile) {
			t.Errorf("CallErrHandler on a file never opened: %v, want ErrFile", err)
		}
		// A freed handler stays where it is set and can be set nowhere else.
		must(t, fh.Free())
		if err := fh.Free(); !errors.Is(err, mpi.ErrErrhandler) {
			t.Errorf("a second Free: %v, want ErrErrhandler", err)
		}
		if h, _ := mpi.FileNull.ErrHandler(); h != fh {
			t.Error("freeing the handler took it off FileNull")
		}
		if err := mpi.FileNull.SetErrHandler(fh); !errors.Is(err, mpi.ErrErrhandler) {
			t.Errorf("setting a freed handler: %v, want ErrErrhandler", err)
		}
		must(t, mpi.ErrorsReturn.Free()) // predefined: nothing to do
		must(t, mpi.FileNull.SetErrHandler(nil))
		if h, _ := mpi.FileNull.ErrHandler(); h != mpi.ErrorsReturn {
			t.Error("FileNull's handler not reset by nil")
		}
		must(t, mpi.Finalize())
	})
}

// TestSessionBuffers: buffered sends on communicators derived from a session use the
// session's buffer, unless the communicator has its own; others do not see it.
func TestSessionBuffers(t *testing.T) {
	runOver(t, 2, func(t *testing.T) {
		s, err := mpi.SessionInit(nil, nil)
		must(t, err)
		buf := make([]byte, 1<<16)
		must(t, s.AttachBuffer(buf))
		if err := s.AttachBuffer(buf); !errors.Is(err, mpi.ErrBuffer) {
			t.Errorf("a second AttachBuffer: %v, want ErrBuffer", err)
		}
		g, err := s.GroupFromPset("mpi://WORLD")
		must(t, err)
		rev, err := g.Incl([]int{1, 0}) // a group computed from the session's
		must(t, err)
		c, err := mpi.CommCreateFromGroup(rev, "buffers", nil, nil)
		must(t, err)
		d, err := c.Dup()
		must(t, err)
		me, peer := c.Rank(), 1-c.Rank()
		msg := make([]byte, 1000)
		in := make([]byte, 1000)
		for _, x := range []*mpi.Comm{c, d} {
			if me == 0 {
				must(t, mpi.Bsend(x, msg, peer, 1)) // no process buffer: the session's
			} else {
				_, err := mpi.Recv(x, in, peer, 1)
				must(t, err)
			}
		}
		// A communicator's own buffer comes first.
		small := make([]byte, 200)
		must(t, c.AttachBuffer(small))
		if me == 0 {
			if err := mpi.Bsend(c, msg, peer, 2); !errors.Is(err, mpi.ErrBuffer) {
				t.Errorf("a 1000-byte Bsend with a 200-byte communicator buffer: %v, want ErrBuffer", err)
			}
		}
		_, err = c.DetachBuffer()
		must(t, err)
		must(t, s.FlushBuffer())
		r, err := s.IflushBuffer()
		must(t, err)
		_, err = r.Wait()
		must(t, err)
		got, err := s.DetachBuffer()
		must(t, err)
		if &got[0] != &buf[0] {
			t.Error("DetachBuffer gave another buffer")
		}
		if me == 0 {
			if err := mpi.Bsend(c, msg, peer, 3); !errors.Is(err, mpi.ErrBuffer) {
				t.Errorf("Bsend after the session's buffer was detached: %v, want ErrBuffer", err)
			}
		}
		if _, err := s.DetachBuffer(); !errors.Is(err, mpi.ErrBuffer) {
			t.Errorf("DetachBuffer with none attached: %v, want ErrBuffer", err)
		}
		must(t, s.AttachBuffer(mpi.BufferAutomatic))
		if me == 0 {
			must(t, mpi.Bsend(d, msg, peer, 4))
		} else {
			_, err := mpi.Recv(d, in, peer, 4)
			must(t, err)
		}
		got, err = s.DetachBuffer()
		must(t, err)
		if len(got) != 0 || cap(got) != cap(mpi.BufferAutomatic) {
			t.Error("detaching an automatic buffer did not give BufferAutomatic")
		}
		// A session's buffer is not another session's.
		s2, err := mpi.SessionInit(nil, nil)
		must(t, err)
		g2, err := s2.GroupFromPset("mpi://WORLD")
		must(t, err)
		c2, err := mpi.CommCreateFromGroup(g2, "other", nil, nil)
		must(t, err)
		must(t, s.AttachBuffer(buf))
		if me == 0 {
			if err := mpi.Bsend(c2, msg, peer, 5); !errors.Is(err, mpi.ErrBuffer) {
				t.Errorf("Bsend on another session's communicator: %v, want ErrBuffer", err)
			}
		}
		var nilS *mpi.Session
		if err := nilS.AttachBuffer(buf); !errors.Is(err, mpi.ErrSession) {
			t.Errorf("AttachBuffer on a nil session: %v, want ErrSession", err)
		}
		must(t, c2.Free())
		must(t, d.Free())
		must(t, c.Free())
		must(t, s2.Finalize())
		must(t, s.Finalize()) // lets the attached buffer go
	})
}

// TestSessionDerivedGroups: groups taken from a session's communicators, and groups
// computed from them, belong to the session; communicators made from them use its
// buffer, and errors with no communicator go to its handler. Groups of different
// sessions, or of a session and the world model, are not mixed in one call (ErrGroup).
func TestSessionDerivedGroups(t *testing.T) {
	runOver(t, 2, func(t *testing.T) {
		var scalls int
		var sgot *mpi.Session
		s, err := mpi.SessionInit(nil, mpi.NewSessionErrHandler(func(s *mpi.Session, err error) { scalls, sgot = scalls+1, s }))
		must(t, err)
		must(t, s.AttachBuffer(make([]byte, 1<<16)))
		c := worldOf(t, s, "derived-base")
		me := c.Rank()

		// Every way to a group of the session: the communicator's, one computed from it,
		// a union with GroupEmpty (which belongs to every owner), a window's.
		g := c.Group()
		rev, err := g.Incl([]int{1, 0})
		must(t, err)
		u, err := mpi.GroupUnion(mpi.GroupEmpty, rev)
		must(t, err)
		w, _, err := mpi.WinAllocate(8, 8, nil, c)
		must(t, err)
		wg := w.Group()
		must(t, w.Free())
		names := []string{"Comm.Group", "Incl", "GroupUnion", "Win.Group", "Comm.Create"}
		var made []*mpi.Comm
		for i, x := range []*mpi.Group{g, rev, u, wg} {
			d, err := mpi.CommCreateFromGroup(x, "derived-"+names[i], nil, nil)
			must(t, err)
			made = append(made, d)
		}
		cr, err := c.Create(g) // a subgroup of a session's communicator
		must(t, err)
		made = append(made, cr)
		msg, in := make([]byte, 1000), make([]byte, 1000)
		for i, d := range made {
			name, me, peer := names[i], d.Rank(), 1-d.Rank()
			// No process buffer is attached: a Bsend succeeds only on the session's.
			if me == 0 {
				if err := mpi.Bsend(d, msg, peer, 1); err != nil {
					t.Errorf("Bsend on a communicator made from %s's group: %v (the session's buffer was not used)", name, err)
					must(t, mpi.Send(d, msg, peer, 1)) // the receiver still gets its message
				}
			} else {
				_, err := mpi.Recv(d, in, peer, 1)
				must(t, err)
			}
		}
		for _, d := range made {
			must(t, d.Free())
		}

		// An error with no communicator yet: on the session's handler, not Self's (the
		// world model's, which now runs beside the session).
		must(t, mpi.Init())
		var selfCalls int
		must(t, mpi.Self.SetErrHandler(mpi.NewErrHandler(func(*mpi.Comm, error) { selfCalls++ })))
		wrongKind := mpi.NewWinErrHandler(func(*mpi.Win, error) {})
		if _, err := mpi.CommCreateFromGroup(rev, "wrong-kind", nil, wrongKind); !errors.Is(err, mpi.ErrErrhandler) {
			t.Errorf("CommCreateFromGroup with a window's handler: %v, want ErrErrhandler", err)
		}
		if scalls != 1 || sgot != s || selfCalls != 0 {
			t.Errorf("the wrong-kind handler's error reached the session's handler %d times (session %p, want %p), Self's %d times; want 1 and 0", scalls, sgot, s, selfCalls)
		}

		// Mixing owners: two sessions, then a session and the world model.
		s2, err := mpi.SessionInit(nil, nil)
		must(t, err)
		g2, err := s2.GroupFromPset("mpi://WORLD")
		must(t, err)
		wgrp := mpi.World.Group()
		lo, err := g.Incl([]int{0})
		must(t, err)
		hi2, err := g2.Incl([]int{1})
		must(t, err)
		mixes := map[string]func() error{
			"GroupUnion of two sessions":           func() error { _, err := mpi.GroupUnion(g, g2); return err },
			"GroupIntersection, session and world": func() error { _, err := mpi.GroupIntersection(wgrp, g); return err },
			"GroupDifference, session and world":   func() error { _, err := mpi.GroupDifference(g, wgrp); return err },
			"Create of a world group on a session's communicator": func() error {
				_, err := c.Create(wgrp)
				return err
			},
			"Create of a session's group on World": func() error { _, err := mpi.World.Create(g); return err },
			"Win.Start of a world group on a session's window": func() error {
				w, _, err := mpi.WinAllocate(8, 8, nil, c)
				must(t, err)
				defer func() { must(t, w.Free()) }()
				return w.Start(wgrp, 0)
			},
			"CreateGroup of another session's group": func() error {
				_, err := c.CreateGroup(g2, 3)
				return err
			},
			"IntercommCreateFromGroups of two sessions": func() error {
				l, r := lo, hi2
				if me == 1 {
					l, r = hi2, lo
				}
				_, err := mpi.IntercommCreateFromGroups(l, 0, r, 0, "mixed", nil, nil)
				return err
			},
		}
		// They are collective: every rank runs them in one order.
		for _, name := range slices.Sorted(maps.Keys(mixes)) {
			if err := mixes[name](); !errors.Is(err, mpi.ErrGroup) {
				t.Errorf("%s: %v, want ErrGroup", name, err)
			}
		}
		// The world model's groups still make the world model's communicators.
		wc, err := mpi.World.Create(wgrp)
		must(t, err)
		useComm(t, wc)
		must(t, wc.Free())
		must(t, mpi.Self.SetErrHandler(nil))
		must(t, mpi.Finalize())

		must(t, c.Free())
		must(t, s2.Finalize())
		must(t, s.Finalize())
		// A finalized session's group makes no communicator.
		if _, err := mpi.CommCreateFromGroup(rev, "after", nil, nil); !errors.Is(err, mpi.ErrSession) {
			t.Errorf("CommCreateFromGroup of a finalized session's group: %v, want ErrSession", err)
		}
	})
}

// TestFinalizeFencesAfterIdle: after the runtime idled (a session began and ended
// with no world model), Init, communication and Finalize: Finalize still waits for
// every rank, as MPI_Finalize is collective over the world; buffered and large
// messages arrive; the job ends with no rank left running and no file in /dev/shm.
//
// Rank 0 leaves Finalize only once rank 1 has entered it. Rank 1 looks for the file
// rank 0 writes on leaving for a while before it enters: a bounded look for what must
// not happen (without the fence it happens at once), not a synchronisation.
func TestFinalizeFencesAfterIdle(t *testing.T) {
	const markVar = "MPIGO_TEST_MARKS"
	for _, tr := range mpitest.Transports {
		t.Run(tr.Name, func(t *testing.T) {
			marks := t.TempDir()
			// Shared memory in /dev/shm files (not memfds), so that a file left shows.
			settings := map[string]string{"shm_memory": "file"}
			mpitest.Job(t, mpitest.Options{N: 3, Transport: tr, Settings: settings,
				Env: []string{markVar + "=" + marks}, Timeout: time.Minute}, func(t *testing.T) {
				finalizeAfterIdle(t, os.Getenv(markVar))
			})
			// Nothing left behind: the ranks' processes, their shared-memory files.
			job, _ := os.ReadFile(filepath.Join(marks, "job"))
			if len(job) == 0 {
				t.Fatal("the ranks did not record the job's id")
			}
			if left, _ := filepath.Glob("/dev/shm/*" + string(job) + "*"); len(left) > 0 {
				t.Errorf("files left in /dev/shm: %v", left)
			}
			pids, _ := filepath.Glob(filepath.Join(marks, "pid.*"))
			if len(pids) != 3 {
				t.Fatalf("%d ranks recorded their pid, want 3", len(pids))
			}
			for _, f := range pids {
				b, _ := os.ReadFile(f)
				pid, _ := strconv.Atoi(string(b))
				if pid > 0 && syscall.Kill(pid, 0) == nil {
					t.Errorf("rank process %d still runs after the job ended", pid)
				}
			}
		})
	}
}

func finalizeAfterIdle(t *testing.T, marks string) {
	mark := func(name, text string) {
		t.Helper()
		must(t, os.WriteFile(filepath.Join(marks, name), []byte(text), 0o644))
	}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(marks, name))
		return err == nil
	}
	// A session alone, to the end: the runtime idles and the launcher is told.
	s, err := mpi.SessionInit(nil, nil)
	must(t, err)
	c := worldOf(t, s, "before-init")
	useComm(t, c)
	must(t, c.Free())
	must(t, s.Finalize())

	must(t, mpi.Init())
	me, n := mpi.World.Rank(), mpi.World.Size()
	mark("pid."+strconv.Itoa(me), strconv.Itoa(os.Getpid()))
	if me == 0 {
		mark("job", os.Getenv("MPIGO_JOBID"))
	}
	useComm(t, mpi.World)
	// A large message to every rank, whole.
	big := make([]int64, 1<<19) // 4 MiB
	if me == 0 {
		for i := range big {
			big[i] = int64(i)
		}
		for r := 1; r < n; r++ {
			must(t, mpi.Send(mpi.World, big, r, 1))
		}
	} else {
		_, err := mpi.Recv(mpi.World, big, 0, 1)
		must(t, err)
		for i, v := range big {
			if v != int64(i) {
				t.Fatalf("element %d of the large message is %d", i, v)
			}
		}
	}
	// A buffered message rank 1 receives only after rank 0 entered Finalize.
	buf := make([]byte, 1<<16)
	must(t, mpi.BufferAttach(buf))
	switch me {
	case 0:
		must(t, mpi.Bsend(mpi.World, []int32{42, 43}, 1, 2))
		mark("entered.0", "")
		must(t, mpi.Finalize())
		mark("left.0", "")
		if !exists("entered.1") {
			t.Error("rank 0 left Finalize before rank 1 entered it")
		}
	case 1:
		deadline := time.Now().Add(2 * time.Second)
		for !exists("entered.0") && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		for look := time.Now().Add(300 * time.Millisecond); time.Now().Before(look); time.Sleep(5 * time.Millisecond) {
			if exists("left.0") {
				t.Error("rank 0 left Finalize while rank 1 had not entered it: Finalize did not wait for every rank")
				break
			}
		}
		in := []int32{0, 0}
		_, err := mpi.Recv(mpi.World, in, 0, 2)
		must(t, err)
		if in[0] != 42 || in[1] != 43 {
			t.Errorf("the buffered message: %v, want [42 43]", in)
		}
		mark("entered.1", "")
		must(t, mpi.Finalize())
	default:
		must(t, mpi.Finalize())
	}
	if !mpi.Finalized() {
		t.Error("not Finalized after Finalize")
	}
}

// TestFinalizeWithSessionsOnSomeRanks: a session that outlives Finalize on one rank
// only. Finalize still waits for every rank, and the others, with no session, must
// not wait in the launcher's fence for a rank that keeps MPI up for its session and
// will not come (the job hung there until its timeout). The session then works on.
func TestFinalizeWithSessionsOnSomeRanks(t *testing.T) {
	for _, tr := range mpitest.Transports {
		t.Run(tr.Name, func(t *testing.T) {
			mpitest.Job(t, mpitest.Options{N: 3, Transport: tr, Timeout: 30 * time.Second}, sessionOnOneRank)
		})
	}
}

func sessionOnOneRank(t *testing.T) {
	must(t, mpi.Init())
	me := mpi.World.Rank()
	useComm(t, mpi.World)
	var s *mpi.Session
	if me == 1 {
		var err error
		s, err = mpi.SessionInit(nil, nil)
		must(t, err)
	}
	must(t, mpi.Finalize())
	if me != 1 {
		return
	}
	// The session's own process set: this rank alone, so that it needs no other.
	g, err := s.GroupFromPset("mpi://SELF")
	must(t, err)
	c, err := mpi.CommCreateFromGroup(g, "after-finalize", nil, nil)
	must(t, err)
	useComm(t, c)
	must(t, c.Free())
	must(t, s.Finalize())
}
