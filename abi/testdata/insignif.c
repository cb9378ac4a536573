/* insignif.c - on 4 ranks: arguments the standard calls insignificant are never
 * checked (MPI 4.1 sections 6.5 to 6.9, issue 35's principle 2). Every call here is
 * correct: each must succeed on every rank, with MPI_ERRORS_RETURN so that an error
 * comes back where the test can name it rather than abort the job. */
#include "check.h"

#define FAR 1000000 /* a displacement far outside every buffer */

static void intra(MPI_Comm c) {
    int rank, n;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &n);
    int to = (rank + 1) % n, from = (rank + n - 1) % n;

    /* Ialltoallv: one int to the next rank; every other block has a zero count and a
     * displacement outside the buffer (mpi4py's test_cco_nb_vec). */
    int sc[8], sd[8], rc[8], rd[8];
    for (int j = 0; j < n; j++) sc[j] = 0, sd[j] = FAR, rc[j] = 0, rd[j] = -FAR;
    sc[to] = 1, sd[to] = 0, rc[from] = 1, rd[from] = 0;
    int s = 100 + rank, r = -1;
    MPI_Request q;
    OK(MPI_Ialltoallv(&s, sc, sd, MPI_INT, &r, rc, rd, MPI_INT, c, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK(r == 100 + from, "Ialltoallv got %d, want %d", r, 100 + from);
    /* A send buffer of no data at all: NULL, every count zero. */
    for (int j = 0; j < n; j++) sc[j] = 0, rc[j] = 0;
    OK(MPI_Alltoallv(NULL, sc, sd, MPI_INT, NULL, rc, rd, MPI_INT, c));

    /* Alltoallw: a zero-count block's displacement and datatype are not looked at. */
    MPI_Datatype st[8], rt[8];
    for (int j = 0; j < n; j++) sc[j] = 0, sd[j] = FAR, st[j] = MPI_DATATYPE_NULL, rc[j] = 0, rd[j] = FAR, rt[j] = MPI_DATATYPE_NULL;
    sc[to] = 1, sd[to] = 0, st[to] = MPI_INT, rc[from] = 1, rd[from] = 0, rt[from] = MPI_INT;
    r = -1;
    OK(MPI_Alltoallw(&s, sc, sd, st, &r, rc, rd, rt, c));
    CHECK(r == 100 + from, "Alltoallw got %d, want %d", r, 100 + from);

    /* Gatherv at root 0: rank 1's block is empty at a displacement outside recv. */
    int all[8] = {0}, counts[8], displs[8], k = 0;
    for (int j = 0; j < n; j++) counts[j] = j == 1 ? 0 : 1, displs[j] = j == 1 ? FAR : k, k += counts[j];
    int mine = 10 * rank;
    /* The receive side counts at the root only: the others pass NULL arrays, a NULL
     * buffer and no datatype. */
    if (rank == 0)
        OK(MPI_Gatherv(&mine, 1, MPI_INT, all, counts, displs, MPI_INT, 0, c));
    else
        OK(MPI_Gatherv(&mine, counts[rank], MPI_INT, NULL, NULL, NULL, MPI_DATATYPE_NULL, 0, c));
    if (rank == 0)
        for (int j = 0, i = 0; j < n; j++)
            if (counts[j]) {
                CHECK(all[i] == 10 * j, "Gatherv [%d] = %d", i, all[i]);
                i++;
            }

    /* Scatterv from root 0: likewise its send side counts at the root only. */
    r = -1;
    if (rank == 0)
        OK(MPI_Scatterv(all, counts, displs, MPI_INT, &r, 1, MPI_INT, 0, c));
    else
        OK(MPI_Scatterv(NULL, NULL, NULL, MPI_DATATYPE_NULL, &r, counts[rank], MPI_INT, 0, c));
    if (counts[rank]) CHECK(r == 10 * rank, "Scatterv got %d", r);

    /* Gather, Scatter, Reduce: the root's arguments are garbage elsewhere. */
    if (rank == 0) {
        OK(MPI_Gather(&mine, 1, MPI_INT, all, 1, MPI_INT, 0, c));
        for (int j = 0; j < n; j++) CHECK(all[j] == 10 * j, "Gather [%d] = %d", j, all[j]);
        OK(MPI_Scatter(all, 1, MPI_INT, &r, 1, MPI_INT, 0, c));
    } else {
        OK(MPI_Gather(&mine, 1, MPI_INT, NULL, -1, MPI_DATATYPE_NULL, 0, c));
        OK(MPI_Scatter(NULL, -1, MPI_DATATYPE_NULL, &r, 1, MPI_INT, 0, c));
    }
    CHECK(r == 10 * rank, "Scatter got %d", r);
    int sum = -1;
    OK(MPI_Reduce(&mine, rank == 0 ? &sum : NULL, 1, MPI_INT, MPI_SUM, 0, c));
    if (rank == 0) CHECK(sum == 10 * n * (n - 1) / 2, "Reduce got %d", sum);
    MPI_Request q2;
    OK(MPI_Ireduce(&mine, rank == 0 ? &sum : NULL, 1, MPI_INT, MPI_SUM, 0, c, &q2));
    OK(MPI_Wait(&q2, MPI_STATUS_IGNORE));
    if (rank == 0) CHECK(sum == 10 * n * (n - 1) / 2, "Ireduce got %d", sum);
}

/* inter: the rooted collectives on an intercommunicator of two groups; group 0's
 * local rank 0 is the root. Its other processes pass MPI_PROC_NULL, where only the
 * root argument is significant: NULL buffers and no datatype. The other group's
 * receive side (Reduce, Gather) is not significant: NULL there. */
static void inter(MPI_Comm ic, int group) {
    int rank, rsize;
    MPI_Comm_rank(ic, &rank);
    MPI_Comm_remote_size(ic, &rsize);
    int root = group == 1 ? 0 : rank == 0 ? MPI_ROOT : MPI_PROC_NULL;
    int mine = 10 * rank + 1, sum = -1, all[8] = {0};

    if (root == MPI_PROC_NULL) {
        OK(MPI_Reduce(NULL, NULL, -1, MPI_DATATYPE_NULL, MPI_OP_NULL, root, ic));
        OK(MPI_Bcast(NULL, -1, MPI_DATATYPE_NULL, root, ic));
        OK(MPI_Gather(NULL, -1, MPI_DATATYPE_NULL, NULL, -1, MPI_DATATYPE_NULL, root, ic));
        OK(MPI_Gatherv(NULL, -1, MPI_DATATYPE_NULL, NULL, NULL, NULL, MPI_DATATYPE_NULL, root, ic));
        OK(MPI_Scatterv(NULL, NULL, NULL, MPI_DATATYPE_NULL, NULL, -1, MPI_DATATYPE_NULL, root, ic));
        MPI_Request q;
        OK(MPI_Ireduce(NULL, NULL, 0, MPI_INT, MPI_SUM, root, ic, &q));
        OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        return;
    }
    if (root == MPI_ROOT) {
        OK(MPI_Reduce(NULL, &sum, 1, MPI_INT, MPI_SUM, root, ic));
        int want = 0;
        for (int j = 0; j < rsize; j++) want += 10 * j + 1;
        CHECK(sum == want, "inter Reduce got %d, want %d", sum, want);
        int b = 77;
        OK(MPI_Bcast(&b, 1, MPI_INT, root, ic));
        OK(MPI_Gather(NULL, 0, MPI_INT, all, 1, MPI_INT, root, ic));
        for (int j = 0; j < rsize; j++) CHECK(all[j] == 10 * j + 1, "inter Gather [%d] = %d", j, all[j]);
        /* Gatherv and Scatterv: the root's own send (receive) side is a null
         * datatype; its counts are in elements of the other side's datatype. */
        int counts[8], displs[8];
        for (int j = 0; j < rsize; j++) counts[j] = 1, displs[j] = rsize - 1 - j, all[j] = -1;
        OK(MPI_Gatherv(NULL, 0, MPI_DATATYPE_NULL, all, counts, displs, MPI_INT, root, ic));
        for (int j = 0; j < rsize; j++) CHECK(all[displs[j]] == 10 * j + 1, "inter Gatherv [%d] = %d", j, all[displs[j]]);
        for (int j = 0; j < rsize; j++) all[displs[j]] = 20 * j;
        OK(MPI_Scatterv(all, counts, displs, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, ic));
        MPI_Request q;
        OK(MPI_Ireduce(NULL, &sum, 1, MPI_INT, MPI_SUM, root, ic, &q));
        OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        CHECK(sum == want, "inter Ireduce got %d, want %d", sum, want);
        return;
    }
    OK(MPI_Reduce(&mine, NULL, 1, MPI_INT, MPI_SUM, root, ic));
    int b = -1;
    OK(MPI_Bcast(&b, 1, MPI_INT, root, ic));
    CHECK(b == 77, "inter Bcast got %d", b);
    OK(MPI_Gather(&mine, 1, MPI_INT, NULL, -1, MPI_DATATYPE_NULL, root, ic));
    OK(MPI_Gatherv(&mine, 1, MPI_INT, NULL, NULL, NULL, MPI_DATATYPE_NULL, root, ic));
    int r = -1;
    OK(MPI_Scatterv(NULL, NULL, NULL, MPI_DATATYPE_NULL, &r, 1, MPI_INT, root, ic));
    CHECK(r == 20 * rank, "inter Scatterv got %d", r);
    MPI_Request q;
    OK(MPI_Ireduce(&mine, NULL, 1, MPI_INT, MPI_SUM, root, ic, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
}

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    CHECK(n >= 2 && n <= 8, "run on 2 to 8 ranks");
    intra(MPI_COMM_WORLD);

    int group = rank % 2;
    MPI_Comm local, ic;
    OK(MPI_Comm_split(MPI_COMM_WORLD, group, rank, &local));
    OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - group, 5, &ic));
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    inter(ic, group);
    OK(MPI_Comm_free(&ic));
    OK(MPI_Comm_free(&local));
    OK(MPI_Finalize());
    if (rank == 0) printf("OK insignif\n");
    return 0;
}
