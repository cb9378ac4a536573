/* noalloc.c - a C program's short collectives and point-to-point calls allocate
 * nothing in the library per call once warm, checked through mpigo_mallocs (the Go
 * heap's count of allocations) over 500 rounds: Allreduce, Reduce, Bcast, Barrier,
 * Allgather, Gather, Scatter, Alltoall, Scan, Reduce_scatter_block, Sendrecv,
 * Send/Recv (of a predefined and of a vector type), Isend/Irecv with Waitall, Wait
 * and Test, on MPI_COMM_WORLD; and, counted apart, the nonblocking collectives
 * Iallreduce, Ibcast, Ibarrier, Ireduce, Iallgather and Ialltoall, each with its Wait;
 * and the reductions on a datatype with gaps, which the library packs and unpacks
 * around the device's call: Iallreduce, Ireduce, Iscan, Iexscan,
 * Ireduce_scatter_block and Ireduce_scatter with their Waits, and Allreduce (and,
 * not counted, a persistent Allreduce_init on it started three times); and the
 * neighbourhood collectives on a periodic ring, blocking and nonblocking, on
 * MPI_DOUBLE and on the column type.
 * Results are checked too. */
#include "check.h"

extern long mpigo_mallocs(void);

#define ROUNDS 500

static MPI_Datatype column; /* every other double of 8 */

static void round_(int rank, int n, int i) {
    double a = rank + i, sum = 0, max = 0;
    int v = i;
    OK(MPI_Allreduce(&a, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == n * (double)i + n * (n - 1) / 2.0, "Allreduce sum %g", sum);
    OK(MPI_Reduce(&a, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
    CHECK(rank != 0 || max == n - 1 + i, "Reduce max %g", max);
    OK(MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD));
    CHECK(v == i, "Bcast %d", v);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    double all[8], part = 0;
    OK(MPI_Allgather(&a, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, MPI_COMM_WORLD));
    CHECK(all[n - 1] == n - 1 + i, "Allgather %g", all[n - 1]);
    OK(MPI_Gather(&a, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    OK(MPI_Scatter(all, 1, MPI_DOUBLE, &part, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    CHECK(part == a, "Gather then Scatter gave %g", part);
    OK(MPI_Alltoall(all, 1, MPI_DOUBLE, all + 4, 1, MPI_DOUBLE, MPI_COMM_WORLD));
    OK(MPI_Scan(&a, &part, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    CHECK(part == (rank + 1) * (double)i + rank * (rank + 1) / 2.0, "Scan %g", part);
    for (int k = 0; k < n; k++) all[k] = k;
    OK(MPI_Reduce_scatter_block(all, &part, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    CHECK(part == rank * (double)n, "Reduce_scatter_block %g", part);
    long out = i, in = -1;
    int to = (rank + 1) % n, from = (rank + n - 1) % n;
    OK(MPI_Sendrecv(&out, 1, MPI_LONG, to, 1, &in, 1, MPI_LONG, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(in == i, "Sendrecv %ld", in);
    MPI_Request q[2];
    OK(MPI_Irecv(&in, 1, MPI_LONG, from, 2, MPI_COMM_WORLD, &q[0]));
    OK(MPI_Isend(&out, 1, MPI_LONG, to, 2, MPI_COMM_WORLD, &q[1]));
    OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    CHECK(in == i, "Isend/Irecv %ld", in);
    MPI_Status st;
    int done = 0;
    OK(MPI_Irecv(&in, 1, MPI_LONG, from, 4, MPI_COMM_WORLD, &q[0]));
    OK(MPI_Isend(&out, 1, MPI_LONG, to, 4, MPI_COMM_WORLD, &q[1]));
    OK(MPI_Wait(&q[1], MPI_STATUS_IGNORE));
    while (!done) OK(MPI_Test(&q[0], &done, &st));
    CHECK(in == i && st.MPI_SOURCE == from && st.MPI_TAG == 4, "Test: %ld from %d tag %d", in, st.MPI_SOURCE, st.MPI_TAG);
    double col[8] = {0};
    if (rank == 0) {
        OK(MPI_Send(&out, 1, MPI_LONG, 1, 3, MPI_COMM_WORLD));
        for (int k = 0; k < 8; k++) col[k] = i + k;
        OK(MPI_Send(col, 1, column, 1, 6, MPI_COMM_WORLD));
    } else if (rank == 1) {
        OK(MPI_Recv(&in, 1, MPI_LONG, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(in == i, "Recv %ld", in);
        OK(MPI_Recv(col, 1, column, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(col[0] == i && col[2] == i + 2 && col[6] == i + 6 && col[1] == 0, "column %g %g %g %g", col[0], col[1], col[2], col[6]);
    }
}

/* nb_round_ runs nonblocking collectives, each completed by MPI_Wait, which sets the
 * handle to MPI_REQUEST_NULL. */
static void nb_round_(int rank, int n, int i) {
    double a = rank + i, sum = 0, all[8], out[8];
    int v = i;
    MPI_Request q;
    OK(MPI_Iallreduce(&a, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK(q == MPI_REQUEST_NULL && sum == n * (double)i + n * (n - 1) / 2.0, "Iallreduce sum %g", sum);
    OK(MPI_Ibcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK(v == i, "Ibcast %d", v);
    OK(MPI_Ibarrier(MPI_COMM_WORLD, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    OK(MPI_Ireduce(&a, &sum, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK(rank != 0 || sum == n - 1 + i, "Ireduce max %g", sum);
    OK(MPI_Iallgather(&a, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, MPI_COMM_WORLD, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK(all[n - 1] == n - 1 + i, "Iallgather %g", all[n - 1]);
    OK(MPI_Ialltoall(all, 1, MPI_DOUBLE, out, 1, MPI_DOUBLE, MPI_COMM_WORLD, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK(out[n - 1] == rank + i, "Ialltoall %g", out[n - 1]);
}

static MPI_Datatype col4; /* 4 doubles 4 apart, extent 1 double: items interleave */

/* typed_round_ runs the reductions on col4: item k of a buffer of 16 doubles is
 * doubles k, k+4, k+8 and k+12. */
static void typed_round_(int rank, int n, int i) {
    double a[16], r[16];
    int counts[4] = {1, 1, 1, 1};
    MPI_Request q;
    for (int k = 0; k < 16; k++) a[k] = rank + i + k, r[k] = -1;
    /* sum over ranks below `upto` of a's element k */
    #define SUM(k, upto) ((upto) * (double)(i + (k)) + (upto) * ((upto) - 1) / 2.0)
    OK(MPI_Iallreduce(a, r, 1, col4, MPI_SUM, MPI_COMM_WORLD, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    OK(MPI_Ireduce(a + 1, r + 1, 1, col4, MPI_SUM, 0, MPI_COMM_WORLD, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    OK(MPI_Iscan(a + 2, r + 2, 1, col4, MPI_SUM, MPI_COMM_WORLD, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    OK(MPI_Iexscan(a + 3, r + 3, 1, col4, MPI_SUM, MPI_COMM_WORLD, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int j = 0; j < 4; j++) {
        CHECK(r[4 * j] == SUM(4 * j, n), "Iallreduce on a column: %g", r[4 * j]);
        CHECK(rank != 0 || r[4 * j + 1] == SUM(4 * j + 1, n), "Ireduce on a column: %g", r[4 * j + 1]);
        CHECK(r[4 * j + 2] == SUM(4 * j + 2, rank + 1), "Iscan on a column: %g", r[4 * j + 2]);
        CHECK(rank == 0 || r[4 * j + 3] == SUM(4 * j + 3, rank), "Iexscan on a column: %g", r[4 * j + 3]);
    }
    /* Block k of the scatters is item k of a: this rank gets item `rank` summed. */
    double b[16], c[16];
    for (int k = 0; k < 16; k++) b[k] = c[k] = -1;
    OK(MPI_Ireduce_scatter_block(a, b, 1, col4, MPI_SUM, MPI_COMM_WORLD, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    OK(MPI_Ireduce_scatter(a, c, counts, col4, MPI_SUM, MPI_COMM_WORLD, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int j = 0; j < 4; j++) {
        CHECK(b[4 * j] == SUM(4 * j + rank, n) && b[4 * j + 1] == -1, "Ireduce_scatter_block on a column: %g %g", b[4 * j], b[4 * j + 1]);
        CHECK(c[4 * j] == SUM(4 * j + rank, n) && c[4 * j + 1] == -1, "Ireduce_scatter on a column: %g %g", c[4 * j], c[4 * j + 1]);
    }
    OK(MPI_Allreduce(a, b, 1, col4, MPI_SUM, MPI_COMM_WORLD));
    CHECK(b[12] == SUM(12, n), "Allreduce on a column: %g", b[12]);
    #undef SUM
}

static MPI_Comm ring;

/* nbr_round_ runs the neighbourhood collectives on ring: slot 0 is the left
 * neighbour's, slot 1 the right one's; an alltoall's block j goes to neighbour j, so
 * slot 0 gets the left one's block 1. */
static void nbr_round_(int rank, int n, int i) {
    int left = (rank + n - 1) % n, right = (rank + 1) % n;
    double a[16], g[16];
    int one[2] = {1, 1}, at[2] = {0, 1};
    MPI_Aint bat[2] = {0, sizeof(double)};
    MPI_Datatype cols[2] = {col4, col4};
    MPI_Request q;
    for (int k = 0; k < 16; k++) a[k] = 100 * rank + i + k;
    #define A(r, k) (100.0 * (r) + i + (k))
    OK(MPI_Neighbor_allgather(a, 1, MPI_DOUBLE, g, 1, MPI_DOUBLE, ring));
    CHECK(g[0] == A(left, 0) && g[1] == A(right, 0), "Neighbor_allgather %g %g", g[0], g[1]);
    OK(MPI_Ineighbor_allgatherv(a + 1, 1, MPI_DOUBLE, g, one, at, MPI_DOUBLE, ring, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK(g[0] == A(left, 1) && g[1] == A(right, 1), "Ineighbor_allgatherv %g %g", g[0], g[1]);
    OK(MPI_Neighbor_alltoall(a, 1, MPI_DOUBLE, g, 1, MPI_DOUBLE, ring));
    CHECK(g[0] == A(left, 1) && g[1] == A(right, 0), "Neighbor_alltoall %g %g", g[0], g[1]);
    OK(MPI_Ineighbor_alltoallv(a + 2, one, at, MPI_DOUBLE, g, one, at, MPI_DOUBLE, ring, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK(g[0] == A(left, 3) && g[1] == A(right, 2), "Ineighbor_alltoallv %g %g", g[0], g[1]);
    for (int k = 0; k < 16; k++) g[k] = -1;
    OK(MPI_Neighbor_alltoallw(a, one, bat, cols, g, one, bat, cols, ring));
    CHECK(g[0] == A(left, 1) && g[12] == A(left, 13) && g[1] == A(right, 0) && g[13] == A(right, 12) && g[2] == -1,
          "Neighbor_alltoallw on a column: %g %g %g %g %g", g[0], g[12], g[1], g[13], g[2]);
    for (int k = 0; k < 16; k++) g[k] = -1;
    OK(MPI_Ineighbor_alltoall(a, 1, col4, g, 1, col4, ring, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK(g[4] == A(left, 5) && g[9] == A(right, 8) && g[3] == -1, "Ineighbor_alltoall on a column: %g %g %g", g[4], g[9], g[3]);
    #undef A
}

/* measure runs round ROUNDS times after a warm-up of 100 and checks that the library
 * allocated (almost) nothing. A warm call allocates nothing; what can still land in a
 * measured loop is the Go runtime's own one-time growth: a new thread, when more of
 * them block at once than before (about 7 objects each, which a loaded machine makes
 * likelier). So a loop that exceeds the allowance at any rank is measured again, up to
 * three times in all, every rank alike: an allocation per call fails all three. */
static void measure(void (*round)(int, int, int), int rank, int n, const char *what) {
    for (int i = 0; i < 100; i++) round(rank, n, i); /* warm: pools and caches filled */
    long d = 0, most = 0;
    for (int attempt = 0; attempt < 3; attempt++) {
        long m0 = mpigo_mallocs();
        for (int i = 0; i < ROUNDS; i++) round(rank, n, i);
        d = mpigo_mallocs() - m0;
        OK(MPI_Allreduce(&d, &most, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD));
        /* Allowance for the runtime's own: far below one per round. */
        if (most < ROUNDS / 20) return;
    }
    CHECK_AS("allocations < ROUNDS / 20", 0, "%ld allocations here, %ld at the worst rank, in the last of 3 tries of %d rounds of %s", d, most, ROUNDS, what);
}

int main(int argc, char **argv) {
    int prov, rank, n;
    OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &prov));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    CHECK(n >= 2 && n <= 4, "run on 2 to 4 ranks, not %d", n);
    OK(MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &column));
    OK(MPI_Type_commit(&column));
    measure(round_, rank, n, "20 calls");
    measure(nb_round_, rank, n, "6 nonblocking collectives and their waits");
    MPI_Datatype v4;
    OK(MPI_Type_vector(4, 1, 4, MPI_DOUBLE, &v4));
    OK(MPI_Type_create_resized(v4, 0, sizeof(double), &col4));
    OK(MPI_Type_commit(&col4));
    OK(MPI_Type_free(&v4));
    measure(typed_round_, rank, n, "7 reductions on a column type");
    /* A persistent reduction on the column type keeps its staging from one start to
     * the next. */
    MPI_Request pq;
    double pa[16], pr[16];
    OK(MPI_Allreduce_init(pa, pr, 1, col4, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &pq));
    for (int s = 0; s < 3; s++) {
        for (int k = 0; k < 16; k++) pa[k] = rank + s + k, pr[k] = -1;
        OK(MPI_Start(&pq));
        OK(MPI_Wait(&pq, MPI_STATUS_IGNORE));
        for (int j = 0; j < 4; j++)
            CHECK(pr[4 * j] == n * (double)(s + 4 * j) + n * (n - 1) / 2.0 && pr[4 * j + 1] == -1,
                  "start %d of Allreduce_init on a column: %g %g", s, pr[4 * j], pr[4 * j + 1]);
    }
    OK(MPI_Request_free(&pq));
    int dims[1] = {n}, periods[1] = {1};
    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    measure(nbr_round_, rank, n, "6 neighbourhood collectives");
    OK(MPI_Comm_free(&ring));
    OK(MPI_Type_free(&col4));
    OK(MPI_Finalize());
    if (rank == 0) printf("OK noalloc\n");
    return 0;
}
