/* altstack.c - a host program that gives its main thread an alternate signal stack
 * before MPI_Init and takes it away after, as Python's faulthandler does at exit
 * (before mpi4py's MPI_Finalize), then makes calls that keep the library's Go code
 * running on that thread for tens of milliseconds each: the library must not signal
 * the thread (the Go runtime's preemption), whose handler would find no stack. */
#include "check.h"
#include <signal.h>

int main(int argc, char **argv) {
    stack_t own = {.ss_sp = malloc(1 << 16), .ss_size = 1 << 16, .ss_flags = 0};
    stack_t off = {.ss_flags = SS_DISABLE};
    CHECK(own.ss_sp != NULL && sigaltstack(&own, NULL) == 0, "sigaltstack on");
    OK(MPI_Init(&argc, &argv));
    CHECK(sigaltstack(&off, NULL) == 0, "sigaltstack off");
    int rank;
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    const int n = 1 << 23;
    int *bl = malloc(n * sizeof(int)), *dp = malloc(n * sizeof(int));
    CHECK(bl != NULL && dp != NULL, "malloc");
    for (int i = 0; i < n; i++) {
        bl[i] = 1;
        dp[i] = 2 * i;
    }
    for (int k = 0; k < 4; k++) {
        MPI_Datatype t;
        int size = 0;
        OK(MPI_Type_indexed(n, bl, dp, MPI_INT, &t));
        OK(MPI_Type_size(t, &size));
        CHECK(size == n * (int)sizeof(int), "size %d", size);
        OK(MPI_Type_free(&t));
    }
    int one = 1, sum = 0, np;
    OK(MPI_Comm_size(MPI_COMM_WORLD, &np));
    OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == np, "sum %d", sum);
    OK(MPI_Finalize());
    if (rank == 0) printf("OK altstack\n");
    free(bl);
    free(dp);
    free(own.ss_sp);
    return 0;
}
