/* reqtest.h - what the tests of the C library's nonblocking short ways (p2preq.c,
 * p2ppend.c) share: the section's communicator and name, the count of C calls a body
 * made (COUNT), a signal between the two ranks through a shared window that calls
 * nothing of MPI, and a status's check. */
#include "check.h"
#include <stdint.h>
#include <string.h>

static int rank, wrank, none;
static MPI_Comm comm;
static const char *cname;
static volatile int *flags; /* flags[r]: world rank r's count of signals, in the shared window */
static int seen[2];

/* COUNT runs body and checks how many calls it did in C: 0 with "none", else at least
 * min and at most max. */
#define COUNT(counter, min, max, what, body)                                                  \
    do {                                                                                      \
        long r0_ = counter();                                                                 \
        body;                                                                                 \
        long d_ = counter() - r0_, m_ = none ? 0 : (max), n_ = none ? 0 : (min);              \
        CHECK(d_ >= n_ && d_ <= m_, "%s on %s: %ld calls in C, want %ld to %ld", what, cname, d_, n_, m_); \
    } while (0)

/* signal tells the other rank that everything this rank sent so far is in its ring;
 * await waits for the other rank's next signal, calling nothing of MPI. */
static void signal_(void) { __atomic_add_fetch((int *)&flags[wrank], 1, __ATOMIC_SEQ_CST); }
static void await(void) {
    int o = 1 - wrank;
    seen[o]++;
    while (__atomic_load_n((int *)&flags[o], __ATOMIC_SEQ_CST) < seen[o]) __builtin_ia32_pause();
}

static void status_is(const MPI_Status *st, int src, int tag, int bytes, const char *what) {
    int n = -1;
    OK(MPI_Get_count(st, MPI_BYTE, &n));
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && n == bytes,
          "%s on %s: status source %d tag %d count %d, want %d %d %d", what, cname, st->MPI_SOURCE, st->MPI_TAG, n, src,
          tag, bytes);
}

/* signals_open makes the ranks' signal words (flags) in a window the node shares and
 * returns 1; where the two ranks do not share a node it frees what it made and returns
 * 0: no C way is taken across hosts, and the test has nothing to check. */
static int signals_open(MPI_Win *win, MPI_Comm *node) {
    int *base = NULL, nsize, du;
    MPI_Aint wsz;
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, node));
    OK(MPI_Comm_size(*node, &nsize));
    if (nsize != 2) {
        OK(MPI_Comm_free(node));
        return 0;
    }
    OK(MPI_Win_allocate_shared(wrank == 0 ? 2 * sizeof(int) : 0, sizeof(int), MPI_INFO_NULL, *node, &base, win));
    OK(MPI_Win_shared_query(*win, 0, &wsz, &du, &base));
    flags = base;
    if (wrank == 0) flags[0] = flags[1] = 0;
    OK(MPI_Barrier(MPI_COMM_WORLD));
    return 1;
}

/* each_comm runs body on MPI_COMM_WORLD and then on a split of it with the ranks
 * reversed (comm, cname and rank set for it). */
static void each_comm(void (*body)(void)) {
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 0) {
            comm = MPI_COMM_WORLD, cname = "MPI_COMM_WORLD";
        } else {
            OK(MPI_Comm_split(MPI_COMM_WORLD, 0, -wrank, &comm));
            cname = "a reversed split";
        }
        OK(MPI_Comm_rank(comm, &rank));
        body();
        OK(MPI_Barrier(MPI_COMM_WORLD));
        if (pass == 1) OK(MPI_Comm_free(&comm));
    }
}

/* req_main is a test's main: MPI at the thread level argv[1] names ("multiple",
 * where the C ways hold the engine's shared lock, or "multiple-none"; any argument but
 * "multiple" means no call may take C: none), two ranks, and sections run on each
 * communicator (each_comm) where the ranks share a node. */
static int req_main(int argc, char **argv, const char *prog, void (*sections)(void)) {
    int provided, size;
    int multiple = argc > 1 && strncmp(argv[1], "multiple", 8) == 0;
    none = argc > 1 && strcmp(argv[1], "multiple") != 0;
    OK(MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 2, "%s needs 2 ranks, not %d", prog, size);
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
    MPI_Win win;
    MPI_Comm node;
    if (signals_open(&win, &node)) {
        each_comm(sections);
        OK(MPI_Win_free(&win));
        OK(MPI_Comm_free(&node));
    }
    if (wrank == 0) printf("OK %s\n", prog);
    OK(MPI_Finalize());
    return 0;
}
