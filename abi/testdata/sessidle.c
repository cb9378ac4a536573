/* sessidle.c - MPI_Finalize waits for every rank even after the runtime idled (a
 * session began and ended with no world model, and the launcher was told the rank
 * was done): rank 0 must not leave MPI_Finalize before rank 1 enters it. argv[1] is
 * a directory the ranks share for their marks; rank 1 looks a while for rank 0's
 * "left" mark before it enters (a bounded look for what must not happen). */
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

static const char *dir;

static void mark(const char *name) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL, "cannot write %s", p);
    fclose(f);
}

static int exists(const char *name) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    CHECK(argc > 1, "usage: sessidle DIR");
    dir = argv[1];
    MPI_Session s;
    OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    MPI_Group g;
    OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    MPI_Comm c;
    OK(MPI_Comm_create_from_group(g, "idle", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    int one = 1, n = 0;
    OK(MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, c));
    OK(MPI_Comm_free(&c));
    OK(MPI_Group_free(&g));
    OK(MPI_Session_finalize(&s)); /* the last end: the runtime idles */

    OK(MPI_Init(&argc, &argv));
    int rank, size;
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == n, "MPI_COMM_WORLD has %d ranks, the session's WORLD %d", size, n);
    static char buf[1 << 16];
    OK(MPI_Buffer_attach(buf, sizeof buf));
    int msg[2] = {42, 43};
    if (rank == 0) {
        OK(MPI_Bsend(msg, 2, MPI_INT, 1, 2, MPI_COMM_WORLD));
        mark("entered.0");
        OK(MPI_Finalize());
        mark("left.0");
        CHECK(exists("entered.1"), "rank 0 left MPI_Finalize before rank 1 entered it");
        printf("OK sessidle\n");
        return 0;
    }
    if (rank == 1) {
        for (double end = now() + 5; !exists("entered.0") && now() < end;)
            usleep(1000);
        for (double end = now() + 0.3; now() < end; usleep(5000))
            CHECK(!exists("left.0"), "rank 0 left MPI_Finalize while rank 1 had not entered it");
        int in[2] = {0, 0};
        OK(MPI_Recv(in, 2, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(in[0] == 42 && in[1] == 43, "the buffered message: %d %d", in[0], in[1]);
        mark("entered.1");
    }
    OK(MPI_Finalize());
    return 0;
}
