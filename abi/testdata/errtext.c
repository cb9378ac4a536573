/* errtext.c - errors of several kinds on 2 ranks under MPI_ERRORS_RETURN: receives
 * (blocking and not) and a broadcast shorter than their messages, a bad Cartesian
 * dimension, a bad datatype count, an accumulate of a user's op, an op on a type it is
 * not defined on, a file that is not there. Each error's MPI_Error_string is printed
 * on a line "ERR <call> <text>" for abi_test.go's TestErrorStringNamesNoInternalPackage,
 * which checks that it names its procedure and none of mpigo's internal packages. */
#include <mpi.h>
#include <stdio.h>
#include "errshow.h"

static void userop(void *in, void *inout, int *len, MPI_Datatype *t) {
    (void)in, (void)inout, (void)len, (void)t;
}

int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors with no object */
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    long big[16] = {0}, small[8];
    if (rank == 0) {
        MPI_Send(big, 16, MPI_LONG, 1, 7, MPI_COMM_WORLD);
        MPI_Send(big, 16, MPI_LONG, 1, 8, MPI_COMM_WORLD);
    } else {
        show(MPI_Recv(small, 8, MPI_LONG, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
        MPI_Request q;
        MPI_Irecv(small, 8, MPI_LONG, 0, 8, MPI_COMM_WORLD, &q);
        show(MPI_Wait(&q, MPI_STATUS_IGNORE), "MPI_Wait");
    }

    double d[16] = {0};
    int rc = MPI_Bcast(d, rank == 0 ? 16 : 8, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank != 0)
        show(rc, "MPI_Bcast");

    int dims[2] = {-1, 2}, periods[2] = {0, 0};
    MPI_Comm cart;
    show(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart), "MPI_Cart_create");

    MPI_Datatype t;
    show(MPI_Type_vector(-1, 1, 1, MPI_INT, &t), "MPI_Type_vector");

    int *base;
    MPI_Win w;
    MPI_Op op;
    MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w);
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    MPI_Op_create(userop, 1, &op);
    MPI_Win_fence(0, w);
    int one = 1;
    show(MPI_Accumulate(&one, 1, MPI_INT, 1 - rank, 0, 1, MPI_INT, op, w), "MPI_Accumulate");
    MPI_Win_fence(0, w);
    MPI_Win_free(&w);
    MPI_Op_free(&op);

    double x = 1, y;
    show(MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD), "MPI_Allreduce");

    MPI_File f;
    show(MPI_File_open(MPI_COMM_SELF, "/mpigo-no-such-dir/x", MPI_MODE_RDONLY, MPI_INFO_NULL, &f), "MPI_File_open");

    MPI_Barrier(MPI_COMM_WORLD);
    if (failures == 0)
        printf("OK errtext\n");
    MPI_Finalize();
    return 0;
}
