package mpi_test

import (
	"fmt"

	"github.com/mpigo/mpigo/mpi"
)

// The tool interface lists mpigo's settings as control variables, with typed reads
// and writes, before Init as well as after.
func ExampleToolVars() {
	tools, err := mpi.ToolVars()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer tools.Close()
	v, err := tools.ControlVar("coll_bcast")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s = %s (%v), one of", v.Name(), v, v.Scope())
	for _, it := range v.Enum().Items {
		fmt.Print(" ", it.Name)
	}
	fmt.Println()
	// Output:
	// coll_bcast = auto (MPI_T_SCOPE_ALL_EQ), one of auto binomial scatter_ring pipeline
}

// A performance variable counts the messages that reached rank 0 before their
// receives, and a subscription hears of each. (TestExamplesInJobs runs this example
// as a job of 2 ranks.)
func ExampleTools_Subscribe() {
	tools, _ := mpi.ToolVars()
	defer tools.Close()
	if err := mpi.Init(); err != nil {
		fmt.Println(err)
		return
	}
	defer mpi.Finalize()
	session, _ := tools.NewPerfSession()
	defer session.Free()
	count, _ := tools.PerfVar("comm_unexpected_messages")
	h, err := session.Handle(count, mpi.World)
	if err != nil {
		fmt.Println(err)
		return
	}
	ev, _ := tools.Event("unexpected_message")
	events := make(chan *mpi.ToolEvent, 3)
	sub, err := tools.Subscribe(ev, mpi.World, func(e *mpi.ToolEvent) { events <- e })
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sub.Close()

	// Rank 1 sends three messages and then a last one, which rank 0 waits for: the
	// three came first, before any receive for them.
	if mpi.World.Rank() == 1 {
		mpi.World.Barrier()
		for tag := range 3 {
			mpi.Send(mpi.World, []byte("hello"), 0, tag)
		}
		mpi.Send(mpi.World, []byte{0}, 0, 9)
		return
	}
	last, _ := mpi.Irecv(mpi.World, make([]byte, 1), 1, 9)
	mpi.World.Barrier()
	last.Wait()
	n, _ := h.Uint()
	for range 3 {
		e := <-events
		fmt.Printf("from rank %d, tag %d, %d bytes\n", e.Data[0], e.Data[1], e.Data[2])
	}
	fmt.Println(n, "messages queued unexpected")
	for tag := range 3 {
		mpi.Recv(mpi.World, make([]byte, 5), 1, tag)
	}
}
