package mpi_test

import (
	"fmt"
	"os"

	"github.com/mpigo/mpigo/mpi"
)

// A manager starts three workers of its own program: the same program runs as both,
// and CommGetParent tells them apart. Each worker sends its rank squared to the
// manager's rank 0, which prints their sum. Run it in a job (mpigo run -n 2 ./prog);
// the manager's rank 0 prints "3 workers sent 5".
func ExampleCommSpawn() {
	if err := mpi.Init(); err != nil {
		panic(err)
	}
	defer mpi.Finalize()
	if parent := mpi.CommGetParent(); parent != nil {
		// A worker: World is the workers, parent's remote group the manager's ranks.
		r := mpi.World.Rank()
		if err := mpi.Send(parent, []int{r * r}, 0, 0); err != nil {
			panic(err)
		}
		parent.Disconnect()
		return
	}
	// The program and its arguments matter at the root (rank 0) only.
	workers, errs, err := mpi.CommSpawn(os.Args[0], os.Args[1:], 3, nil, 0, mpi.World)
	if err != nil {
		panic(fmt.Sprint(err, errs)) // errs says, per worker, why it did not start
	}
	if mpi.World.Rank() == 0 {
		sum := 0
		for i := 0; i < workers.RemoteSize(); i++ {
			v := []int{0}
			if _, err := mpi.Recv(workers, v, mpi.AnySource, 0); err != nil {
				panic(err)
			}
			sum += v[0]
		}
		fmt.Println(workers.RemoteSize(), "workers sent", sum)
	}
	workers.Disconnect()
}

// Two groups join through a port, as two jobs started apart do: here the even ranks
// of one job accept and the odd ranks connect. The port's name reaches the connecting
// side by a message; separate jobs pass it by the name service (see PublishName), a
// file or the user. Then an Allreduce on the intercommunicator gives each side the
// other side's sum. Run it in a job of 2 ranks or more; rank 0 prints what the odd
// ranks sum to.
func ExampleCommAccept() {
	if err := mpi.Init(); err != nil {
		panic(err)
	}
	defer mpi.Finalize()
	odd := mpi.World.Rank() % 2
	half, err := mpi.World.Split(odd, 0)
	if err != nil {
		panic(err)
	}
	defer half.Free()
	var inter *mpi.Comm
	if odd == 0 {
		port := "" // matters at the root only
		if half.Rank() == 0 {
			if port, err = mpi.OpenPort(nil); err != nil {
				panic(err)
			}
			defer mpi.ClosePort(port)
			mpi.SendValue(mpi.World, port, 1, 0) // World's rank 1 is the odd side's root
		}
		inter, err = mpi.CommAccept(port, nil, 0, half)
	} else {
		port := ""
		if half.Rank() == 0 {
			port, _, _ = mpi.RecvValue[string](mpi.World, 0, 0)
		}
		inter, err = mpi.CommConnect(port, nil, 0, half)
	}
	if err != nil {
		panic(err)
	}
	sum := []int{0}
	if err := mpi.Allreduce(inter, []int{mpi.World.Rank()}, sum, mpi.Sum); err != nil {
		panic(err)
	}
	if mpi.World.Rank() == 0 {
		fmt.Println("the odd ranks sum to", sum[0])
	}
	inter.Disconnect()
}

// A server publishes its port under a service name, and a client finds it by that
// name: the two could be jobs started apart, by mpigo run, on the machine. Here rank
// 0 of one job is the server and rank 1 the client (on Self each), and a Barrier makes
// the name published before it is looked up. Run it in a job of 2 ranks; rank 0
// prints "the client says hello".
func ExamplePublishName() {
	if err := mpi.Init(); err != nil {
		panic(err)
	}
	defer mpi.Finalize()
	service := fmt.Sprintf("example-%d", os.Getppid()) // one per launcher: jobs that run at once do not meet
	switch mpi.World.Rank() {
	case 0:
		port, err := mpi.OpenPort(nil)
		if err != nil {
			panic(err)
		}
		defer mpi.ClosePort(port)
		if err := mpi.PublishName(service, nil, port); err != nil {
			panic(err)
		}
		defer mpi.UnpublishName(service, nil, port)
		mpi.World.Barrier()
		client, err := mpi.CommAccept(port, nil, 0, mpi.Self)
		if err != nil {
			panic(err)
		}
		msg, _, _ := mpi.RecvValue[string](client, 0, 0)
		fmt.Println("the client says", msg)
		client.Disconnect()
	case 1:
		mpi.World.Barrier()
		port, err := mpi.LookupName(service, nil)
		if err != nil {
			panic(err)
		}
		server, err := mpi.CommConnect(port, nil, 0, mpi.Self)
		if err != nil {
			panic(err)
		}
		mpi.SendValue(server, "hello", 0, 0)
		server.Disconnect()
	default:
		mpi.World.Barrier()
	}
}
