/* pmpi.c - profiling interception: this program defines MPI_Send and MPI_Barrier
 * itself, counts, and calls the PMPI_ names; the library's own stays reachable. */
#include "check.h"

static int sends, barriers;

int MPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
    sends++;
    return PMPI_Send(buf, count, dt, dest, tag, comm);
}

int MPI_Barrier(MPI_Comm comm) {
    barriers++;
    return PMPI_Barrier(comm);
}

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int x = rank;
    if (rank == 0) {
        for (int i = 1; i < size; i++) OK(MPI_Send(&x, 1, MPI_INT, i, 0, MPI_COMM_WORLD));
        CHECK(sends == size - 1, "intercepted %d sends", sends);
    } else {
        OK(MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(sends == 0, "no sends here");
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(barriers == 2, "intercepted %d barriers", barriers);
    OK(MPI_Pcontrol(1, "anything"));
    OK(MPI_Finalize());
    if (rank == 0) printf("OK pmpi\n");
    return 0;
}
