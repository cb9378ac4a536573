// Hello starts MPI, says which rank of how many it is and where, and stops: the
// smallest MPI program, also used to time job launch.
package main

import (
	"fmt"
	"log"

	"github.com/mpigo/mpigo/mpi"
)

func main() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	fmt.Printf("hello from rank %d of %d on %s\n", mpi.World.Rank(), mpi.World.Size(), mpi.ProcessorName())
}
