package mpi_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// The dynamic-process calls in real jobs. A spawned child is the test binary itself,
// started with the parent rank's arguments (which select the same test) and the
// job's environment (which makes it a rank of that test): CommGetParent tells the
// roles apart.

// TestSpawnChildrenTalk: 2 parents spawn 3 children (the arguments at rank 1 are
// insignificant, and garbage); the children talk among themselves over their World
// and to the parents over the intercommunicator, both sides merge it and reduce
// over the union, and disconnect; the child's parent is then gone.
func TestSpawnChildrenTalk(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		if parent := mpi.CommGetParent(); parent != nil {
			spawnedChild(t, parent)
			return
		}
		cmd, argv, np := os.Args[0], os.Args[1:], 3
		if rank != 0 {
			cmd, argv, np = "no such program", []string{"-x"}, -7 // insignificant here
		}
		inter, errs, err := mpi.CommSpawn(cmd, argv, np, nil, 0, mpi.World)
		must(t, err)
		if len(errs) != 3 || slices.ContainsFunc(errs, func(e error) bool { return e != nil }) {
			t.Fatalf("errs %v, want 3 nils", errs)
		}
		if !inter.IsInter() || inter.Size() != 2 || inter.RemoteSize() != 3 {
			t.Fatalf("the intercommunicator: inter %v, local %d, remote %d", inter.IsInter(), inter.Size(), inter.RemoteSize())
		}
		// Child r sends r+10 to parent r%2.
		for r := rank; r < 3; r += 2 {
			v := []int{0}
			_, err := mpi.Recv(inter, v, r, 1)
			must(t, err)
			if v[0] != r+10 {
				t.Errorf("from child %d: %d", r, v[0])
			}
		}
		spawnMerged(t, inter, false)
		must(t, inter.Disconnect())
		wantClass(t, "Barrier after Disconnect", inter.Barrier(), mpi.ErrComm)
	})
}

// spawnedChild is a child's side of TestSpawnChildrenTalk.
func spawnedChild(t *testing.T, parent *mpi.Comm) {
	if again := mpi.CommGetParent(); again != parent {
		t.Errorf("CommGetParent gave %p, then %p", parent, again)
	}
	if mpi.World.Size() != 3 || parent.RemoteSize() != 2 || parent.Size() != 3 {
		t.Fatalf("a child: World %d, parent's local %d remote %d", mpi.World.Size(), parent.Size(), parent.RemoteSize())
	}
	r := mpi.World.Rank()
	sum := []int{0}
	must(t, mpi.Allreduce(mpi.World, []int{r}, sum, mpi.Sum))
	if sum[0] != 3 {
		t.Errorf("the children's World sums ranks to %d", sum[0])
	}
	must(t, mpi.Send(parent, []int{r + 10}, r%2, 1))
	spawnMerged(t, parent, true)
	must(t, parent.Disconnect())
	if p := mpi.CommGetParent(); p != nil {
		t.Error("CommGetParent after Disconnect is not nil")
	}
}

// spawnMerged merges inter (the parents low) and reduces over the 5 processes.
func spawnMerged(t *testing.T, inter *mpi.Comm, high bool) { spawnMergedOf(t, inter, high, 5) }

// spawnMergedOf merges inter (the 2 parents low) and reduces over its n processes.
func spawnMergedOf(t *testing.T, inter *mpi.Comm, high bool, n int) {
	m, err := inter.IntercommMerge(high)
	must(t, err)
	defer m.Free()
	if m.Size() != n || (high && m.Rank() < 2) || (!high && m.Rank() >= 2) {
		t.Errorf("merged: size %d, rank %d (high %v)", m.Size(), m.Rank(), high)
	}
	sum := []int{0}
	must(t, mpi.Allreduce(m, []int{m.Rank()}, sum, mpi.Sum))
	if sum[0] != n*(n-1)/2 {
		t.Errorf("merged ranks sum to %d, want %d", sum[0], n*(n-1)/2)
	}
}

// TestSpawnIntercommCreateOverParent: parent rank 0 spawns 2 children over Self, and
// both Worlds make an intercommunicator through that one (its remote group naming
// the other leader), as MPICH's spawn/spaiccreate does: the children reach parent
// rank 1, which no communicator of theirs named before.
func TestSpawnIntercommCreateOverParent(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		parent := mpi.CommGetParent()
		peer := parent
		if parent == nil && rank == 0 {
			inter, _, err := mpi.CommSpawn(os.Args[0], os.Args[1:], 2, nil, 0, mpi.Self)
			must(t, err)
			peer = inter
		}
		both, err := mpi.IntercommCreate(mpi.World, 0, peer, 0, 123)
		must(t, err)
		if both.Size() != 2 || both.RemoteSize() != 2 {
			t.Fatalf("the new intercommunicator: local %d, remote %d, want 2 and 2", both.Size(), both.RemoteSize())
		}
		if parent != nil {
			must(t, mpi.Send(both, []int{rank + 10}, 1, 7))
		} else if rank == 1 {
			for r := range 2 {
				v := []int{0}
				_, err := mpi.Recv(both, v, r, 7)
				must(t, err)
				if v[0] != r+10 {
					t.Errorf("from child %d: %d, want %d", r, v[0], r+10)
				}
			}
		}
		spawnMergedOf(t, both, parent != nil, 4)
		must(t, both.Disconnect())
		if peer != nil {
			must(t, peer.Disconnect())
		}
	})
}

// TestIntercommCreateWithStranger: parent rank 0 spawns a child over Self and merges
// with it; that merged pair and parent rank 1 (alone) make an intercommunicator
// through the parents' World. Rank 1's side is all of one job, but the child has
// never heard of rank 1: the pair's need for how to reach the other side must decide
// what rank 1's leader sends, or the child fails and the others wait forever.
func TestIntercommCreateWithStranger(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		parent := mpi.CommGetParent()
		var inter, local *mpi.Comm
		var err error
		switch {
		case parent != nil:
			inter = parent
			local, err = parent.IntercommMerge(true)
		case rank == 0:
			inter, _, err = mpi.CommSpawn(os.Args[0], os.Args[1:], 1, nil, 0, mpi.Self)
			must(t, err)
			local, err = inter.IntercommMerge(false)
		default:
			local = mpi.Self
		}
		must(t, err)
		peer, remoteLeader := mpi.World, 1
		if rank == 1 && parent == nil {
			remoteLeader = 0
		}
		if parent != nil {
			peer = nil // significant at the leader only
		}
		both, err := mpi.IntercommCreate(local, 0, peer, remoteLeader, 55)
		must(t, err)
		if parent == nil && rank == 1 {
			if both.RemoteSize() != 2 {
				t.Fatalf("remote size %d, want 2", both.RemoteSize())
			}
			for r := range 2 {
				v := []int{0}
				_, err := mpi.Recv(both, v, r, 7)
				must(t, err)
				if v[0] != r+10 {
					t.Errorf("from remote rank %d: %d, want %d", r, v[0], r+10)
				}
			}
		} else {
			if both.RemoteSize() != 1 {
				t.Fatalf("remote size %d, want 1", both.RemoteSize())
			}
			must(t, mpi.Send(both, []int{local.Rank() + 10}, 0, 7))
		}
		must(t, both.Disconnect())
		if inter != nil {
			must(t, local.Free())
			must(t, inter.Disconnect())
		}
	})
}

// TestSpawnWhileDisconnecting: at ThreadMultiple, two goroutines of one parent each
// spawn a child, trade a message with it and disconnect, round after round, as a
// pool manager's threads do (mpi4py.futures): one goroutine's Disconnect, which drops
// the processes no communicator names any more, must not drop the child the other is
// still connecting to.
func TestSpawnWhileDisconnecting(t *testing.T) {
	mpitest.Job(t, mpitest.Options{N: 1}, func(t *testing.T) {
		_, err := mpi.InitThread(mpi.ThreadMultiple)
		must(t, err)
		if p := mpi.CommGetParent(); p != nil {
			v := []int{0}
			_, err := mpi.Recv(p, v, 0, 3)
			must(t, err)
			must(t, mpi.Send(p, []int{v[0] + 1}, 0, 4))
			must(t, p.Disconnect())
			must(t, mpi.Finalize())
			return
		}
		const goroutines, rounds = 2, 12
		errs := make(chan error, goroutines)
		for g := range goroutines {
			go func() {
				errs <- func() error {
					for r := range rounds {
						inter, _, err := mpi.CommSpawn(os.Args[0], os.Args[1:], 1, nil, 0, mpi.Self)
						if err != nil {
							return err
						}
						if err := mpi.Send(inter, []int{100*g + r}, 0, 3); err != nil {
							return err
						}
						v := []int{0}
						if _, err := mpi.Recv(inter, v, 0, 4); err != nil {
							return err
						}
						if v[0] != 100*g+r+1 {
							return fmt.Errorf("goroutine %d round %d: the child sent %d, want %d", g, r, v[0], 100*g+r+1)
						}
						if err := inter.Disconnect(); err != nil {
							return err
						}
					}
					return nil
				}()
			}()
		}
		for range goroutines {
			must(t, <-errs)
		}
		must(t, mpi.Finalize())
	})
}

// TestSpawnMultipleArgv: one parent spawns two commands with different arguments, 1
// and 2 processes: each child has its own command's arguments and MPI_APPNUM.
func TestSpawnMultipleArgv(t *testing.T) {
	job(t, 1, func(t *testing.T, rank, size int) {
		if parent := mpi.CommGetParent(); parent != nil {
			app, ok := mpi.World.Attr(mpi.KeyAppNum)
			want := 0
			if slices.Contains(os.Args, "-test.benchtime=2x") {
				want = 1
			}
			if !ok || app != want {
				t.Errorf("child %d: MPI_APPNUM %v (%v), want %d; args %q", mpi.World.Rank(), app, ok, want, os.Args)
			}
			if want := []int{0, 1, 1}[mpi.World.Rank()]; app != want {
				t.Errorf("child %d has MPI_APPNUM %v: the first command's process comes first", mpi.World.Rank(), app)
			}
			must(t, parent.Disconnect())
			return
		}
		args := os.Args[1:]
		cmds := []mpi.SpawnCommand{
			{Command: os.Args[0], Argv: append(slices.Clone(args), "-test.benchtime=1x"), MaxProcs: 1},
			{Command: os.Args[0], Argv: append(slices.Clone(args), "-test.benchtime=2x"), MaxProcs: 2},
		}
		inter, errs, err := mpi.CommSpawnMultiple(cmds, 0, mpi.World)
		must(t, err)
		if len(errs) != 3 || inter.RemoteSize() != 3 {
			t.Errorf("errs %v, remote size %d", errs, inter.RemoteSize())
		}
		must(t, inter.Disconnect())
	})
}

// TestSpawnThroughView: a spawn through a view with a context that does not end
// gives what the communicator's would (the view's path: aroundNew), and a view of
// the parent serves the child.
func TestSpawnThroughView(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if parent := mpi.CommGetParent(); parent != nil {
			must(t, parent.WithContext(ctx).Barrier())
			must(t, parent.Disconnect())
			return
		}
		inter, errs, err := mpi.CommSpawn(os.Args[0], os.Args[1:], 2, nil, 1, mpi.World.WithContext(ctx))
		must(t, err)
		if len(errs) != 2 || inter.RemoteSize() != 2 {
			t.Fatalf("errs %v, remote size %d", errs, inter.RemoteSize())
		}
		must(t, inter.Barrier())
		must(t, inter.Disconnect())
	})
}

// TestSpawnMissingProgram: a program that does not exist gives each process asked
// for an error of class ErrSpawn, at every parent, and the call's error; no hang.
func TestSpawnMissingProgram(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		inter, errs, err := mpi.CommSpawn("/no/such/program", nil, 2, nil, 1, mpi.World)
		wantClass(t, "CommSpawn of a missing program", err, mpi.ErrSpawn)
		if err != nil && !strings.Contains(err.Error(), "/no/such/program") {
			t.Errorf("the call's error %q does not name the missing program", err)
		}
		if inter != nil || len(errs) != 2 {
			t.Fatalf("inter %v, errs %v", inter, errs)
		}
		for i, e := range errs {
			wantClass(t, fmt.Sprintf("errs[%d]", i), e, mpi.ErrSpawn)
		}
	})
}

// TestSpawnBadMaxprocs: maxprocs < 1 at the root is the root's ErrArg, and fails the
// call at the other process too rather than leave it waiting.
func TestSpawnBadMaxprocs(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		inter, _, err := mpi.CommSpawn(os.Args[0], nil, 0, nil, 0, mpi.World)
		if rank == 0 {
			wantClass(t, "maxprocs 0 at the root", err, mpi.ErrArg)
		} else if err == nil {
			t.Error("the spawn of maxprocs 0 succeeded at rank 1")
		}
		if inter != nil {
			t.Errorf("inter %v", inter)
		}
	})
}

// TestConnectBadPort: a port nobody opened is the root's ErrPort, and an error, not a
// wait, at the other process.
func TestConnectBadPort(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		inter, err := mpi.CommConnect("no such port", nil, 0, mpi.World)
		if rank == 0 {
			wantClass(t, "CommConnect to a port nobody opened", err, mpi.ErrPort)
		} else if err == nil {
			t.Error("CommConnect to a port nobody opened succeeded at rank 1")
		}
		if inter != nil {
			t.Errorf("inter %v", inter)
		}
	})
}

// TestAcceptConnectJobs: two jobs started apart join: the first publishes its port
// under a name and accepts, the second looks the name up and connects; then a
// collective on the intercommunicator and on its merge, and both disconnect. A
// name nobody published is ErrName, a second publication of one ErrService. The
// second job waits for the first's publication on a FIFO (the test's own signal,
// no sleep).
func TestAcceptConnectJobs(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "published")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"DYN_FIFO=" + fifo, fmt.Sprintf("DYN_SERVICE=mpigo-test-%d", os.Getpid())}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t.Run("accept", func(t *testing.T) {
			jobWith(t, mpitest.Options{N: 2, Env: env}, func(t *testing.T, rank, size int) { acceptSide(t, rank) })
		})
	}()
	t.Run("connect", func(t *testing.T) {
		jobWith(t, mpitest.Options{N: 3, Env: env}, func(t *testing.T, rank, size int) { connectSide(t, rank) })
	})
	wg.Wait()
}

func acceptSide(t *testing.T, rank int) {
	service := os.Getenv("DYN_SERVICE")
	var port string
	if rank == 0 {
		var err error
		port, err = mpi.OpenPort(nil)
		must(t, err)
		must(t, mpi.PublishName(service, nil, port))
		wantClass(t, "a second PublishName", mpi.PublishName(service, nil, port), mpi.ErrService)
		f, err := os.OpenFile(os.Getenv("DYN_FIFO"), os.O_WRONLY, 0)
		must(t, err)
		_, err = f.WriteString("published")
		must(t, err)
		must(t, f.Close())
	}
	inter, err := mpi.CommAccept(port, nil, 0, mpi.World) // port is "" at rank 1: insignificant
	must(t, err)
	if rank == 0 {
		must(t, mpi.UnpublishName(service, nil, port))
		must(t, mpi.ClosePort(port))
		wantClass(t, "ClosePort of a closed port", mpi.ClosePort(port), mpi.ErrPort)
	}
	joinedCollectives(t, inter, 2, 3, false)
}

func connectSide(t *testing.T, rank int) {
	var port string
	if rank == 0 {
		f, err := os.Open(os.Getenv("DYN_FIFO"))
		must(t, err)
		b, err := io.ReadAll(f)
		f.Close()
		must(t, err)
		if string(b) != "published" {
			t.Fatalf("the FIFO said %q", b)
		}
		port, err = mpi.LookupName(os.Getenv("DYN_SERVICE"), nil)
		must(t, err)
		_, err = mpi.LookupName(os.Getenv("DYN_SERVICE")+"-never", nil)
		wantClass(t, "LookupName of a name nobody published", err, mpi.ErrName)
	}
	inter, err := mpi.CommConnect(port, nil, 0, mpi.World)
	must(t, err)
	joinedCollectives(t, inter, 3, 2, true)
}

// joinedCollectives checks inter between local and remote processes: an Allreduce on
// it gives each side the other's sum of ranks, one on its merge (high for the
// connecting side) everyone's; then it disconnects.
func joinedCollectives(t *testing.T, inter *mpi.Comm, local, remote int, high bool) {
	if inter.Size() != local || inter.RemoteSize() != remote {
		t.Fatalf("local %d remote %d, want %d and %d", inter.Size(), inter.RemoteSize(), local, remote)
	}
	sum := []int{0}
	must(t, mpi.Allreduce(inter, []int{inter.Rank()}, sum, mpi.Sum))
	if want := remote * (remote - 1) / 2; sum[0] != want {
		t.Errorf("Allreduce on the intercommunicator: %d, want the remote ranks' sum %d", sum[0], want)
	}
	m, err := inter.IntercommMerge(high)
	must(t, err)
	must(t, mpi.Allreduce(m, []int{1}, sum, mpi.Sum))
	if sum[0] != local+remote {
		t.Errorf("Allreduce on the merge: %d", sum[0])
	}
	must(t, m.Free())
	must(t, inter.Disconnect())
}

// TestJoinOverSocket: two ranks connect a TCP socket of their own (the address sent
// over World) and join over it, by CommJoinConn at one end and CommJoin of the
// descriptor at the other; they talk over the intercommunicator and disconnect.
func TestJoinOverSocket(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		var conn net.Conn
		if rank == 0 {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			must(t, err)
			must(t, mpi.SendValue(mpi.World, l.Addr().String(), 1, 0))
			conn, err = l.Accept()
			must(t, err)
			l.Close()
		} else {
			addr, _, err := mpi.RecvValue[string](mpi.World, 0, 0)
			must(t, err)
			conn, err = net.Dial("tcp", addr)
			must(t, err)
		}
		defer conn.Close()
		var inter *mpi.Comm
		var err error
		if rank == 0 {
			inter, err = mpi.CommJoinConn(conn.(*net.TCPConn))
		} else {
			f, ferr := conn.(*net.TCPConn).File() // a descriptor of its own, as a C program has
			must(t, ferr)
			defer f.Close()
			inter, err = mpi.CommJoin(int(f.Fd()))
		}
		must(t, err)
		if !inter.IsInter() || inter.Size() != 1 || inter.RemoteSize() != 1 {
			t.Fatalf("joined: inter %v, %d and %d", inter.IsInter(), inter.Size(), inter.RemoteSize())
		}
		got, _, err := mpi.SendrecvValue[string, string](inter, fmt.Sprint("from ", rank), 0, 0, 0, 0)
		must(t, err)
		if want := fmt.Sprint("from ", 1-rank); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
		must(t, inter.Disconnect())
	})
}

// TestUniverseAndAppNum: World has MPI_UNIVERSE_SIZE, at least the job's size, and
// MPI_APPNUM 0 (one program).
func TestUniverseAndAppNum(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		u, ok := mpi.World.Attr(mpi.KeyUniverseSize)
		if n, isInt := u.(int); !ok || !isInt || n < size {
			t.Errorf("MPI_UNIVERSE_SIZE %v (%v), want at least %d", u, ok, size)
		}
		a, ok := mpi.World.Attr(mpi.KeyAppNum)
		if !ok || a != 0 {
			t.Errorf("MPI_APPNUM %v (%v), want 0", a, ok)
		}
	})
}

// TestDynamicExamplesInJobs runs the dynamic-process Examples as jobs: rank 0 of the
// first job prints the one line (a spawned worker prints nothing).
func TestDynamicExamplesInJobs(t *testing.T) {
	for _, c := range []struct {
		name    string
		n       int
		example func()
		want    string
	}{
		{"CommSpawn", 2, ExampleCommSpawn, "3 workers sent 5\n"},
		{"CommAccept", 4, ExampleCommAccept, "the odd ranks sum to 4\n"},
		{"PublishName", 2, ExamplePublishName, "the client says hello\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := mpitest.Job(t, mpitest.Options{N: c.n}, func(t *testing.T) { c.example() })
			var lines []string
			for _, l := range strings.SplitAfter(res.Stdout, "\n") {
				if l != "" && l != "PASS\n" {
					lines = append(lines, l)
				}
			}
			if len(lines) != 1 || lines[0] != c.want {
				t.Errorf("the job printed %q, want %q", lines, c.want)
			}
		})
	}
}

// TestDisconnectPredefined: World and Self cannot be disconnected (ErrComm); a Dup
// can, by every member, once its communication is matched, and is gone after.
func TestDisconnectPredefined(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		wantClass(t, "Disconnect of World", mpi.World.Disconnect(), mpi.ErrComm)
		wantClass(t, "Disconnect of Self", mpi.Self.Disconnect(), mpi.ErrComm)
		d, err := mpi.World.Dup()
		must(t, err)
		if rank == 0 {
			must(t, mpi.Send(d, []int{7}, 1, 0))
		} else {
			v := []int{0}
			_, err := mpi.Recv(d, v, 0, 0)
			must(t, err)
		}
		must(t, d.Disconnect())
		wantClass(t, "Barrier after Disconnect", d.Barrier(), mpi.ErrComm)
	})
}

// TestWorkersExample runs examples/workers as a user does: mpigo run starts a manager
// of 2 ranks, which spawns 3 workers that compute π; the manager's rank 0 prints it.
func TestWorkersExample(t *testing.T) {
	prog := mpitest.Build(t, "../examples/workers")
	res := mpitest.Foreign(t, 2*time.Minute, nil, mpitest.Mpigo(t), "run", "-n", "2", prog, "3", "100000")
	if res.Code != 0 || strings.Count(res.Stdout, "pi is 3.14159") != 1 || !strings.Contains(res.Stdout, " from 3 workers, error ") {
		t.Errorf("examples/workers: %v", res)
	}
}
