package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/group"
	"github.com/mpigo/mpigo/internal/p2p"
	"github.com/mpigo/mpigo/internal/shmcoll"
	"github.com/mpigo/mpigo/internal/transport"
)

// core's own tests run in one process: the test binary is a singleton job (Init with
// no launcher is a job of one rank, pm.Singleton), which reaches the runtime,
// communicator cores and their creation, context ids, the tag spaces, error mapping,
// requests and point-to-point to this rank itself. Communicators of groups larger
// than one are built directly from groups for rank translation, which needs no peer.
// What needs a second process is tested through real jobs in mpi and abi.
func TestMain(m *testing.M) {
	if err := Init(ThreadMultiple); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if err := Finalize(nil); err != nil && code == 0 {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantClass(t *testing.T, what string, err error, want ErrorClass) {
	t.Helper()
	if err == nil || ClassOf(err) != want {
		t.Errorf("%s: got %v (class %v), want class %v", what, err, ClassOf(err), want)
	}
}

// TestSingleton: Init with no launcher makes a job of one rank whose World and Self
// are that rank, on a runtime with the self transport only.
func TestSingleton(t *testing.T) {
	if !Live() || !Initialized() || Finalized() || Ready("Send") != nil {
		t.Fatalf("Live %v, Initialized %v, Finalized %v, Ready %v after Init", Live(), Initialized(), Finalized(), Ready("Send"))
	}
	if WorldRank() != 0 || WorldSize() != 1 || ThreadLevel() != ThreadMultiple {
		t.Errorf("world rank %d, size %d, thread level %d; want 0, 1, ThreadMultiple", WorldRank(), WorldSize(), ThreadLevel())
	}
	for _, c := range []*Comm{World, Self} {
		if c.Rank() != 0 || c.Size() != 1 || c.IsInter() || c.Check("Send") != nil || !c.Known() {
			t.Errorf("%s: rank %d, size %d, inter %v, check %v", c.Name(), c.Rank(), c.Size(), c.IsInter(), c.Check("Send"))
		}
	}
	if World.Ctx() != 0 || Self.Ctx() != 2 {
		t.Errorf("contexts: World %d, Self %d; want 0 and 2", World.Ctx(), Self.Ctx())
	}
	if NodeOf(0) != 0 || LocalSize() != 1 || NodeTransport() != nil || Engine() == nil {
		t.Errorf("node %d, local size %d, node transport %v, engine %v", NodeOf(0), LocalSize(), NodeTransport(), Engine())
	}
	info, err := TransportInfo(1)
	must(t, err)
	if !strings.HasPrefix(info, "transport self") {
		t.Errorf("TransportInfo of a singleton: %q", info)
	}
	wantClass(t, "a second Init", Init(ThreadSingle), ClassOther)
	wantClass(t, "Init at thread level 4", Init(4), ClassArg)
}

// TestCheck: a nil communicator and a freed one are ClassComm errors naming it;
// World and Self cannot be freed.
func TestCheck(t *testing.T) {
	var nilComm *Comm
	wantClass(t, "a nil communicator", nilComm.Check("Send"), ClassComm)
	if nilComm.Name() != "MPI_COMM_NULL" {
		t.Errorf("a nil communicator's name: %q", nilComm.Name())
	}
	c, err := World.DupCore("Dup", nil)
	must(t, err)
	c.SetName("dup")
	must(t, c.FreeCore("Free"))
	err = c.Check("Send")
	wantClass(t, "a freed communicator", err, ClassComm)
	if err == nil || !strings.Contains(err.Error(), `"dup" was freed`) {
		t.Errorf("the error names the freed communicator: %v", err)
	}
	wantClass(t, "Free twice", c.FreeCore("Free"), ClassComm)
	wantClass(t, "Free of World", World.FreeCore("Free"), ClassComm)
	wantClass(t, "Free of Self", Self.FreeCore("Free"), ClassComm)
	if c.DirectSend(0, 0) {
		t.Error("a freed communicator still takes the direct path")
	}
}

// TestRankTranslation: a communicator of a group translates its ranks to world
// ranks and back; an intercommunicator addresses its remote group; World's
// duplicates take no translation (direct).
func TestRankTranslation(t *testing.T) {
	w, err := group.World(8)
	must(t, err)
	local, err := w.Incl([]int{5, 2, 7})
	must(t, err)
	remote, err := w.Incl([]int{0, 6})
	must(t, err)
	intra := &Comm{group: local, size: local.Size()}
	inter := &Comm{group: local, size: local.Size(), remote: remote}
	for _, tc := range []struct {
		c               *Comm
		peers           int
		world, back     []int // WorldRank(i) for each peer i; CommRank of world ranks 0..7
		localWorld      []int // LocalWorldRank(i)
		undefinedWorlds []int
	}{
		{intra, 3, []int{5, 2, 7}, nil, []int{5, 2, 7}, []int{0, 1, 3, 4, 6}},
		{inter, 2, []int{0, 6}, nil, []int{5, 2, 7}, []int{1, 2, 3, 4, 5, 7}},
	} {
		c := tc.c
		if c.Peers() != tc.peers || c.IsInter() != (c.remote != nil) {
			t.Errorf("peers %d (want %d), inter %v", c.Peers(), tc.peers, c.IsInter())
		}
		for i, want := range tc.world {
			if got := c.WorldRank(i); got != want {
				t.Errorf("WorldRank(%d) = %d, want %d", i, got, want)
			}
			if got := c.CommRank(want); got != i {
				t.Errorf("CommRank(%d) = %d, want %d", want, got, i)
			}
		}
		for i, want := range tc.localWorld {
			if got := c.LocalWorldRank(i); got != want {
				t.Errorf("LocalWorldRank(%d) = %d, want %d", i, got, want)
			}
		}
		for _, w := range tc.undefinedWorlds {
			if got := c.CommRank(w); got != group.Undefined {
				t.Errorf("CommRank(%d) of a process outside the group = %d, want Undefined", w, got)
			}
		}
	}
	d, err := World.DupCore("Dup", nil)
	must(t, err)
	defer d.FreeCore("Free")
	if !d.direct || d.WorldRank(0) != 0 || d.CommRank(0) != 0 || !d.DirectSend(0, 5) || d.DirectSend(1, 5) || d.DirectSend(0, MaxTag+1) {
		t.Errorf("a duplicate of World: direct %v, DirectSend(0,5) %v", d.direct, d.DirectSend(0, 5))
	}
	// A group of World's members in World's order, made anew (as a split of World
	// that keeps every rank in order makes it), is direct too; another group of the
	// same size is not.
	same, err := World.group.Incl([]int{0})
	must(t, err)
	other, err := w.Incl([]int{3})
	must(t, err)
	if same == World.group {
		t.Fatal("Incl gave World's group itself: the test needs a group made anew")
	}
	for _, tc := range []struct {
		g    *group.Group
		want bool
	}{{same, true}, {other, false}, {local, false}} {
		c := &Comm{}
		c.setGroup(tc.g, nil)
		if c.direct != tc.want {
			t.Errorf("a communicator of %v: direct %v, want %v", tc.g, c.direct, tc.want)
		}
	}
	c := &Comm{}
	c.setGroup(same, remote)
	if c.direct {
		t.Error("an intercommunicator whose local group is World's: direct")
	}
}

// TestContextIDs: every communicator takes two contexts of its own (even for
// point-to-point, odd for internal traffic); a freed one's are given out again; once
// every id is in use, creation fails with a clear error rather than reusing one.
func TestContextIDs(t *testing.T) {
	seen := map[uint32]bool{World.Ctx(): true, Self.Ctx(): true, sessCtx: true}
	var made []*Comm
	defer func() {
		for _, c := range made {
			c.FreeCore("Free")
		}
	}()
	for {
		c, err := World.DupCore("Dup", nil)
		if err != nil {
			wantClass(t, "Dup with every context id in use", err, ClassOther)
			if !strings.Contains(err.Error(), "no context id is free") {
				t.Errorf("the error says why: %v", err)
			}
			break
		}
		made = append(made, c)
		if c.Ctx()%2 != 0 || seen[c.Ctx()] {
			t.Fatalf("context %d: odd, or given out twice", c.Ctx())
		}
		seen[c.Ctx()] = true
		if len(made) > 64*ctxWords {
			t.Fatal("more communicators than context ids")
		}
	}
	if want := 64*ctxWords - 4; len(made) != want { // World, Self, sessions' and dynamic connections' reserved
		t.Errorf("%d communicators made before the ids ran out, want %d", len(made), want)
	}
	freed := made[17].Ctx()
	must(t, made[17].FreeCore("Free"))
	made = append(made[:17], made[18:]...)
	c, err := World.DupCore("Dup", nil)
	must(t, err)
	made = append(made, c)
	if c.Ctx() != freed {
		t.Errorf("after freeing context %d the next communicator got %d", freed, c.Ctx())
	}
}

// TestTagSpaces: the internal context's tag ranges (tags.go) do not overlap, and fit
// the engine's tags.
func TestTagSpaces(t *testing.T) {
	type span struct {
		name   string
		lo, hi int // [lo, hi)
	}
	spans := []span{
		{"collective sequence", 0, tagSeqMask + 1},
		{"coll_check", TagCheck, TagCheck + tagSeqMask + 1},
		{"Split's gather", tagGather, tagGather + 1},
		{"IntercommCreate's leaders", tagInterLeaders, tagInterLeaders + interLeadersSpan},
		{"hierarchical Reduce", TagHier, TagHier + 1},
		{"topology agreement", TagTopoAgree, TagTopoEdges + 1},
		{"neighbourhood", TagNeighbor, TagNeighbor + 1<<10},
		{"value reductions", TagValueReduce, TagValueHead + 1},
		{"value out-of-band", TagValueOOB, TagValueOOB + TagValueMask + 1},
		{"partitioned hello", tagPartHello, tagPartHello + 1},
		{"partitioned data", tagPartData, tagPartData + 1<<28},
		{"CreateGroup", tagGroupBase, tagGroupBase + groupTagLimit},
		{"intercommunicator collectives", TagInterColl, TagInterColl + TagInterSeqMask + 1},
		{"their coll_check", TagInterCheck, TagInterCheck + TagInterSeqMask + 1},
	}
	for i, a := range spans {
		if a.lo < 0 || a.hi > 1<<31 || a.lo >= a.hi {
			t.Errorf("%s: [%d,%d) is not a range of non-negative int32 tags", a.name, a.lo, a.hi)
		}
		for _, b := range spans[i+1:] {
			if a.name == "IntercommCreate's leaders" || b.name == "IntercommCreate's leaders" {
				continue // on the peer communicator's internal context, from user tags: checked below
			}
			if a.lo < b.hi && b.lo < a.hi {
				t.Errorf("%s [%d,%d) overlaps %s [%d,%d)", a.name, a.lo, a.hi, b.name, b.lo, b.hi)
			}
		}
	}
	// IntercommCreate folds user tags into interLeadersSpan, so its leaders' tags stay
	// within MaxTag, clear of the collectives' sequence below tagManage.
	if tagInterLeaders <= tagSeqMask || MaxTag < tagInterLeaders {
		t.Errorf("IntercommCreate's tags [%d,%d] overlap the collectives' [0,%d]", tagInterLeaders, MaxTag, tagSeqMask)
	}
	for _, tc := range []struct {
		tag  int
		wild bool
		ok   bool
	}{{0, false, true}, {MaxTag, false, true}, {MaxTag + 1, false, false}, {-5, false, false},
		{AnyTag, false, false}, {AnyTag, true, true}} {
		if err := CheckTag("Send", tc.tag, tc.wild); (err == nil) != tc.ok || err != nil && ClassOf(err) != ClassTag {
			t.Errorf("CheckTag(%d, wild %v): %v", tc.tag, tc.wild, err)
		}
	}
}

// TestErrorMapping: errors of the layers below take the class MPI names for them,
// an *Error passes unchanged, and the message says the call, the words and the
// cause, each once.
func TestErrorMapping(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want ErrorClass
	}{
		{p2p.ErrTruncate, ClassTruncate},
		{fmt.Errorf("receive: %w", p2p.ErrTruncate), ClassTruncate},
		{shmcoll.ErrTruncate, ClassTruncate},
		{coll.ErrTruncate, ClassTruncate},
		{coll.ErrShort, ClassCount},
		{coll.ErrMismatch, ClassCount},
		{shmcoll.ErrCount, ClassCount},
		{p2p.ErrBuffer, ClassBuffer},
		{p2p.ErrNoBuffer, ClassBuffer},
		{p2p.ErrBufferAttached, ClassBuffer},
		{p2p.ErrRequest, ClassRequest},
		{transport.ErrPeerGone, ClassProcFailed},
		{errors.New("something else"), ClassOther},
		{Errorf(ClassRoot, "Bcast", "root 9"), ClassRoot},
	} {
		got := MapErr("Op", tc.err)
		if ClassOf(got) != tc.want || !errors.Is(got, tc.err) {
			t.Errorf("MapErr(%v): class %v, want %v (and the cause kept)", tc.err, ClassOf(got), tc.want)
		}
	}
	if MapErr("Op", nil) != nil || TypeErr("Op", nil) != nil || GroupErr("Op", nil) != nil {
		t.Error("nil maps to nil")
	}
	for _, tc := range []struct {
		got  error
		want ErrorClass
	}{
		{TypeErr("Type_commit", datatype.ErrArg), ClassArg},
		{TypeErr("Type_commit", datatype.ErrOverflow), ClassArg},
		{TypeErr("Pack", datatype.ErrBuffer), ClassBuffer},
		{TypeErr("Type_commit", errors.New("other")), ClassType},
		{GroupErr("Group_incl", group.ErrRank), ClassRank},
		{GroupErr("Group_incl", group.ErrArg), ClassArg},
		{GroupErr("Group_incl", errors.New("other")), ClassGroup},
	} {
		if ClassOf(tc.got) != tc.want {
			t.Errorf("%v: class %v, want %v", tc.got, ClassOf(tc.got), tc.want)
		}
	}
	e := Wrap(ClassOther, "Finalize", "waiting for the other ranks", errors.New("fence failed"))
	if s := e.Error(); s != "mpi: Finalize: waiting for the other ranks: fence failed" {
		t.Errorf("Wrap's message: %q", s)
	}
	if !errors.Is(Errorf(ClassCount, "Allreduce", "x"), ErrCount) || errors.Is(Errorf(ClassCount, "Allreduce", "x"), ErrType) {
		t.Error("errors.Is matches the class's sentinel only")
	}
	if ClassOf(nil) != ClassSuccess || ClassOf(errors.New("x")) != ClassOther {
		t.Error("ClassOf of nil and of a foreign error")
	}
}

// TestErrorCodes: added classes and codes, their strings, and the order their
// removal takes.
func TestErrorCodes(t *testing.T) {
	class, err := AddClass("Add_error_class")
	must(t, err)
	if ErrorCode(class) <= LastCode || LastUsedCode() < ErrorCode(class) {
		t.Errorf("added class %d, LastUsedCode %d: want above LastCode", class, LastUsedCode())
	}
	code, err := AddCode("Add_error_code", class)
	must(t, err)
	if got, err := ClassOfCode("Error_class", code); err != nil || got != class {
		t.Errorf("ClassOfCode(%d) = %v, %v; want %v", code, got, err, class)
	}
	must(t, AddString("Add_error_string", code, "my code"))
	if s, err := CodeString("Error_string", code); err != nil || s != "my code" {
		t.Errorf("CodeString: %q, %v", s, err)
	}
	e := NewCodeError("Op", code, "")
	if e.Class != class || CodeOf(e) != code || e.Error() != "mpi: my code" {
		t.Errorf("NewCodeError: class %v, code %v, %q", e.Class, CodeOf(e), e.Error())
	}
	if s, err := CodeString("Error_string", ErrorCode(ClassTruncate)); err != nil || !strings.HasPrefix(s, "MPI_ERR_TRUNCATE: ") {
		t.Errorf("a predefined class's string: %q, %v", s, err)
	}
	wantClass(t, "AddCode of ClassSuccess", func() error { _, err := AddCode("Add_error_code", ClassSuccess); return err }(), ClassArg)
	wantClass(t, "AddString to a predefined class", AddString("Add_error_string", ErrorCode(ClassCount), "x"), ClassArg)
	wantClass(t, "a string too long", AddString("Add_error_string", code, strings.Repeat("x", MaxErrorString+1)), ClassArg)
	wantClass(t, "RemoveClass with a code left", RemoveClass("Remove_error_class", class), ClassArg)
	wantClass(t, "RemoveCode with its string left", RemoveCode("Remove_error_code", code), ClassArg)
	must(t, RemoveString("Remove_error_string", code))
	must(t, RemoveCode("Remove_error_code", code))
	must(t, AddString("Add_error_string", ErrorCode(class), "my class"))
	wantClass(t, "RemoveClass with its string left", RemoveClass("Remove_error_class", class), ClassArg)
	must(t, RemoveString("Remove_error_string", ErrorCode(class)))
	must(t, RemoveClass("Remove_error_class", class))
	wantClass(t, "a removed code", func() error { _, err := ClassOfCode("Error_class", code); return err }(), ClassArg)
	if next, err := AddClass("Add_error_class"); err != nil || ErrorCode(next) <= code {
		t.Errorf("a class added after removals: %d (%v); numbers are never reused", next, err)
	} else {
		must(t, RemoveClass("Remove_error_class", next))
	}
}

// TestCreationCore: the creation calls on a one-rank world, and their argument
// errors.
func TestCreationCore(t *testing.T) {
	s, err := World.SplitCore("Split", 3, 0, nil)
	must(t, err)
	if s.Size() != 1 || s.Rank() != 0 || s.Ctx() == World.Ctx() {
		t.Errorf("Split: size %d, rank %d, context %d", s.Size(), s.Rank(), s.Ctx())
	}
	must(t, s.FreeCore("Free"))
	if c, err := World.SplitCore("Split", Undefined, 0, nil); c != nil || err != nil {
		t.Errorf("Split with Undefined: %v, %v; want nil, nil", c, err)
	}
	_, err = World.SplitCore("Split", -2, 0, nil)
	wantClass(t, "Split with a negative color", err, ClassArg)
	sh, typ, err := World.SplitTypeCore("Split_type", SplitTypeArgs{Kind: SplitShared}, nil)
	must(t, err)
	if sh == nil || sh.Size() != 1 || typ != "" {
		t.Errorf("SplitType shared: %v, %q", sh, typ)
	} else {
		must(t, sh.FreeCore("Free"))
	}
	_, err = World.CreateCore("Create", nil, nil)
	wantClass(t, "Create of a nil group", err, ClassGroup)
	_, err = World.CreateGroupCore("Create_group", World.Group(), -1, nil)
	wantClass(t, "CreateGroup with a negative tag", err, ClassTag)
	_, err = World.CreateGroupCore("Create_group", World.Group(), MaxTag+1, nil)
	wantClass(t, "CreateGroup with a tag beyond MaxTag", err, ClassTag)
	for _, tag := range []int{7, groupTagLimit, MaxTag} {
		g, err := World.CreateGroupCore("Create_group", World.Group(), tag, nil)
		must(t, err)
		must(t, g.FreeCore("Free"))
	}
	_, err = World.MergeCore("Intercomm_merge", false, nil)
	wantClass(t, "Merge of an intracommunicator", err, ClassComm)
	_, err = IntercommCreateCore("Intercomm_create", nil, nil, World, 1, World, 0, 0)
	wantClass(t, "IntercommCreate with a local leader out of range", err, ClassRank)
	_, err = IntercommCreateCore("Intercomm_create", nil, nil, World, 0, World, 0, 0)
	wantClass(t, "IntercommCreate of overlapping groups", err, ClassGroup)
	if c, err := CreateFromGroupCore("Comm_create_from_group", World.Group(), "core test", nil); err != nil || c.Size() != 1 {
		t.Errorf("CreateFromGroup: %v, %v", c, err)
	} else {
		must(t, c.FreeCore("Free"))
	}
}

// TestSelfMessages: point-to-point to this rank itself through World, a send and a
// receive completing as one request, probes, and buffered sends.
func TestSelfMessages(t *testing.T) {
	in, out := []byte("hello"), make([]byte, 8)
	q, err := World.Irecv("Irecv", p2p.Bytes(out), AnySource, AnyTag, false)
	must(t, err)
	must(t, World.Send("Send", p2p.Bytes(in), 0, 42, ModeStandard))
	var st p2p.Status
	must(t, WaitInto(&q, &st))
	if st.Source != 0 || st.Tag != 42 || st.Count != 5 || string(out[:5]) != "hello" {
		t.Errorf("received %q from %d tag %d (%d bytes)", out[:st.Count], st.Source, st.Tag, st.Count)
	}
	_, err = World.Isend("Isend", p2p.Bytes(in), 1, 0, ModeStandard, false)
	wantClass(t, "a send to rank 1 of one", err, ClassRank)
	_, err = World.Isend("Isend", p2p.Bytes(in), 0, -3, ModeStandard, false)
	wantClass(t, "a send with a negative tag", err, ClassTag)

	// A message that does not fit is truncated, and the class says so.
	must(t, World.Send("Send", p2p.Bytes(in), 0, 1, ModeStandard))
	_, _, _, err = World.Recv("Recv", p2p.Bytes(out[:2]), 0, 1)
	wantClass(t, "a receive too small", err, ClassTruncate)

	// Isendrecv: one request whose status is the receive's.
	sq, err := World.Isend("Isend", p2p.Bytes(in), 0, 7, ModeStandard, false)
	must(t, err)
	rq, err := World.Irecv("Irecv", p2p.Bytes(out), 0, 7, false)
	must(t, err)
	p := StartPair("Isendrecv", sq, rq, nil)
	must(t, p.Wait())
	must(t, p.StatusInto(&st))
	if st.Tag != 7 || st.Count != 5 {
		t.Errorf("the pair's status: tag %d, %d bytes", st.Tag, st.Count)
	}

	// A probe sees a message before it is received.
	must(t, World.Send("Send", p2p.Bytes(in), 0, 9, ModeStandard))
	st, ok, err := World.Iprobe("Iprobe", AnySource, 9)
	if err != nil || !ok || st.Count != 5 {
		t.Errorf("Iprobe: %v %v %v", st, ok, err)
	}
	_, _, _, err = World.Recv("Recv", p2p.Bytes(out), 0, 9)
	must(t, err)

	// A buffered send needs an attached buffer.
	wantClass(t, "Bsend without a buffer", World.Send("Bsend", p2p.Bytes(in), 0, 3, ModeBuffered), ClassBuffer)
	must(t, World.AttachBuffer("Buffer_attach", make([]byte, 1024), false))
	must(t, World.Send("Bsend", p2p.Bytes(in), 0, 3, ModeBuffered))
	_, _, _, err = World.Recv("Recv", p2p.Bytes(out), 0, 3)
	must(t, err)
	_, _, err = World.DetachBuffer("Buffer_detach")
	must(t, err)
}

// finisher records its run.
type finisher struct{ ran chan error }

func (f finisher) Finish(err error) error { f.ran <- err; return err }

// TestPending: the kinds of request core makes itself, and what a stale copy of one
// is.
func TestPending(t *testing.T) {
	if ok, err := Completed().Test(); !ok || err != nil {
		t.Errorf("Completed: %v %v", ok, err)
	}
	var nilPending *Pending
	if ok, err := nilPending.Test(); !ok || err != nil || nilPending.Active() {
		t.Errorf("a nil Pending is complete and inactive: %v %v", ok, err)
	}

	// Go: an operation in a goroutine of its own, its error returned by the wait; a
	// Finisher attached runs once, on that error.
	release := make(chan struct{})
	boom := errors.New("boom")
	p := Go("Idup", func() error { <-release; return boom })
	f := finisher{make(chan error, 2)}
	p = ThenFinish(p, f)
	if ok, _ := p.Test(); ok {
		t.Fatal("the operation completed before it was let go")
	}
	close(release)
	if err := p.Wait(); err != boom {
		t.Errorf("Wait: %v, want boom", err)
	}
	if err := p.Wait(); err != boom || len(f.ran) != 1 {
		t.Errorf("a second Wait: %v, the Finisher ran %d times", err, len(f.ran))
	}

	// A generalized request: complete once, its query's status, and stale once
	// reported.
	g := StartGrequest(Grequest{Query: func(st *p2p.Status) error { st.Tag = 11; return nil }})
	if !g.IsGrequest() || g.IsPersistent() || !g.Active() {
		t.Errorf("a generalized request: IsGrequest %v, IsPersistent %v, Active %v", g.IsGrequest(), g.IsPersistent(), g.Active())
	}
	h := g.Ref()
	must(t, g.GrequestComplete("Grequest_complete"))
	wantClass(t, "a second GrequestComplete", g.GrequestComplete("Grequest_complete"), ClassRequest)
	must(t, h.Wait())
	var st p2p.Status
	must(t, h.StatusInto(&st))
	if st.Tag != 11 {
		t.Errorf("the query's status: tag %d", st.Tag)
	}
	must(t, h.Release())
	if !h.Stale() {
		t.Error("a copy of a reported request is not used up")
	}
	wantClass(t, "Start of a request that is not persistent", g.Start("Start"), ClassRequest)
	wantClass(t, "GrequestComplete of another kind", Completed().GrequestComplete("Grequest_complete"), ClassRequest)
}

// TestAwait: a wait through the idle policy returns once its poll holds, and its
// sleep ends with the context's.
func TestAwait(t *testing.T) {
	n := 0
	Await(func() bool { n++; return n == 50 })
	if n != 50 {
		t.Errorf("Await returned after %d polls, want 50", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		AwaitCtx(ctx, func() bool { return ctx.Err() != nil })
		close(done)
	}()
	cancel()
	<-done
}
