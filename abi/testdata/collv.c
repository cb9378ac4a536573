/* collv.c - on 3 ranks: the nonblocking v forms, Alltoallw (blocking, nonblocking,
 * in place), the large-count forms and persistent collectives started twice. */
#include "check.h"

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Request q[4];

    /* Igatherv / Iscatterv / Iallgatherv / Ialltoallv: rank i contributes i+1 ints */
    int mine[8], all[64], counts[8], displs[8], off = 0;
    for (int i = 0; i < n; i++) counts[i] = i + 1, displs[i] = off, off += i + 2;
    for (int i = 0; i < rank + 1; i++) mine[i] = 100 * rank + i;
    for (int i = 0; i < 64; i++) all[i] = -1;
    OK(MPI_Iallgatherv(mine, rank + 1, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD, &q[0]));
    OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++)
        for (int k = 0; k < i + 1; k++) CHECK(all[displs[i] + k] == 100 * i + k, "Iallgatherv [%d][%d]", i, k);
    int back[8] = {0};
    OK(MPI_Iscatterv(all, counts, displs, MPI_INT, back, rank + 1, MPI_INT, 1, MPI_COMM_WORLD, &q[0]));
    OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    for (int k = 0; k < rank + 1; k++) CHECK(back[k] == 100 * rank + k, "Iscatterv");
    for (int i = 0; i < 64; i++) all[i] = -1;
    OK(MPI_Igatherv(mine, rank + 1, MPI_INT, all, counts, displs, MPI_INT, 2, MPI_COMM_WORLD, &q[0]));
    OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    if (rank == 2) CHECK(all[displs[1]] == 100 && all[displs[2] + 2] == 202, "Igatherv");
    MPI_Count cc[8];
    MPI_Aint cd[8];
    for (int i = 0; i < n; i++) cc[i] = counts[i], cd[i] = displs[i];
    for (int i = 0; i < 64; i++) all[i] = -1;
    OK(MPI_Allgatherv_c(mine, rank + 1, MPI_INT, all, cc, cd, MPI_INT, MPI_COMM_WORLD));
    CHECK(all[displs[n - 1] + n - 1] == 100 * (n - 1) + n - 1, "Allgatherv_c");

    /* Ialltoallv: one int to each, at stride 2 */
    int sv[16], rv[16], one[8], two[8];
    for (int i = 0; i < n; i++) sv[2 * i] = rank * 10 + i, one[i] = 1, two[i] = 2 * i, rv[2 * i] = -1;
    OK(MPI_Ialltoallv(sv, one, two, MPI_INT, rv, one, two, MPI_INT, MPI_COMM_WORLD, &q[0]));
    OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++) CHECK(rv[2 * i] == i * 10 + rank, "Ialltoallv");

    /* Alltoallw: to rank j, j+1 doubles; received as ints? no: same types, byte displacements */
    double sd[16], rd[16];
    int sc[8], rc[8], sdp[8], rdp[8];
    MPI_Datatype st[8], rt[8];
    int so = 0, ro = 0;
    for (int j = 0; j < n; j++) {
        sc[j] = j + 1, sdp[j] = so * 8, st[j] = MPI_DOUBLE;
        for (int k = 0; k <= j; k++) sd[so + k] = rank + 0.5 * k;
        so += j + 1;
        rc[j] = rank + 1, rdp[j] = ro * 8, rt[j] = MPI_DOUBLE, ro += rank + 1;
    }
    OK(MPI_Alltoallw(sd, sc, sdp, st, rd, rc, rdp, rt, MPI_COMM_WORLD));
    for (int j = 0; j < n; j++)
        for (int k = 0; k <= rank; k++) CHECK(rd[rdp[j] / 8 + k] == j + 0.5 * k, "Alltoallw from %d [%d] %g", j, k, rd[rdp[j] / 8 + k]);
    /* Ialltoallw in place, one int each with a vector type for... a plain int */
    int ip[8];
    for (int j = 0; j < n; j++) ip[j] = rank * 100 + j, rc[j] = 1, rdp[j] = 4 * j, rt[j] = MPI_INT;
    OK(MPI_Ialltoallw(MPI_IN_PLACE, NULL, NULL, NULL, ip, rc, rdp, rt, MPI_COMM_WORLD, &q[0]));
    OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    for (int j = 0; j < n; j++) CHECK(ip[j] == j * 100 + rank, "Ialltoallw in place");

    /* Ireduce_scatter_block, Ireduce_scatter */
    int blk[8], got = -1;
    for (int i = 0; i < n; i++) blk[i] = i + rank;
    OK(MPI_Ireduce_scatter_block(blk, &got, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[0]));
    OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    CHECK(got == n * rank + n * (n - 1) / 2, "Ireduce_scatter_block");
    OK(MPI_Ireduce_scatter(blk, &got, one, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &q[0]));
    OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    CHECK(got == rank + n - 1, "Ireduce_scatter");

    /* large-count forms */
    long big = rank, bsum = 0;
    OK(MPI_Allreduce_c(&big, &bsum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    CHECK(bsum == n * (n - 1) / 2, "Allreduce_c");
    OK(MPI_Iscan_c(&big, &bsum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &q[0]));
    OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    CHECK(bsum == rank * (rank + 1) / 2, "Iscan_c");
    int ag[8];
    OK(MPI_Allgather_c(&rank, 1, MPI_INT, ag, 1, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++) CHECK(ag[i] == i, "Allgather_c");
    int x = rank * 2, y = -1;
    MPI_Status s;
    OK(MPI_Sendrecv_c(&x, 1, MPI_INT, (rank + 1) % n, 5, &y, 1, MPI_INT, (rank + n - 1) % n, 5, MPI_COMM_WORLD, &s));
    CHECK(y == ((rank + n - 1) % n) * 2 && s.MPI_SOURCE == (rank + n - 1) % n, "Sendrecv_c");

    /* persistent collectives: Allreduce_init and Bcast_init, started twice, with Startall */
    int a = 0, asum = 0, b = 0;
    OK(MPI_Allreduce_init(&a, &asum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &q[0]));
    OK(MPI_Bcast_init(&b, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &q[1]));
    OK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &q[2]));
    for (int it = 1; it <= 2; it++) {
        a = rank * it;
        b = rank == 0 ? 7 * it : -1;
        OK(MPI_Startall(3, q));
        OK(MPI_Waitall(3, q, MPI_STATUSES_IGNORE));
        CHECK(asum == it * n * (n - 1) / 2 && b == 7 * it, "persistent round %d: %d %d", it, asum, b);
        CHECK(q[0] != MPI_REQUEST_NULL, "persistent requests stay");
    }
    int flag;
    OK(MPI_Test(&q[0], &flag, MPI_STATUS_IGNORE)); /* inactive: completes at once */
    CHECK(flag, "Test of an inactive persistent request");
    for (int i = 0; i < 3; i++) OK(MPI_Request_free(&q[i]));

    /* an init call checks its arguments (MPI 4.1 6.13): BAND on doubles and a root out
     * of range are refused there, and nothing is sent, so the Barrier after them still
     * matches */
    MPI_Comm d;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    OK(MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN));
    double da = 1, ds = 0;
    MPI_Request bad = MPI_REQUEST_NULL;
    int err = MPI_Allreduce_init(&da, &ds, 1, MPI_DOUBLE, MPI_BAND, d, MPI_INFO_NULL, &bad), cls = -1;
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_OP, "Allreduce_init with MPI_BAND on MPI_DOUBLE: class %d, want MPI_ERR_OP", cls);
    err = MPI_Bcast_init(&da, 1, MPI_DOUBLE, n, d, MPI_INFO_NULL, &bad);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_ROOT, "Bcast_init with root %d of %d: class %d, want MPI_ERR_ROOT", n, n, cls);
    /* a NULL buffer whose blocks span bytes: MPI_ERR_BUFFER on every rank (each sees
     * its own send side), not a crash; nothing was sent, so the Barrier still matches */
    for (int j = 0; j < n; j++) sc[j] = 1, sdp[j] = 8 * j, st[j] = MPI_DOUBLE, rc[j] = 1, rdp[j] = 8 * j, rt[j] = MPI_DOUBLE;
    err = MPI_Alltoallw(NULL, sc, sdp, st, rd, rc, rdp, rt, d);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "Alltoallw from a NULL sendbuf: class %d, want MPI_ERR_BUFFER", cls);
    OK(MPI_Barrier(d));
    OK(MPI_Comm_free(&d));
    OK(MPI_Finalize());
    if (rank == 0) printf("OK collv\n");
    return 0;
}
