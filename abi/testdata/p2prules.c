/* p2prules.c - the point-to-point rules of MPI 4.1 chapter 3, call by call, on 2
 * ranks: the classes of bad ranks and tags (sec. 3.2.3, 3.2.4), MPI_PROC_NULL
 * completing at once (sec. 3.11), a send-receive checking its arguments before it
 * starts and refusing overlapping buffers (sec. 3.10), the null message (sec. 3.8.3),
 * buffers of no bytes (sec. 3.6.1). mpi/p2p_rules_test.go checks the same list on
 * the Go face: the two share internal/mpir and must answer alike. */
#include <string.h>
#include "check.h"

static int self_calls, self_code;

static void self_handler(MPI_Comm *comm, int *code, ...) {
    (void)comm;
    self_calls++;
    self_code = *code;
}

/* PROCNULL checks a receive's status from MPI_PROC_NULL. */
#define PROCNULL(what, st)                                                        \
    do {                                                                          \
        int n_ = -1;                                                              \
        OK(MPI_Get_count(&(st), MPI_INT, &n_));                                   \
        CHECK((st).MPI_SOURCE == MPI_PROC_NULL && (st).MPI_TAG == MPI_ANY_TAG && n_ == 0, \
              "%s: source %d tag %d count %d", what, (st).MPI_SOURCE, (st).MPI_TAG, n_); \
    } while (0)

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    int rank, size, flag, *ub;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "needs 2 ranks");
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
    int tagub = *ub, peer = 1 - rank;
    MPI_Comm w = MPI_COMM_WORLD;
    int x = 1, y = 2;
    MPI_Request r;
    MPI_Message m;
    MPI_Status st;

    /* bad ranks and tags */
    FAILS(MPI_Send(&x, 1, MPI_INT, size, 0, w), MPI_ERR_RANK);
    FAILS(MPI_Send(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, w), MPI_ERR_RANK);
    FAILS(MPI_Send(&x, 1, MPI_INT, 0, MPI_ANY_TAG, w), MPI_ERR_TAG);
    FAILS(MPI_Send(&x, 1, MPI_INT, 0, tagub + 1, w), MPI_ERR_TAG);
    FAILS(MPI_Ssend(&x, 1, MPI_INT, -5, 0, w), MPI_ERR_RANK);
    FAILS(MPI_Rsend(&x, 1, MPI_INT, 0, -5, w), MPI_ERR_TAG);
    FAILS(MPI_Bsend(&x, 1, MPI_INT, size, 0, w), MPI_ERR_RANK);
    FAILS(MPI_Recv(&x, 1, MPI_INT, size, 0, w, &st), MPI_ERR_RANK);
    FAILS(MPI_Recv(&x, 1, MPI_INT, 0, -5, w, &st), MPI_ERR_TAG);
    FAILS(MPI_Isend(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, w, &r), MPI_ERR_RANK);
    FAILS(MPI_Issend(&x, 1, MPI_INT, 0, MPI_ANY_TAG, w, &r), MPI_ERR_TAG);
    FAILS(MPI_Irecv(&x, 1, MPI_INT, -5, 0, w, &r), MPI_ERR_RANK);
    FAILS(MPI_Irecv(&x, 1, MPI_INT, 0, tagub + 1, w, &r), MPI_ERR_TAG);
    FAILS(MPI_Send_init(&x, 1, MPI_INT, size, 0, w, &r), MPI_ERR_RANK);
    FAILS(MPI_Recv_init(&x, 1, MPI_INT, 0, -5, w, &r), MPI_ERR_TAG);
    FAILS(MPI_Probe(size, 0, w, &st), MPI_ERR_RANK);
    FAILS(MPI_Iprobe(0, -5, w, &flag, &st), MPI_ERR_TAG);
    FAILS(MPI_Mprobe(-5, 0, w, &m, &st), MPI_ERR_RANK);
    FAILS(MPI_Improbe(0, tagub + 1, w, &flag, &m, &st), MPI_ERR_TAG);
    FAILS(MPI_Sendrecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, &y, 1, MPI_INT, 0, 0, w, &st), MPI_ERR_RANK);
    FAILS(MPI_Sendrecv(&x, 1, MPI_INT, 0, 0, &y, 1, MPI_INT, 0, -5, w, &st), MPI_ERR_TAG);
    FAILS(MPI_Sendrecv_replace(&x, 1, MPI_INT, 0, 0, size, 0, w, &st), MPI_ERR_RANK);
    FAILS(MPI_Isendrecv(&x, 1, MPI_INT, size, 0, &y, 1, MPI_INT, 0, 0, w, &r), MPI_ERR_RANK);
    FAILS(MPI_Isendrecv_replace(&x, 1, MPI_INT, 0, MPI_ANY_TAG, 0, 0, w, &r), MPI_ERR_TAG);
    /* C's outputs: a matching probe with nowhere to put its message takes none */
    FAILS(MPI_Iprobe(MPI_PROC_NULL, 0, w, NULL, &st), MPI_ERR_ARG);
    FAILS(MPI_Mprobe(MPI_PROC_NULL, 0, w, NULL, &st), MPI_ERR_ARG);
    FAILS(MPI_Improbe(MPI_PROC_NULL, 0, w, &flag, NULL, &st), MPI_ERR_ARG);
    OK(MPI_Barrier(w));

    /* MPI_PROC_NULL: at once, moving nothing; no buffer needed for a Bsend */
    x = 7;
    OK(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, w));
    OK(MPI_Ssend(&x, 1, MPI_INT, MPI_PROC_NULL, 0, w));
    OK(MPI_Rsend(&x, 1, MPI_INT, MPI_PROC_NULL, 0, w));
    OK(MPI_Bsend(&x, 1, MPI_INT, MPI_PROC_NULL, 0, w));
    OK(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, w, &st));
    PROCNULL("Recv", st);
    OK(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, w, &r));
    OK(MPI_Wait(&r, &st));
    PROCNULL("Irecv", st);
    OK(MPI_Ibsend(&x, 1, MPI_INT, MPI_PROC_NULL, 0, w, &r));
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    OK(MPI_Probe(MPI_PROC_NULL, 0, w, &st));
    PROCNULL("Probe", st);
    OK(MPI_Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, w, &flag, &st));
    CHECK(flag, "Iprobe from MPI_PROC_NULL found no message");
    PROCNULL("Iprobe", st);
    OK(MPI_Mprobe(MPI_PROC_NULL, 0, w, &m, &st));
    CHECK(m == MPI_MESSAGE_NO_PROC, "Mprobe from MPI_PROC_NULL: message %#lx", (unsigned long)(uintptr_t)m);
    PROCNULL("Mprobe", st);
    OK(MPI_Mrecv(&x, 1, MPI_INT, &m, &st));
    CHECK(m == MPI_MESSAGE_NULL, "Mrecv left the message");
    PROCNULL("Mrecv of MPI_MESSAGE_NO_PROC", st);
    OK(MPI_Improbe(MPI_PROC_NULL, 0, w, &flag, &m, &st));
    CHECK(flag && m == MPI_MESSAGE_NO_PROC, "Improbe from MPI_PROC_NULL");
    PROCNULL("Improbe", st);
    OK(MPI_Imrecv(&x, 1, MPI_INT, &m, &r));
    OK(MPI_Wait(&r, &st));
    PROCNULL("Imrecv of MPI_MESSAGE_NO_PROC", st);
    OK(MPI_Sendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &y, 1, MPI_INT, MPI_PROC_NULL, 0, w, &st));
    PROCNULL("Sendrecv", st);
    OK(MPI_Sendrecv_replace(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_PROC_NULL, 0, w, &st));
    PROCNULL("Sendrecv_replace", st);
    OK(MPI_Isendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &y, 1, MPI_INT, MPI_PROC_NULL, 0, w, &r));
    OK(MPI_Wait(&r, &st));
    PROCNULL("Isendrecv", st);
    CHECK(x == 7, "a receive from MPI_PROC_NULL changed the buffer: %d", x);

    /* a send-receive checks its send before it posts its receive */
    if (rank == 1) {
        int a = 41, b = 42;
        OK(MPI_Send(&a, 1, MPI_INT, 0, 7, w));
        OK(MPI_Send(&b, 1, MPI_INT, 0, 8, w));
    } else {
        int got = -1;
        OK(MPI_Probe(1, 7, w, &st));
        FAILS(MPI_Sendrecv(&x, 1, MPI_INT, size, 0, &got, 1, MPI_INT, 1, 7, w, &st), MPI_ERR_RANK);
        CHECK(got == -1, "Sendrecv with a bad dest received %d", got);
        OK(MPI_Recv(&got, 1, MPI_INT, 1, 7, w, &st));
        CHECK(got == 41, "the message was taken: got %d", got);
        OK(MPI_Probe(1, 8, w, &st));
        FAILS(MPI_Isendrecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, &got, 1, MPI_INT, 1, 8, w, &r), MPI_ERR_RANK);
        OK(MPI_Recv(&got, 1, MPI_INT, 1, 8, w, &st));
        CHECK(got == 42, "the message was taken: got %d", got);
    }
    OK(MPI_Barrier(w));

    /* the buffers of a send-receive are disjoint */
    int buf[3] = {rank, rank, -1};
    FAILS(MPI_Sendrecv(buf, 1, MPI_INT, peer, 0, buf, 1, MPI_INT, peer, 0, w, &st), MPI_ERR_BUFFER);
    FAILS(MPI_Sendrecv(buf, 2, MPI_INT, peer, 0, buf + 1, 2, MPI_INT, peer, 0, w, &st), MPI_ERR_BUFFER);
    FAILS(MPI_Isendrecv(buf + 1, 2, MPI_INT, peer, 0, buf, 2, MPI_INT, peer, 0, w, &r), MPI_ERR_BUFFER);
    OK(MPI_Sendrecv(buf, 1, MPI_INT, peer, 0, buf + 2, 1, MPI_INT, peer, 0, w, &st));
    CHECK(buf[2] == peer && st.MPI_SOURCE == peer, "Sendrecv of disjoint parts: %d from %d", buf[2], st.MPI_SOURCE);
    OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, w, &flag, &st));
    CHECK(!flag, "a send-receive that failed its check sent its message");

    /* the null message, through MPI_COMM_SELF's handler */
    MPI_Errhandler eh;
    OK(MPI_Comm_create_errhandler(self_handler, &eh));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, eh));
    m = MPI_MESSAGE_NULL;
    FAILS(MPI_Mrecv(&x, 1, MPI_INT, &m, &st), MPI_ERR_REQUEST);
    FAILS(MPI_Imrecv(&x, 1, MPI_INT, &m, &r), MPI_ERR_REQUEST);
    CHECK(self_calls == 2, "MPI_COMM_SELF's handler ran %d times, want 2", self_calls);
    OK(MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_SELF));
    OK(MPI_Mprobe(0, 1, MPI_COMM_SELF, &m, &st));
    MPI_Message copy = m;
    OK(MPI_Mrecv(&x, 1, MPI_INT, &m, &st));
    FAILS(MPI_Mrecv(&x, 1, MPI_INT, &copy, &st), MPI_ERR_REQUEST);
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    OK(MPI_Errhandler_free(&eh));

    /* buffers of no bytes: attached, too small for any message, given back */
    char none[8];
    void *addr;
    int n;
    FAILS(MPI_Buffer_attach(NULL, 0), MPI_ERR_BUFFER);
    OK(MPI_Buffer_attach(none, 0));
    FAILS(MPI_Bsend(&x, 1, MPI_INT, peer, 0, w), MPI_ERR_BUFFER);
    OK(MPI_Buffer_detach(&addr, &n));
    CHECK(addr == none && n == 0, "Buffer_detach gave %p, %d", addr, n);
    OK(MPI_Comm_attach_buffer(w, none, 0));
    OK(MPI_Comm_detach_buffer(w, &addr, &n));
    CHECK(addr == none && n == 0, "Comm_detach_buffer gave %p, %d", addr, n);
    MPI_Session s;
    OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    FAILS(MPI_Session_attach_buffer(s, NULL, 0), MPI_ERR_BUFFER);
    OK(MPI_Session_attach_buffer(s, none, 0));
    OK(MPI_Session_detach_buffer(s, &addr, &n));
    CHECK(addr == none && n == 0, "Session_detach_buffer gave %p, %d", addr, n);
    OK(MPI_Session_finalize(&s));

    OK(MPI_Barrier(w));
    OK(MPI_Finalize());
    if (rank == 0) printf("OK p2prules\n");
    return 0;
}
