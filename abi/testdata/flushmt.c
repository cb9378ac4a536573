/* flushmt.c - MPI_Win_flush_local_all and MPI_Win_flush_local from several threads at
 * once (MPI_THREAD_MULTIPLE) on a window whose targets are reached through their
 * progress (over TCP; with the argument "create" a window of MPI_Win_create over the
 * program's own memory, which node peers reach by single-copy reads): each completes every
 * operation its process started before it, so a thread's MPI_Fetch_and_op result and
 * MPI_Get data are in its buffers when its own flush returns, whatever flush another
 * thread is in at the time (MPI 4.1 §12.5.4: the result buffers may be reused). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

enum { NT = 4, ROUNDS = 3000 };

static MPI_Win win;
static int rank, n;
static int64_t *base;

static void *worker(void *arg) {
    int id = (int)(long)arg;
    for (int i = 0; i < ROUNDS; i++) {
        int t = (rank + 1 + i) % n;
        int64_t one = 1, res = -1, got[2] = {-1, -1};
        OK(MPI_Fetch_and_op(&one, &res, MPI_INT64_T, t, 0, MPI_SUM, win));
        OK(MPI_Get(got, 2, MPI_INT64_T, t, 1, 2, MPI_INT64_T, win));
        if (i & 1) OK(MPI_Win_flush_local(t, win));
        else OK(MPI_Win_flush_local_all(win));
        CHECK(res >= 0, "thread %d round %d: the Fetch_and_op's result not there after the flush (%lld)", id,
              i, (long long)res);
        CHECK(got[0] == 1000 + t && got[1] == 2000 + t, "thread %d round %d: the Get's data not there after the "
              "flush (%lld %lld)", id, i, (long long)got[0], (long long)got[1]);
    }
    return NULL;
}

int main(int argc, char **argv) {
    int provided;
    OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int create = argc > 1 && strcmp(argv[1], "create") == 0;
    if (create) {
        base = calloc(3, sizeof(int64_t));
        OK(MPI_Win_create(base, 3 * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    } else {
        OK(MPI_Win_allocate(3 * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    }
    base[0] = 0, base[1] = 1000 + rank, base[2] = 2000 + rank;
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_lock_all(0, win));
    pthread_t th[NT];
    for (int i = 0; i < NT; i++) pthread_create(&th[i], NULL, worker, (void *)(long)i);
    for (int i = 0; i < NT; i++) pthread_join(th[i], NULL);
    OK(MPI_Win_unlock_all(win));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    int64_t total = base[0];
    OK(MPI_Win_unlock(rank, win));
    int64_t sum = 0, want = (int64_t)n * NT * ROUNDS;
    OK(MPI_Allreduce(&total, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == want, "the targets' words add to %lld, want %lld", (long long)sum, (long long)want);
    OK(MPI_Win_free(&win));
    if (create) free(base);
    OK(MPI_Finalize());
    if (rank == 0) printf("OK flushmt\n");
    return 0;
}
