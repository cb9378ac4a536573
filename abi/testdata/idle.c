/* idle.c - a rank kept waiting in MPI_Waitany, MPI_Waitsome or MPI_Waitall for a
 * message that comes late sleeps, as a Go rank does (mpi/idle_test.go): rank 0
 * pauses 1.2 s before it sends, and rank 1's process uses under a quarter of the
 * wait's wall time in CPU (user and system, every thread of the process), and
 * returns once the message has come. Sets of messages only (the engine's wait) and
 * a set that mixes a message with a nonblocking barrier (polled through the idle
 * policy). */
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cpu(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

enum { WAITANY, WAITSOME, WAITALL, WAITANY_MIXED, CASES };
static const char *names[CASES] = {"MPI_Waitany", "MPI_Waitsome", "MPI_Waitall", "MPI_Waitany (Irecv, Ibarrier)"};

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    int rank, size;
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 2, "run on 2 ranks, not %d", size);
    const double pause = 1.2;
    for (int c = 0; c < CASES; c++) {
        OK(MPI_Barrier(MPI_COMM_WORLD));
        int x = c, y = -1, z = -1;
        if (rank == 0) {
            usleep((useconds_t)(pause * 1e6)); /* the scenario: a rank that comes late */
            OK(MPI_Send(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD));
            if (c == WAITANY_MIXED) {
                MPI_Request b;
                OK(MPI_Ibarrier(MPI_COMM_WORLD, &b));
                OK(MPI_Wait(&b, MPI_STATUS_IGNORE));
            } else {
                OK(MPI_Send(&x, 1, MPI_INT, 1, 2, MPI_COMM_WORLD));
            }
            continue;
        }
        MPI_Request rs[2];
        OK(MPI_Irecv(&y, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &rs[0]));
        if (c == WAITANY_MIXED)
            OK(MPI_Ibarrier(MPI_COMM_WORLD, &rs[1]));
        else
            OK(MPI_Irecv(&z, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &rs[1]));
        double c0 = cpu(), t0 = now();
        int idx = -1, n = 0, ix[2];
        switch (c) {
        case WAITSOME: OK(MPI_Waitsome(2, rs, &n, ix, MPI_STATUSES_IGNORE)); idx = ix[0]; break;
        case WAITALL: OK(MPI_Waitall(2, rs, MPI_STATUSES_IGNORE)); idx = 0; break;
        default: OK(MPI_Waitany(2, rs, &idx, MPI_STATUS_IGNORE));
        }
        double used = cpu() - c0, wall = now() - t0;
        printf("%s: waited %.3f s, used %.3f s of CPU (%.1f%%)\n", names[c], wall, used, 100 * used / wall);
        CHECK(idx == 0 && y == c, "%s: request %d completed (y %d), want the first, the message", names[c], idx, y);
        CHECK(wall > pause / 2, "%s: returned after %.3f s, before rank 0 sent (%.1f s)", names[c], wall, pause);
        CHECK(used < wall / 4, "%s: used %.3f s of CPU in a wait of %.3f s: more than 25%%", names[c], used, wall);
        if (c != WAITALL)
            OK(MPI_Waitall(2, rs, MPI_STATUSES_IGNORE));
    }
    OK(MPI_Finalize());
    if (rank == 1) printf("OK idle\n");
    return 0;
}
