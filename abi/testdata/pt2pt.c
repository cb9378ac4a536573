/* pt2pt.c - point-to-point on 2 ranks: statuses and counts, wildcards,
 * MPI_STATUS(ES)_IGNORE, nonblocking calls, probe, MPI_PROC_NULL, truncation. */
#include <string.h>
#include "check.h"

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "needs 2 ranks");
    int peer = 1 - rank;
    int buf[100];
    MPI_Status st;

    /* blocking, with a status */
    if (rank == 0) {
        for (int i = 0; i < 10; i++) buf[i] = i * 7;
        OK(MPI_Send(buf, 10, MPI_INT, 1, 42, MPI_COMM_WORLD));
    } else {
        memset(buf, 0, sizeof buf);
        OK(MPI_Recv(buf, 100, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        int n;
        OK(MPI_Get_count(&st, MPI_INT, &n));
        CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 42 && n == 10, "status %d %d %d", st.MPI_SOURCE, st.MPI_TAG, n);
        OK(MPI_Get_count(&st, MPI_DOUBLE, &n));
        CHECK(n == 5, "40 bytes are 5 doubles, got %d", n);
        OK(MPI_Get_count(&st, MPI_LONG_DOUBLE, &n));
        CHECK(n == MPI_UNDEFINED, "40 bytes are no whole long doubles");
        int src, tag;
        OK(MPI_Status_get_source(&st, &src));
        OK(MPI_Status_get_tag(&st, &tag));
        CHECK(src == 0 && tag == 42, "Status_get_*");
        for (int i = 0; i < 10; i++) CHECK(buf[i] == i * 7, "buf[%d] = %d", i, buf[i]);
    }

    /* nonblocking, a window, statuses ignored */
    MPI_Request req[8];
    double d[8];
    for (int i = 0; i < 8; i++) {
        if (rank == 0) { d[i] = i + 0.5; OK(MPI_Isend(&d[i], 1, MPI_DOUBLE, 1, i, MPI_COMM_WORLD, &req[i])); }
        else OK(MPI_Irecv(&d[i], 1, MPI_DOUBLE, 0, i, MPI_COMM_WORLD, &req[i]));
    }
    OK(MPI_Waitall(8, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 8; i++) CHECK(req[i] == MPI_REQUEST_NULL, "Waitall nulls requests");
    if (rank == 1) for (int i = 0; i < 8; i++) CHECK(d[i] == i + 0.5, "d[%d] = %g", i, d[i]);

    /* Waitall with statuses, Test, Waitany */
    MPI_Status sts[2];
    int x = rank, y = -1, z = -1;
    OK(MPI_Irecv(&y, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &req[0]));
    OK(MPI_Isend(&x, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &req[1]));
    OK(MPI_Waitall(2, req, sts));
    CHECK(y == peer && sts[0].MPI_SOURCE == peer && sts[0].MPI_TAG == 7, "Waitall statuses");
    OK(MPI_Irecv(&z, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, &req[0]));
    OK(MPI_Send(&x, 1, MPI_INT, peer, 8, MPI_COMM_WORLD));
    int idx = -5;
    OK(MPI_Waitany(1, req, &idx, &st));
    CHECK(idx == 0 && z == peer && st.MPI_SOURCE == peer, "Waitany");
    int flag = 0;
    OK(MPI_Test(&req[0], &flag, &st));
    CHECK(flag && st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG, "Test of a null request: empty status");

    /* probe, then receive what it saw */
    if (rank == 0) {
        char msg[] = "probe me";
        OK(MPI_Send(msg, sizeof msg, MPI_CHAR, 1, 5, MPI_COMM_WORLD));
    } else {
        OK(MPI_Probe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st));
        int n;
        OK(MPI_Get_count(&st, MPI_CHAR, &n));
        CHECK(n == 9, "probe count %d", n);
        char got[16];
        OK(MPI_Recv(got, n, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(strcmp(got, "probe me") == 0, "probe message");
    }

    /* Sendrecv and MPI_PROC_NULL */
    int a = rank * 10, b = -1;
    OK(MPI_Sendrecv(&a, 1, MPI_INT, peer, 3, &b, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &st));
    CHECK(b == peer * 10 && st.MPI_SOURCE == peer, "Sendrecv");
    OK(MPI_Recv(&b, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    int n = -1;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && n == 0, "PROC_NULL receive");

    /* truncation comes back as MPI_ERR_TRUNCATE under MPI_ERRORS_RETURN */
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    if (rank == 0) {
        OK(MPI_Send(buf, 4, MPI_INT, 1, 9, MPI_COMM_WORLD));
    } else {
        int rc = MPI_Recv(buf, 2, MPI_INT, 0, 9, MPI_COMM_WORLD, &st);
        int cls;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE, "truncation gave %d", rc);
    }
    int rc = MPI_Send(buf, 1, MPI_INT, 5, 0, MPI_COMM_WORLD);
    CHECK(rc == MPI_ERR_RANK, "send to rank 5 of 2 gave %d", rc);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Finalize());
    if (rank == 0) printf("OK pt2pt\n");
    return 0;
}
