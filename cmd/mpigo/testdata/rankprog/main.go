// Rankprog is the program the mpigo command's tests launch: what it does is chosen by
// its arguments, so that one binary plays every part (a rank that fails at start, in the
// middle or at finalize, one that prints a lot, one that waits for a signal).
package main

import (
	"bufio"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mpigo/mpigo/internal/idle"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/topo"
	"github.com/mpigo/mpigo/mpi"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: rankprog MODE [args]")
		os.Exit(2)
	}
	mode := os.Args[1]
	arg := func(i int) int {
		v, _ := strconv.Atoi(os.Args[i])
		return v
	}
	rank, _ := strconv.Atoi(os.Getenv("MPIGO_RANK"))
	switch mode {
	case "exit-at-start": // RANK CODE: that rank exits before Init; the others wait in Init
		if rank == arg(2) {
			os.Exit(arg(3))
		}
	case "signal-at-start": // RANK: that rank kills itself with SIGKILL before Init
		if rank == arg(2) {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	case "ready-before-init": // say ready, then wait, never calling Init
		fmt.Printf("pid %d rank %d\nready %d\n", os.Getpid(), rank, rank)
		time.Sleep(time.Hour)
	case "overflow-at-start": // RANK: that rank overflows its stack before Init, which
		// the Go runtime ends as a fatal error
		if rank == arg(2) {
			debug.SetMaxStack(1 << 20)
			recurse(0)
		}
	}
	var termSigs chan os.Signal
	if mode == "exit-mid-selfkill" {
		termSigs = make(chan os.Signal, 1)
		signal.Notify(termSigs, syscall.SIGTERM)
	}
	fmt.Printf("pid %d rank %d\n", os.Getpid(), rank)
	var err error
	if strings.HasSuffix(mode, "-single") {
		// The mode at ThreadSingle, where the profile's calls take their serial path.
		mode = strings.TrimSuffix(mode, "-single")
		_, err = mpi.InitThread(mpi.ThreadSingle)
	} else {
		err = mpi.Init()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	switch mode {
	case "exit-mid": // RANK CODE: after Init, that rank exits; the others wait in Finalize
		if rank == arg(2) {
			os.Exit(arg(3))
		}
	case "exit-mid-selfkill": // RANK CODE: after Init and a Barrier (every rank is then
		// listening for SIGTERM), that rank exits; the others answer the launcher's
		// SIGTERM by killing themselves with SIGKILL
		if err := mpi.World.Barrier(); err != nil {
			os.Exit(1)
		}
		if rank == arg(2) {
			os.Exit(arg(3))
		}
		<-termSigs
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	case "no-finalize": // RANK: that rank returns from main without Finalize
		if rank == arg(2) {
			os.Exit(0)
		}
	case "panic": // RANK: that rank panics with Finalize deferred
		defer mpi.Finalize()
		if rank == arg(2) {
			panic("deliberate failure in rank " + strconv.Itoa(rank))
		}
		return
	case "panic-bare": // RANK: that rank panics after Init, with no Finalize deferred
		if rank == arg(2) {
			panic(fmt.Sprintf("deliberate bare panic in rank %d", rank))
		}
	case "abort": // RANK CODE
		if rank == arg(2) {
			mpi.World.Abort(arg(3))
		}
	case "fatal": // RANK: that rank sends to a rank that is not, under MPI_ERRORS_ARE_FATAL
		if rank == arg(2) {
			mpi.World.SetErrHandler(mpi.ErrorsAreFatal)
			mpi.Send(mpi.World, []int32{1}, 99, 0)
		}
	case "exit-after-finalize": // RANK CODE: fails after a clean Finalize
		mpi.Finalize()
		if rank == arg(2) {
			os.Exit(arg(3))
		}
		return
	case "lines": // N: print N numbered lines on stdout and stderr, then exit at once
		n := arg(2)
		w := bufio.NewWriterSize(os.Stdout, 1<<16)
		for i := 0; i < n; i++ {
			fmt.Fprintf(w, "rank %d line %d %s\n", rank, i, "abcdefghijklmnopqrstuvwxyz0123456789")
		}
		w.Flush()
		fmt.Fprintf(os.Stderr, "rank %d stderr done", rank) // no newline: the launcher adds one
	case "env": // NAME...: print the named variables
		for _, name := range os.Args[2:] {
			fmt.Printf("rank %d %s=%s\n", rank, name, os.Getenv(name))
		}
	case "stdin": // rank 0 echoes its standard input
		if rank == 0 {
			sc := bufio.NewScanner(os.Stdin)
			for sc.Scan() {
				fmt.Println("stdin:", sc.Text())
			}
		}
	case "wait-signal": // say ready, then report the signal the launcher forwards
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
		fmt.Printf("ready %d\n", rank)
		s := <-sigs
		fmt.Printf("rank %d got %v\n", rank, s)
		os.Exit(0)
	case "coll": // collectives across the job: prints "coll ok" when every result is right
		w := mpi.World
		n := w.Size()
		sum := []int{0}
		if err := mpi.Allreduce(w, []int{w.Rank()}, sum, mpi.Sum); err != nil || sum[0] != n*(n-1)/2 {
			fmt.Fprintf(os.Stderr, "allreduce: %v %v\n", sum, err)
			os.Exit(1)
		}
		big := make([]float64, 1<<18)
		if w.Rank() == n-1 {
			for i := range big {
				big[i] = float64(i)
			}
		}
		if err := mpi.Bcast(w, big, n-1); err != nil || big[12345] != 12345 {
			fmt.Fprintf(os.Stderr, "bcast: %v\n", err)
			os.Exit(1)
		}
		all := make([]int, n)
		if err := mpi.Allgather(w, []int{w.Rank() * 10}, all); err != nil || all[n-1] != (n-1)*10 {
			fmt.Fprintf(os.Stderr, "allgather: %v %v\n", all, err)
			os.Exit(1)
		}
		if err := w.Barrier(); err != nil {
			os.Exit(1)
		}
		fmt.Printf("coll ok rank %d\n", w.Rank())
	case "rma": // one-sided operations across the job, in every synchronisation mode:
		// prints "rma ok" when every result is right
		rmaCheck()
		fmt.Printf("rma ok rank %d\n", mpi.World.Rank())
	case "hang-recv": // rank 0 waits in Recv for a message from rank 1 (tag 7) that never
		// comes; every rank says "ready N" as it enters its last call (Recv, Finalize):
		// rank 0 once its record shows it in Recv, so that a test that stops the job at
		// "ready" finds it there
		if rank != 0 {
			fmt.Printf("ready %d\n", rank)
			break
		}
		go func() {
			for prof.State().Call != "Recv" {
				runtime.Gosched()
			}
			fmt.Printf("ready %d\n", rank)
		}()
		mpi.Recv(mpi.World, make([]int64, 1), 1, 7)
	case "hang-file": // 2 ranks open os.Args[2] (a new file); rank 0 enters a collective
		// write that rank 1 never enters, as rank 1 waits in Recv for a message from
		// rank 0 (tag 5) that never comes
		f, err := mpi.FileOpen(mpi.World, os.Args[2], mpi.ModeCreate|mpi.ModeRdwr, nil)
		must(err)
		if rank == 0 {
			_, err = mpi.FileWriteAtAll(f, 0, []int64{1, 2})
			must(err)
		} else {
			_, err = mpi.Recv(mpi.World, make([]int64, 1), 0, 5)
			must(err)
		}
	case "hang-split": // 4 ranks: the world split by parity; rank 0 enters an Allreduce
		// on the even half that rank 2 never enters, as rank 2 waits (Irecv, Wait) for a
		// message from rank 3 (tag 9) that never comes; the odd ranks go to Finalize
		half, err := mpi.World.Split(rank%2, rank)
		must(err)
		switch rank {
		case 0:
			must(mpi.Allreduce(half, []int{1}, make([]int, 1), mpi.Sum))
		case 2:
			q, err := mpi.Irecv(mpi.World, make([]int64, 1), 3, 9)
			must(err)
			q.Wait()
		}
	case "hang-freed": // 2 ranks: a duplicate of the world named "halo" once made; rank 0
		// posts a receive on it from rank 1 (tag 3) that never comes, frees it (MPI lets
		// the receive outlive it) and waits; rank 1 frees it and goes to Finalize
		d, err := mpi.World.Dup()
		must(err)
		must(d.SetName("halo"))
		var q mpi.Request
		if rank == 0 {
			q, err = mpi.Irecv(d, make([]int64, 1), 1, 3)
			must(err)
		}
		must(d.Free())
		fmt.Printf("ready %d\n", rank)
		if rank == 0 {
			q.Wait()
		}
	case "calls": // 2+ ranks: one of many kinds of call, for the profile's counts
		w := mpi.World
		n, me := w.Size(), w.Rank()
		d, err := w.Dup()
		must(err)
		h, err := w.Split(me%2, me)
		must(err)
		cart, err := w.CartCreate([]int{n}, []bool{true}, false)
		must(err)
		must(mpi.NeighborAlltoall(cart, make([]int32, 2), make([]int32, 2)))
		q, err := mpi.Ialltoall(d, make([]int32, n), make([]int32, n))
		must(err)
		_, err = q.Wait()
		must(err)
		q, err = mpi.Isendrecv(w, []int32{int32(me)}, (me+1)%n, 4, make([]int32, 1), (me+n-1)%n, 4)
		must(err)
		_, err = q.Wait()
		must(err)
		_, err = mpi.Sendrecv(w, []int32{int32(me)}, (me+1)%n, 5, make([]int32, 1), (me+n-1)%n, 5)
		must(err)
		_, err = mpi.SendrecvReplace(w, []int32{int32(me)}, (me+1)%n, 6, (me+n-1)%n, 6)
		must(err)
		_, err = mpi.BcastValue(w, map[string]int{"b": me}, 0)
		must(err)
		_, err = mpi.AllgatherValues(w, me)
		must(err)
		win, _, err := mpi.WinAllocate(8*n, 8, nil, w)
		must(err)
		must(win.Fence(0))
		must(mpi.Put(win, []int64{1}, (me+1)%n, me))
		must(win.Fence(0))
		must(win.Free())
		switch me {
		case 0:
			must(mpi.SendValue(w, map[string]int{"a": 1}, 1, 3))
		case 1:
			_, _, err := mpi.RecvValue[map[string]int](w, 0, 3)
			must(err)
		}
		// Persistent requests, a cancelled receive, requests' statuses, buffer
		// flushes, a dynamic window's memory.
		ps, err := mpi.SendInit(w, []int32{1}, (me+1)%n, 7)
		must(err)
		pr, err := mpi.RecvInit(w, make([]int32, 1), (me+n-1)%n, 7)
		must(err)
		never, err := mpi.RecvInit(w, make([]int32, 1), me, 98)
		must(err)
		for _, r := range []*mpi.Request{&ps, &pr, &never} {
			must(r.Start())
		}
		must(never.Cancel())
		for _, r := range []*mpi.Request{&ps, &pr, &never} {
			_, err = r.Wait()
			must(err)
		}
		_, _, err = ps.GetStatus()
		must(err)
		_, err = mpi.RequestGetStatusAll([]mpi.Request{ps, pr}, nil)
		must(err)
		_, _, _, err = mpi.RequestGetStatusAny([]mpi.Request{ps})
		must(err)
		_, _, err = mpi.RequestGetStatusSome([]mpi.Request{pr})
		must(err)
		for _, r := range []*mpi.Request{&ps, &pr, &never} {
			must(r.Free())
		}
		must(mpi.BufferFlush())
		must(w.FlushBuffer())
		for _, start := range []func() (mpi.Request, error){mpi.BufferIflush, w.IflushBuffer} {
			r, err := start()
			must(err)
			_, err = r.Wait()
			must(err)
		}
		dyn, err := mpi.WinCreateDynamic(nil, w)
		must(err)
		mem := make([]byte, 64)
		_, err = dyn.Attach(mem)
		must(err)
		must(dyn.Detach(mem))
		must(dyn.Free())
		for _, c := range []*mpi.Comm{d, h, cart} {
			must(c.Free())
		}
	case "slowsend": // ROUNDS: rank 1 is away 2 ms (asleep: longer than a wait spins)
		// before each of ROUNDS sends to rank 0, which waits for each in Recv: rank 0
		// spends nearly all its time in MPI, in calls that block
		w := mpi.World
		b := make([]byte, 8)
		for range arg(2) {
			if w.Rank() == 1 {
				time.Sleep(2 * time.Millisecond)
				must(mpi.Send(w, b, 0, 1))
			} else {
				_, err := mpi.Recv(w, b, 1, 1)
				must(err)
			}
		}
	case "values": // ROUNDS: rank 1 is away 2 ms before each of ROUNDS receives of a
		// 256 KiB value that rank 0 sends, so that rank 0 spends its time blocked in
		// SendValue; then every other value call once, with small values
		w := mpi.World
		n, me := w.Size(), w.Rank()
		big := make([]string, 1024)
		for i := range big {
			big[i] = strings.Repeat("v", 250)
		}
		for range arg(2) {
			switch me {
			case 0:
				must(mpi.SendValue(w, big, 1, 1))
			case 1:
				time.Sleep(2 * time.Millisecond)
				_, _, err := mpi.RecvValue[[]string](w, 0, 1)
				must(err)
			}
		}
		small := map[string]int{"rank": me}
		switch me {
		case 0:
			q, err := mpi.IsendValue(w, small, 1, 2)
			must(err)
			_, _, err = q.Wait()
			must(err)
		case 1:
			q, err := mpi.IrecvValue[map[string]int](w, 0, 2)
			must(err)
			_, _, err = q.Wait()
			must(err)
		}
		_, _, err := mpi.SendrecvValue[map[string]int, map[string]int](w, small, (me+1)%n, 3, (me+n-1)%n, 3)
		must(err)
		_, err = mpi.BcastValue(w, small, 0)
		must(err)
		_, err = mpi.GatherValues(w, small, 0)
		must(err)
		all := make([]map[string]int, n)
		for i := range all {
			all[i] = map[string]int{"to": i}
		}
		_, err = mpi.ScatterValues(w, all, 0)
		must(err)
		_, err = mpi.AllgatherValues(w, small)
		must(err)
		_, err = mpi.AlltoallValues(w, all)
		must(err)
		merge := func(a, b map[string]int) map[string]int { return map[string]int{"rank": a["rank"] + b["rank"]} }
		_, err = mpi.ReduceValue(w, small, merge, 0)
		must(err)
		_, err = mpi.AllreduceValue(w, small, merge)
		must(err)
	case "ring": // ROUNDS [FAILRANK]: each rank sends 1 KiB to the next ROUNDS times, then
		// an Allreduce; FAILRANK (if given) then exits with code 3 while the others wait
		// in a Barrier
		w := mpi.World
		n, me := w.Size(), w.Rank()
		buf, in := make([]byte, 1024), make([]byte, 1024)
		for i := 0; i < arg(2); i++ {
			q, err := mpi.Irecv(w, in, (me+n-1)%n, 1)
			must(err)
			must(mpi.Send(w, buf, (me+1)%n, 1))
			_, err = q.Wait()
			must(err)
		}
		sum := []int{0}
		must(mpi.Allreduce(w, []int{1}, sum, mpi.Sum))
		if len(os.Args) > 3 && me == arg(3) {
			os.Exit(3)
		}
		must(w.Barrier())
	case "flows": // REPS: 3+ ranks: REPS times a Bcast of 1000 bytes from rank 1, a
		// Reduce of 800 bytes to rank 2 and an Allreduce of 64 bytes, after a Barrier
		// (which sets up the node's shared memory), for the matrix's collective flows
		w := mpi.World
		must(w.Barrier())
		b, red, all := make([]byte, 1000), make([]int64, 100), make([]int64, 8)
		for range arg(2) {
			must(mpi.Bcast(w, b, 1))
			must(mpi.Reduce(w, red, red, mpi.Sum, 2))
			must(mpi.Allreduce(w, all, make([]int64, 8), mpi.Sum))
		}
	case "rmaflows": // 3+ ranks, in one fence epoch on an allocated window: each rank
		// puts 16 bytes, accumulates 8, fetches-and-adds 8 (short ways) and
		// get-accumulates 8 (the general path's direct branch) at the next rank, gets
		// 24 from the one after
		w := mpi.World
		n, me := w.Size(), w.Rank()
		win, _, err := mpi.WinAllocate(64, 8, nil, w)
		must(err)
		must(win.Fence(0))
		must(mpi.Put(win, []int64{1, 2}, (me+1)%n, 0))
		must(mpi.Accumulate(win, []int64{1}, (me+1)%n, 2, mpi.Sum))
		_, err = mpi.FetchAndOp(win, int64(1), (me+1)%n, 3, mpi.Sum)
		must(err)
		must(mpi.Get(win, make([]int64, 3), (me+2)%n, 4))
		must(mpi.GetAccumulate(win, []int64{1}, make([]int64, 1), (me+1)%n, 7, mpi.Sum))
		must(win.Fence(0))
		must(win.Free())
	case "pingpong": // ROUNDS: ranks 0 and 1 exchange 8 bytes ROUNDS times with blocking
		// Send and Recv
		w := mpi.World
		me, buf := w.Rank(), make([]byte, 8)
		for i := 0; i < arg(2); i++ {
			if me == 0 {
				must(mpi.Send(w, buf, 1, 1))
				_, err := mpi.Recv(w, buf, 1, 1)
				must(err)
			} else if me == 1 {
				_, err := mpi.Recv(w, buf, 0, 1)
				must(err)
				must(mpi.Send(w, buf, 0, 1))
			}
		}
	case "testloop": // ROUNDS: rank 0 receives ROUNDS messages from rank 1, each by
		// polling Test until it completes; rank 1 sends each once rank 0 has polled
		// 100 times in vain (rank 0 tells it so), so that every round has its run
		w := mpi.World
		buf, cue := make([]byte, 8), make([]byte, 1)
		for i := 0; i < arg(2); i++ {
			switch w.Rank() {
			case 0:
				q, err := mpi.Irecv(w, buf, 1, 1)
				must(err)
				for polls, done := 0, false; !done; polls++ {
					_, done, err = q.Test()
					must(err)
					if polls == 99 {
						must(mpi.Send(w, cue, 1, 2))
					}
				}
			case 1:
				_, err := mpi.Recv(w, cue, 0, 2)
				must(err)
				must(mpi.Send(w, buf, 0, 1))
			}
		}
	case "spawn": // N: the job spawns N children (mode spawn-child) on its hosts and
		// checks a message each way, a collective of the children's own and one over
		// the merged communicator; every process prints "spawn ok"
		spawnParent(arg(2))
	case "spawn-child":
		spawnChild()
	case "spawn-fail": // RANK CODE: the job spawns 3 children, of which RANK exits with CODE
		self, err := os.Executable()
		must(err)
		_, _, err = mpi.CommSpawn(self, []string{"spawn-exit", os.Args[2], os.Args[3]}, 3, nil, 0, mpi.World)
		must(err)
		select {} // the run ends with the child's failure
	case "spawn-exit": // RANK CODE: a spawned child; that rank exits with CODE
		if mpi.World.Rank() == arg(2) {
			os.Exit(arg(3))
		}
		select {}
	case "spawn-hang": // 1 rank spawns 2 children (mode spawn-hang-child) and waits in
		// Recv from child 0 for a message it never sends: the children wait in a Barrier
		// of their parent communicator that the parent never enters
		self, err := os.Executable()
		must(err)
		inter, _, err := mpi.CommSpawn(self, []string{"spawn-hang-child"}, 2, nil, 0, mpi.World)
		must(err)
		_, err = mpi.Recv(inter, []byte{0}, 0, 4)
		must(err)
	case "spawn-hang-child":
		must(mpi.CommGetParent().Barrier())
	case "spawn-multi": // two programs in one spawn, with their own arguments
		self, err := os.Executable()
		must(err)
		inter, errs, err := mpi.CommSpawnMultiple([]mpi.SpawnCommand{
			{Command: self, Argv: []string{"spawn-argv", "a b", "c"}, MaxProcs: 2},
			{Command: self, Argv: []string{"spawn-argv", "d"}, MaxProcs: 1},
		}, 0, mpi.World)
		must(err)
		if len(errs) != 3 || inter.RemoteSize() != 3 {
			must(fmt.Errorf("spawn-multi: %d errcodes and %d children, want 3 and 3", len(errs), inter.RemoteSize()))
		}
		must(inter.Disconnect())
	case "spawn-argv": // a child of spawn-multi: prints its arguments and MPI_APPNUM
		app, ok := mpi.World.Attr(mpi.KeyAppNum)
		fmt.Printf("child %d appnum %v %v args %q\n", mpi.World.Rank(), app, ok, os.Args[2:])
		p := mpi.CommGetParent()
		if p == nil {
			must(fmt.Errorf("spawn-argv: no parent"))
		}
		must(p.Disconnect())
	case "hello":
	case "affinity": // print the CPUs this rank may run on
		cpus, err := topo.Allowed()
		must(err)
		fmt.Printf("rank %d cpus %s\n", rank, cpus)
	case "freed": // wait, at most os.Args[2], for the launcher to free this rank from its core and say the node is shared (bind_watch)
		d, err := time.ParseDuration(os.Args[2])
		must(err)
		all := topo.Machine().CPUs
		cpus, err := topo.Allowed()
		must(err)
		for end := time.Now().Add(d); (!cpus.Equal(all) || !idle.Shared()) && time.Now().Before(end); {
			time.Sleep(10 * time.Millisecond)
			cpus, err = topo.Allowed()
			must(err)
		}
		fmt.Printf("rank %d cpus %s\n", rank, cpus)
		fmt.Printf("rank %d shared %v\n", rank, idle.Shared())
	case "block": // say ready and wait forever (the test ends the job)
		fmt.Printf("ready %d\n", rank)
		select {}
	}
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// spawnParent is mode spawn: the job spawns n children and checks what they send.
func spawnParent(n int) {
	self, err := os.Executable()
	must(err)
	w := mpi.World
	inter, errs, err := mpi.CommSpawn(self, []string{"spawn-child"}, n, nil, 0, w)
	must(err)
	for i, e := range errs {
		if e != nil {
			must(fmt.Errorf("child %d: %v", i, e))
		}
	}
	if inter.RemoteSize() != n || inter.Size() != w.Size() {
		must(fmt.Errorf("intercommunicator of %d and %d, want %d and %d", inter.Size(), inter.RemoteSize(), w.Size(), n))
	}
	// Each parent sends its rank to child (rank mod n), which answers with the sum
	// of the children's world ranks (their own Allreduce) plus the parent's rank.
	child := w.Rank() % n
	must(mpi.Send(inter, []int32{int32(w.Rank())}, child, 1))
	got := []int32{0}
	_, err = mpi.Recv(inter, got, child, 2)
	must(err)
	if want := int32(n*(n-1)/2 + w.Rank()); got[0] != want {
		must(fmt.Errorf("child %d answered %d, want %d", child, got[0], want))
	}
	spawnMerged(inter, false)
	fmt.Printf("spawn ok parent %d\n", w.Rank())
}

// spawnChild is a child of mode spawn.
func spawnChild() {
	p := mpi.CommGetParent()
	if p == nil {
		must(fmt.Errorf("spawn-child: no parent"))
	}
	w := mpi.World
	sum := []int32{0}
	must(mpi.Allreduce(w, []int32{int32(w.Rank())}, sum, mpi.Sum))
	for r := 0; r < p.RemoteSize(); r++ {
		if r%w.Size() != w.Rank() {
			continue
		}
		got := []int32{0}
		_, err := mpi.Recv(p, got, r, 1)
		must(err)
		must(mpi.Send(p, []int32{sum[0] + got[0]}, r, 2))
	}
	spawnMerged(p, true)
	fmt.Printf("spawn ok child %d\n", w.Rank())
}

// spawnMerged merges inter, checks an Allreduce over both jobs and disconnects.
func spawnMerged(inter *mpi.Comm, high bool) {
	m, err := inter.IntercommMerge(high)
	must(err)
	n := m.Size()
	sum := []int32{0}
	must(mpi.Allreduce(m, []int32{int32(m.Rank())}, sum, mpi.Sum))
	if sum[0] != int32(n*(n-1)/2) {
		must(fmt.Errorf("merged Allreduce: %d, want %d", sum[0], n*(n-1)/2))
	}
	must(m.Free())
	must(inter.Disconnect())
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// rmaCheck runs Fence, post/start/complete/wait and passive-target operations over a
// window of WinAllocate across the job (shipped to ranks on other hosts, direct on
// one's own) and exits 1 on a wrong result.
func rmaCheck() {
	w0 := mpi.World
	n, me := w0.Size(), w0.Rank()
	next, prev := (me+1)%n, (me+n-1)%n
	const big = 1 << 17 // int64s: 1 MiB, shipped in messages of its own
	w, _, err := mpi.WinAllocate(8*(n+big), 8, nil, w0)
	must(err)
	mem := make([]int64, n+big)
	fail := func(what string, args ...any) {
		fmt.Fprintf(os.Stderr, "rma: rank %d: "+what+"\n", append([]any{me}, args...)...)
		os.Exit(1)
	}
	// Fence: every rank puts its rank into slot me of the next rank, and a block.
	block := make([]int64, big)
	for i := range block {
		block[i] = int64(i*n + me)
	}
	must(w.Fence(0))
	must(mpi.Put(w, []int64{int64(me + 1)}, next, me))
	must(mpi.Put(w, block, next, n))
	must(w.Fence(0))
	must(mpi.Get(w, mem, me, 0))
	must(w.Fence(0))
	if mem[prev] != int64(prev+1) || mem[n+big-1] != int64((big-1)*n+prev) {
		fail("fence: slot %d holds %d, the block ends in %d", prev, mem[prev], mem[n+big-1])
	}
	// PSCW around the ring: expose to the previous rank, access the next.
	g := w0.Group()
	from, err := g.Incl([]int{prev})
	must(err)
	to, err := g.Incl([]int{next})
	must(err)
	for round := range 3 {
		must(w.Post(from, 0))
		must(w.Start(to, 0))
		must(mpi.Put(w, []int64{int64(100*round + me)}, next, me))
		must(w.Complete())
		must(w.Wait())
		must(w.Lock(mpi.LockShared, me, 0))
		must(mpi.Get(w, mem[:n], me, 0))
		must(w.Unlock(me))
		if mem[prev] != int64(100*round+prev) {
			fail("pscw round %d: slot %d holds %d", round, prev, mem[prev])
		}
	}
	// Passive target: a counter at rank 0 that every rank bumps.
	must(w0.Barrier())
	if me == 0 {
		must(w.Lock(mpi.LockExclusive, 0, 0))
		must(mpi.Put(w, []int64{0}, 0, 0))
		must(w.Unlock(0))
	}
	must(w0.Barrier())
	const bumps = 50
	must(w.Lock(mpi.LockShared, 0, 0))
	for range bumps {
		if _, err := mpi.FetchAndOp(w, int64(1), 0, 0, mpi.Sum); err != nil {
			fail("FetchAndOp: %v", err)
		}
	}
	must(w.Unlock(0))
	must(w0.Barrier())
	if me == 0 {
		must(w.Lock(mpi.LockShared, 0, 0))
		must(mpi.Get(w, mem[:1], 0, 0))
		must(w.Unlock(0))
		if mem[0] != int64(n*bumps) {
			fail("counter %d, want %d", mem[0], n*bumps)
		}
	}
	must(w.Free())
}

// recurse calls itself until the stack overflows.
func recurse(n int) int {
	var pad [64]byte
	pad[n%64] = byte(n)
	return recurse(n+1) + int(pad[(n+1)%64])
}
