/* largeshort.c - the large-count forms that the C library begins in C (collshort.c's
 * Bcast and Allreduce, p2pshort.c's Sendrecv) and hands to Go part way name themselves
 * in the errors that Go reports: on 2 ranks under MPI_ERRORS_RETURN, each call below
 * is erroneous in a way only the other rank's arguments show, so the rank finds it after
 * C began the call. Prints "ERR <call> <text>" for abi_test.go's
 * TestLargeShortWaysNameThemselves. */
#include <mpi.h>
#include <stdio.h>
#include "errshow.h"

int main(int argc, char **argv) {
    int rank, rc;
    double b[8] = {0}, r[8];
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);

    /* The root broadcasts 8 doubles, rank 1's buffer holds 4: rank 1 truncates. */
    rc = MPI_Bcast_c(b, rank == 0 ? 8 : 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 1) show(rc, "MPI_Bcast_c");

    /* Counts 1 and 2: each rank finds the other's contribution of another length. */
    rc = MPI_Allreduce_c(b, r, rank == 0 ? 1 : 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    show(rc, "MPI_Allreduce_c");

    /* Rank 0 sends 2 doubles, rank 1 receives at most 1: rank 1 truncates. */
    rc = MPI_Sendrecv_c(b, rank == 0 ? 2 : 1, MPI_DOUBLE, 1 - rank, 5, r, rank == 0 ? 2 : 1, MPI_DOUBLE, 1 - rank, 5,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == 1) show(rc, "MPI_Sendrecv_c");

    MPI_Barrier(MPI_COMM_WORLD);
    if (failures == 0 && rank == 0) printf("OK largeshort\n");
    MPI_Finalize();
    return failures != 0;
}
