package main

// The header's special addresses, as the library compares an argument with them:
// mpi.h defines them as pointers (((void *)1), ((MPI_Copy_function *)0x1), ...), which
// cgo reads from C at run time rather than as constants.
const (
	inPlaceAddr         = 1 // MPI_IN_PLACE
	bufferAutomaticAddr = 2 // MPI_BUFFER_AUTOMATIC
	nullCopyFnAddr      = 0 // MPI_NULL_COPY_FN and the MPI_x_NULL_COPY_FN
	dupFnAddr           = 1 // MPI_DUP_FN and the MPI_x_DUP_FN
)
