/* coll.c - collectives on 3 ranks, with MPI_IN_PLACE where the standard allows it,
 * a nonblocking one, and MAXLOC on MPI_2INT. */
#include "check.h"

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);

    int v[4] = {0};
    if (rank == 1) for (int i = 0; i < 4; i++) v[i] = 100 + i;
    OK(MPI_Bcast(v, 4, MPI_INT, 1, MPI_COMM_WORLD));
    for (int i = 0; i < 4; i++) CHECK(v[i] == 100 + i, "Bcast");

    double x = rank + 1, sum = 0;
    OK(MPI_Reduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
    if (rank == 0) CHECK(sum == n * (n + 1) / 2.0, "Reduce %g", sum);

    long l[2] = {rank, 10L * rank};
    OK(MPI_Allreduce(MPI_IN_PLACE, l, 2, MPI_LONG, MPI_MAX, MPI_COMM_WORLD));
    CHECK(l[0] == n - 1 && l[1] == 10L * (n - 1), "Allreduce in place");

    int r = rank * rank;
    int all[16];
    if (rank == 0) {
        all[0] = 0;
        OK(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD));
        for (int i = 0; i < n; i++) CHECK(all[i] == i * i, "Gather in place [%d] = %d", i, all[i]);
    } else {
        OK(MPI_Gather(&r, 1, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD));
    }
    OK(MPI_Allgather(&r, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++) CHECK(all[i] == i * i, "Allgather");

    int sendv[16], recvv[16];
    for (int i = 0; i < n; i++) sendv[i] = rank * 100 + i;
    OK(MPI_Alltoall(sendv, 1, MPI_INT, recvv, 1, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++) CHECK(recvv[i] == i * 100 + rank, "Alltoall");

    int one = 1, pre = -1;
    OK(MPI_Scan(&one, &pre, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(pre == rank + 1, "Scan");
    OK(MPI_Exscan(&one, &pre, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    if (rank > 0) CHECK(pre == rank, "Exscan");

    int blocks[16], mine = -1;
    for (int i = 0; i < n; i++) blocks[i] = i + rank;
    OK(MPI_Reduce_scatter_block(blocks, &mine, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(mine == n * rank + n * (n - 1) / 2, "Reduce_scatter_block %d", mine);

    MPI_Request req;
    int s = rank, t = 0;
    OK(MPI_Iallreduce(&s, &t, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(t == n * (n - 1) / 2 && req == MPI_REQUEST_NULL, "Iallreduce");

    struct { int val, idx; } in = {rank % 2 ? 50 : rank, rank}, out;
    OK(MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK(out.val == 50 && out.idx == 1, "MAXLOC %d@%d", out.val, out.idx);

    MPI_Comm half;
    OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half));
    int hr, hs;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    int tot = 0;
    OK(MPI_Allreduce(&rank, &tot, 1, MPI_INT, MPI_SUM, half));
    int want = 0;
    for (int i = rank % 2; i < n; i += 2) want += i;
    CHECK(tot == want, "Allreduce on a split %d != %d", tot, want);
    OK(MPI_Comm_free(&half));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Finalize());
    if (rank == 0) printf("OK coll\n");
    return 0;
}
