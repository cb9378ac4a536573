/* found.c - behaviours MPICH's test suite (abi/suite) found wrong in mpigo's C ABI,
 * each checked here on its own so that CI, which has no MPICH sources, keeps them
 * fixed. Run on 2 ranks. */
#include "check.h"
#include <string.h>

/* MPI_Type_free while a receive uses the type: the receive completes normally
 * (MPICH datatype/tfree). */
static void freed_type_pending_recv(int rank) {
    int buf[64], i;
    MPI_Datatype vec;
    MPI_Request req;
    OK(MPI_Type_vector(16, 1, 4, MPI_INT, &vec));
    OK(MPI_Type_commit(&vec));
    if (rank == 1) {
        for (i = 0; i < 64; i++) buf[i] = -1;
        OK(MPI_Irecv(buf, 1, vec, 0, 7, MPI_COMM_WORLD, &req));
        OK(MPI_Type_free(&vec));
        OK(MPI_Sendrecv(NULL, 0, MPI_INT, 0, 8, NULL, 0, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (i = 0; i < 64; i++)
            CHECK(buf[i] == (i % 4 ? -1 : i / 4), "buf[%d] = %d after a receive with a freed type", i, buf[i]);
    } else if (rank == 0) {
        OK(MPI_Type_free(&vec));
        for (i = 0; i < 16; i++) buf[i] = i;
        OK(MPI_Sendrecv(NULL, 0, MPI_INT, 1, 8, NULL, 0, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        OK(MPI_Send(buf, 16, MPI_INT, 1, 7, MPI_COMM_WORLD));
    }
}

int main(int argc, char **argv) {
    int rank;
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    freed_type_pending_recv(rank);
    OK(MPI_Finalize());
    if (rank == 0) printf("OK found\n");
    return 0;
}
