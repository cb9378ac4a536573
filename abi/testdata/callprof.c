/* callprof.c - the profile of a C program's calls (abi/libmpi/prof.go): run under
 * mpigo run --profile on 2 ranks, it makes a known set of point-to-point calls,
 * completion calls, collectives blocking, nonblocking and persistent,
 * communicator calls and a partitioned send. The test (abi_test.go, TestCCallsProfile) checks that each
 * rank's counts and timeline hold exactly these calls, a Sendrecv once (not its
 * inner receive, send and wait), and that the matrix holds the messages sent. */
#include "check.h"

int main(int argc, char **argv) {
    int rank, n;
    OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    CHECK(n == 2, "run on 2 ranks, not %d", n);
    int peer = 1 - rank;
    int a[8] = {0}, b[8] = {0};
    double d[4] = {1, 2, 3, 4}, e[4];
    MPI_Request rq[2], r;

    /* 3 Sends 0 -> 1 of 32 bytes, one Ssend 1 -> 0. */
    for (int i = 0; i < 3; i++) {
        if (rank == 0) OK(MPI_Send(a, 8, MPI_INT, 1, 1, MPI_COMM_WORLD));
        else OK(MPI_Recv(b, 8, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    if (rank == 1) OK(MPI_Ssend(a, 8, MPI_INT, 0, 2, MPI_COMM_WORLD));
    else OK(MPI_Recv(b, 8, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));

    /* An exchange completed by Waitall, one by two Waits. */
    OK(MPI_Irecv(b, 8, MPI_INT, peer, 3, MPI_COMM_WORLD, &rq[0]));
    OK(MPI_Isend(a, 8, MPI_INT, peer, 3, MPI_COMM_WORLD, &rq[1]));
    OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    OK(MPI_Irecv(b, 8, MPI_INT, peer, 4, MPI_COMM_WORLD, &rq[0]));
    OK(MPI_Isend(a, 8, MPI_INT, peer, 4, MPI_COMM_WORLD, &rq[1]));
    OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));

    /* One Sendrecv: a receive, a send and a wait inside, counted as one call. */
    OK(MPI_Sendrecv(a, 8, MPI_INT, peer, 5, b, 8, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));

    /* A probed message 0 -> 1, and a large-count one. */
    if (rank == 0) {
        OK(MPI_Send(a, 8, MPI_INT, 1, 6, MPI_COMM_WORLD));
        OK(MPI_Send_c(a, 2, MPI_INT, 1, 7, MPI_COMM_WORLD));
    } else {
        MPI_Status st;
        OK(MPI_Probe(0, 6, MPI_COMM_WORLD, &st));
        OK(MPI_Recv(b, 8, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        OK(MPI_Recv_c(b, 2, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }

    /* Collectives: blocking, nonblocking, persistent. */
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Bcast(d, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    OK(MPI_Allreduce(d, e, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    CHECK(e[0] == 2, "Allreduce gave %g", e[0]);
    OK(MPI_Ibarrier(MPI_COMM_WORLD, &r));
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    OK(MPI_Iallreduce(d, e, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r));
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    OK(MPI_Allreduce_init(d, e, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    for (int i = 0; i < 2; i++) {
        OK(MPI_Start(&r));
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    OK(MPI_Request_free(&r));
    CHECK(e[3] == 8, "persistent Allreduce gave %g", e[3]);

    /* A communicator made, used and freed. */
    MPI_Comm dup;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    OK(MPI_Barrier(dup));
    OK(MPI_Comm_free(&dup));

    /* A partitioned send 0 -> 1 of 2 partitions of 16 bytes, each marked ready. */
    if (rank == 0) {
        OK(MPI_Psend_init(a, 2, 4, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
        OK(MPI_Start(&r));
        OK(MPI_Pready(0, r));
        OK(MPI_Pready_range(1, 1, r));
    } else {
        OK(MPI_Precv_init(b, 2, 4, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
        OK(MPI_Start(&r));
    }
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    OK(MPI_Request_free(&r));

    /* A persistent send 0 -> 1 of 32 bytes, started once. */
    if (rank == 0) OK(MPI_Send_init(a, 8, MPI_INT, 1, 9, MPI_COMM_WORLD, &r));
    else OK(MPI_Recv_init(b, 8, MPI_INT, 0, 9, MPI_COMM_WORLD, &r));
    OK(MPI_Start(&r));
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    OK(MPI_Request_free(&r));

    /* A receive no one matches, cancelled; the status of a null request, alone and
     * in a set; flushes of buffers that are not attached. */
    OK(MPI_Irecv(b, 8, MPI_INT, peer, 99, MPI_COMM_WORLD, &r));
    OK(MPI_Cancel(&r));
    MPI_Status cst;
    OK(MPI_Wait(&r, &cst));
    int cancelled;
    OK(MPI_Test_cancelled(&cst, &cancelled));
    CHECK(cancelled, "the unmatched receive was not cancelled");
    int gflag;
    OK(MPI_Request_get_status(r, &gflag, MPI_STATUS_IGNORE));
    CHECK(gflag, "Request_get_status of MPI_REQUEST_NULL gave flag 0");
    OK(MPI_Request_get_status_all(1, &r, &gflag, MPI_STATUSES_IGNORE));
    OK(MPI_Buffer_flush());
    OK(MPI_Comm_flush_buffer(MPI_COMM_WORLD));

    /* A Test of the null request. */
    int flag;
    r = MPI_REQUEST_NULL;
    OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    CHECK(flag, "Test of MPI_REQUEST_NULL gave flag 0");

    OK(MPI_Finalize());
    if (rank == 0) printf("OK callprof\n");
    return 0;
}
