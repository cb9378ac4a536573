/* rmaprof.c - the profile of the one-sided calls done in C (abi/libmpi/short.c): run
 * under mpigo run --profile on one node (3+ ranks), each rank locks the next one's
 * allocated window and does 10 times an 8-byte MPI_Put and MPI_Win_flush, then one
 * 16-byte MPI_Get and one MPI_Fetch_and_op, all in C (checked through
 * mpigo_short_fallbacks, the library's count of calls handed to Go); with the
 * argument "go" (over TCP, where no target's memory is mapped) all of them in Go. The
 * test (abi_test.go) reads the calls' counts and the matrix the profile wrote. */
#include "check.h"
#include <stdint.h>

extern long mpigo_short_fallbacks(void);

int main(int argc, char **argv) {
    int rank, n;
    OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int64_t *base;
    MPI_Win win;
    OK(MPI_Win_allocate(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    int next = (rank + 1) % n;
    OK(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win));
    long f0 = mpigo_short_fallbacks();
    for (int64_t i = 0; i < 10; i++) {
        OK(MPI_Put(&i, 1, MPI_INT64_T, next, 0, 1, MPI_INT64_T, win));
        OK(MPI_Win_flush(next, win));
    }
    int64_t got[2], one = 1, old;
    OK(MPI_Get(got, 2, MPI_INT64_T, next, 0, 2, MPI_INT64_T, win));
    OK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, next, 3, MPI_SUM, win));
    long f = mpigo_short_fallbacks() - f0;
    int go = argc > 1; /* "go": the calls go to the Go halves (run over TCP) */
    CHECK(go ? f == 22 : f == 0, "%ld calls went to Go", f);
    OK(MPI_Win_unlock(next, win));
    CHECK(got[0] == 9, "got %lld, want 9", (long long)got[0]);
    OK(MPI_Win_free(&win));
    OK(MPI_Finalize());
    if (rank == 0) printf("OK rmaprof\n");
    return 0;
}
