/* nulltype.c - on 2 ranks: MPI_DATATYPE_NULL as the datatype of a count of 0 is taken
 * by every family of calls (point-to-point in each mode, persistent and partitioned,
 * send-receive, matched receives, collectives' blocks, one-sided operations, file
 * access), as real programs pass it (NCAR ParallelIO, ESMF; MPICH takes it since
 * 4.0.1); a nonzero count with it is MPI_ERR_TYPE naming the argument. argv[1] is a
 * directory for the file part. Errors return (MPI_ERRORS_RETURN). */
#include "check.h"
#include <string.h>
#include <unistd.h>

#define DN MPI_DATATYPE_NULL

static int rank, peer;

/* type_error checks that rc is MPI_ERR_TYPE whose text says MPI_DATATYPE_NULL and
 * has arg in it. */
static void type_error(int rc, const char *arg, const char *what) {
    int cls = MPI_SUCCESS, len = 0;
    char text[MPI_MAX_ERROR_STRING];
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TYPE, "%s: returned %d (class %d), want MPI_ERR_TYPE", what, rc, cls);
    MPI_Error_string(rc, text, &len);
    CHECK(strstr(text, "MPI_DATATYPE_NULL") && strstr(text, arg), "%s: the error \"%s\" names neither MPI_DATATYPE_NULL nor %s", what, text, arg);
}

static void pt2pt(void) {
    MPI_Comm c = MPI_COMM_WORLD;
    MPI_Status st;
    int n = -1;
    /* Blocking, each mode, with a tag to tell them apart; the receiver checks the tag. */
    if (rank == 0) {
        OK(MPI_Send(NULL, 0, DN, peer, 1, c));
        OK(MPI_Ssend(NULL, 0, DN, peer, 2, c));
        char bbuf[MPI_BSEND_OVERHEAD + 64];
        OK(MPI_Buffer_attach(bbuf, sizeof bbuf));
        OK(MPI_Bsend(NULL, 0, DN, peer, 3, c));
        void *p;
        int sz;
        OK(MPI_Buffer_detach(&p, &sz));
        OK(MPI_Barrier(c)); /* the receive of tag 4 is posted */
        OK(MPI_Rsend(NULL, 0, DN, peer, 4, c));
    } else {
        for (int tag = 1; tag <= 3; tag++) {
            OK(MPI_Recv(NULL, 0, DN, peer, tag, c, &st));
            OK(MPI_Get_count(&st, MPI_INT, &n));
            CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == tag && n == 0, "Recv of tag %d: source %d tag %d count %d", tag, st.MPI_SOURCE, st.MPI_TAG, n);
        }
        MPI_Request q;
        OK(MPI_Irecv(NULL, 0, DN, peer, 4, c, &q));
        OK(MPI_Barrier(c));
        OK(MPI_Wait(&q, &st));
        CHECK(st.MPI_TAG == 4, "Rsend's message has tag %d", st.MPI_TAG);
    }

    /* MPI_PROC_NULL (pt2pt/recvnull). */
    MPI_Request q;
    OK(MPI_Irecv(NULL, 0, DN, MPI_PROC_NULL, 10, c, &q));
    OK(MPI_Waitall(1, &q, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "Irecv from MPI_PROC_NULL: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    OK(MPI_Recv(NULL, 0, DN, MPI_PROC_NULL, 10, c, &st));
    OK(MPI_Send(NULL, 0, DN, MPI_PROC_NULL, 10, c));

    /* Nonblocking, both ways at once. */
    MPI_Request qs[2];
    MPI_Status sts[2];
    OK(MPI_Isend(NULL, 0, DN, peer, 5, c, &qs[0]));
    OK(MPI_Irecv(NULL, 0, DN, peer, 5, c, &qs[1]));
    OK(MPI_Waitall(2, qs, sts));
    CHECK(sts[1].MPI_SOURCE == peer && sts[1].MPI_TAG == 5, "Irecv: source %d tag %d", sts[1].MPI_SOURCE, sts[1].MPI_TAG);
    OK(MPI_Issend(NULL, 0, DN, peer, 6, c, &qs[0]));
    OK(MPI_Irecv(NULL, 0, DN, peer, 6, c, &qs[1]));
    OK(MPI_Waitall(2, qs, MPI_STATUSES_IGNORE));

    /* Persistent, started twice. */
    OK(MPI_Send_init(NULL, 0, DN, peer, 7, c, &qs[0]));
    OK(MPI_Recv_init(NULL, 0, DN, peer, 7, c, &qs[1]));
    for (int i = 0; i < 2; i++) {
        OK(MPI_Startall(2, qs));
        OK(MPI_Waitall(2, qs, sts));
        CHECK(sts[1].MPI_TAG == 7, "persistent receive: tag %d", sts[1].MPI_TAG);
    }
    OK(MPI_Request_free(&qs[0]));
    OK(MPI_Request_free(&qs[1]));

    /* Partitioned with count 0, beside a zero-count send of the null type
     * (part/nonblocking_pready). */
    if (rank == 0) {
        OK(MPI_Psend_init(NULL, 2, 0, DN, peer, 8, c, MPI_INFO_NULL, &q));
        OK(MPI_Start(&q));
        OK(MPI_Pready_range(0, 1, q));
        OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        OK(MPI_Request_free(&q));
    } else {
        OK(MPI_Precv_init(NULL, 2, 0, DN, peer, 8, c, MPI_INFO_NULL, &q));
        OK(MPI_Start(&q));
        OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        OK(MPI_Request_free(&q));
    }

    /* Send-receive, and its replace form. */
    OK(MPI_Sendrecv(NULL, 0, DN, peer, 9, NULL, 0, DN, peer, 9, c, &st));
    CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 9, "Sendrecv: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    OK(MPI_Sendrecv_replace(NULL, 0, DN, peer, 11, peer, 11, c, &st));
    CHECK(st.MPI_TAG == 11, "Sendrecv_replace: tag %d", st.MPI_TAG);
    /* One side null, the other a real datatype of no items. */
    OK(MPI_Sendrecv(NULL, 0, MPI_INT, peer, 12, NULL, 0, DN, peer, 12, c, &st));

    /* Matched receives. */
    MPI_Message m;
    OK(MPI_Send(NULL, 0, DN, peer, 13, c));
    OK(MPI_Mprobe(peer, 13, c, &m, &st));
    OK(MPI_Mrecv(NULL, 0, DN, &m, &st));
    CHECK(st.MPI_TAG == 13, "Mrecv: tag %d", st.MPI_TAG);
    OK(MPI_Send(NULL, 0, DN, peer, 14, c));
    OK(MPI_Mprobe(peer, 14, c, &m, &st));
    OK(MPI_Imrecv(NULL, 0, DN, &m, &q));
    OK(MPI_Wait(&q, &st));
    CHECK(st.MPI_TAG == 14, "Imrecv: tag %d", st.MPI_TAG);

    /* A message with data into a receive of no items of the null type is truncated,
     * not a datatype error. */
    int one = 1;
    if (rank == 0) {
        OK(MPI_Send(&one, 1, MPI_INT, peer, 15, c));
    } else {
        int rc = MPI_Recv(NULL, 0, DN, peer, 15, c, &st), cls = MPI_SUCCESS;
        if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE, "a 4-byte message into no items: class %d, want MPI_ERR_TRUNCATE", cls);
    }

    /* A nonzero count with the null type: MPI_ERR_TYPE, each form, on both ranks. */
    int b[4];
    type_error(MPI_Send(b, 1, DN, peer, 16, c), "datatype", "Send of 1 item");
    type_error(MPI_Recv(b, 2, DN, peer, 16, c, &st), "datatype", "Recv of 2 items");
    type_error(MPI_Isend(b, 3, DN, peer, 16, c, &q), "datatype", "Isend of 3 items");
    type_error(MPI_Irecv(b, 1, DN, peer, 16, c, &q), "datatype", "Irecv of 1 item");
    type_error(MPI_Send_init(b, 1, DN, peer, 16, c, &q), "datatype", "Send_init of 1 item");
    type_error(MPI_Psend_init(b, 2, 1, DN, peer, 16, c, MPI_INFO_NULL, &q), "datatype", "Psend_init of 2x1 items");
    type_error(MPI_Sendrecv(b, 0, DN, peer, 16, b, 1, DN, peer, 16, c, &st), "datatype", "Sendrecv receiving 1 item");
}

static void pack(void) {
    char out[16];
    int pos = 0, size = -1;
    MPI_Aint esize = -1;
    OK(MPI_Pack_size(0, DN, MPI_COMM_WORLD, &size));
    CHECK(size == 0, "Pack_size of no items: %d", size);
    OK(MPI_Pack(NULL, 0, DN, out, sizeof out, &pos, MPI_COMM_WORLD));
    OK(MPI_Unpack(out, sizeof out, &pos, NULL, 0, DN, MPI_COMM_WORLD));
    CHECK(pos == 0, "Pack and Unpack of no items moved the position to %d", pos);
    OK(MPI_Pack_external_size("external32", 0, DN, &esize));
    CHECK(esize == 0, "Pack_external_size of no items: %ld", (long)esize);
    type_error(MPI_Pack_size(1, DN, MPI_COMM_WORLD, &size), "datatype", "Pack_size of 1 item");
}

static void coll(void) {
    MPI_Comm c = MPI_COMM_WORLD;
    int x[2] = {7, 8}, y[2] = {0, 0};
    OK(MPI_Bcast(NULL, 0, DN, 0, c));
    OK(MPI_Gather(NULL, 0, DN, NULL, 0, DN, 0, c));
    OK(MPI_Scatter(NULL, 0, DN, NULL, 0, DN, 1, c));
    OK(MPI_Allgather(NULL, 0, DN, NULL, 0, DN, c));
    OK(MPI_Alltoall(NULL, 0, DN, NULL, 0, DN, c));
    /* One side a real type of no items, the other null. */
    OK(MPI_Allgather(x, 0, MPI_INT, NULL, 0, DN, c));
    /* The v forms: every count of the side 0. */
    int zc[2] = {0, 0}, zd[2] = {0, 0}, oc[2] = {1, 1}, od[2] = {0, 1};
    OK(MPI_Gatherv(NULL, 0, DN, NULL, zc, zd, DN, 0, c));
    OK(MPI_Allgatherv(NULL, 0, DN, NULL, zc, zd, DN, c));
    OK(MPI_Alltoallv(NULL, zc, zd, DN, NULL, zc, zd, DN, c));
    /* Data moving on one side of a v form, none on the other's null type. */
    OK(MPI_Allgatherv(&x[rank], 1, MPI_INT, y, oc, od, MPI_INT, c));
    CHECK(y[0] == 7 && y[1] == 8, "Allgatherv: %d %d", y[0], y[1]);
    /* Nonblocking and persistent. */
    MPI_Request q;
    OK(MPI_Ibcast(NULL, 0, DN, 0, c, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    OK(MPI_Iallgather(NULL, 0, DN, NULL, 0, DN, c, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    OK(MPI_Alltoall_init(NULL, 0, DN, NULL, 0, DN, c, MPI_INFO_NULL, &q));
    OK(MPI_Start(&q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    OK(MPI_Request_free(&q));
    /* Reductions of no items: the operation is not looked at (nothing is reduced). */
    OK(MPI_Reduce(NULL, NULL, 0, DN, MPI_SUM, 0, c));
    OK(MPI_Allreduce(NULL, NULL, 0, DN, MPI_MAX, c));
    OK(MPI_Allreduce(MPI_IN_PLACE, NULL, 0, DN, MPI_SUM, c));
    OK(MPI_Scan(NULL, NULL, 0, DN, MPI_PROD, c));
    OK(MPI_Reduce_scatter_block(NULL, NULL, 0, DN, MPI_SUM, c));
    OK(MPI_Iallreduce(NULL, NULL, 0, DN, MPI_SUM, c, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    /* Neighbourhood collectives on a ring of the two ranks. */
    MPI_Comm ring;
    int dims[1] = {2}, periods[1] = {1};
    OK(MPI_Cart_create(c, 1, dims, periods, 0, &ring));
    OK(MPI_Neighbor_allgather(NULL, 0, DN, NULL, 0, DN, ring));
    OK(MPI_Neighbor_alltoall(NULL, 0, DN, NULL, 0, DN, ring));
    OK(MPI_Neighbor_alltoallv(NULL, zc, zd, DN, NULL, zc, zd, DN, ring));
    OK(MPI_Comm_free(&ring));
    /* The errors: a nonzero count of the null type (on both ranks alike, so no rank
     * waits in a collective the other left). */
    type_error(MPI_Allreduce(x, y, 1, DN, MPI_SUM, c), "datatype", "Allreduce of 1 item");
    type_error(MPI_Bcast(x, 1, DN, 0, c), "datatype", "Bcast of 1 item");
    type_error(MPI_Allgather(x, 1, DN, y, 1, MPI_INT, c), "datatype", "Allgather sending 1 item");
    type_error(MPI_Alltoallv(x, oc, od, DN, y, oc, od, MPI_INT, c), "datatype", "Alltoallv with counts 1");
}

static void rma(void) {
    int buf[4] = {0, 0, 0, 0}, res[4];
    MPI_Win w;
    OK(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    OK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
    OK(MPI_Win_fence(0, w));
    OK(MPI_Put(NULL, 0, DN, peer, 0, 0, DN, w));
    OK(MPI_Get(NULL, 0, DN, peer, 0, 0, DN, w));
    OK(MPI_Accumulate(NULL, 0, DN, peer, 0, 0, DN, MPI_SUM, w));
    OK(MPI_Get_accumulate(NULL, 0, DN, NULL, 0, DN, peer, 0, 0, DN, MPI_SUM, w));
    OK(MPI_Put(NULL, 0, MPI_INT, peer, 0, 0, DN, w));
    OK(MPI_Put(NULL, 0, DN, peer, 0, 0, MPI_INT, w));
    MPI_Request q;
    OK(MPI_Rget(NULL, 0, DN, peer, 0, 0, DN, w, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    type_error(MPI_Put(res, 1, DN, peer, 0, 1, MPI_INT, w), "origin datatype", "Put of 1 origin item");
    type_error(MPI_Get(res, 1, MPI_INT, peer, 0, 1, DN, w), "target datatype", "Get of 1 target item");
    type_error(MPI_Accumulate(res, 1, MPI_INT, peer, 0, 1, DN, MPI_SUM, w), "target datatype", "Accumulate of 1 target item");
    type_error(MPI_Get_accumulate(res, 1, MPI_INT, res, 1, DN, peer, 0, 1, MPI_INT, MPI_SUM, w), "result datatype", "Get_accumulate of 1 result item");
    OK(MPI_Win_fence(0, w));
    OK(MPI_Win_free(&w));
}

static void file(const char *dir) {
    char name[512];
    snprintf(name, sizeof name, "%s/nulltype", dir);
    MPI_File fh;
    MPI_Status st;
    int x[1] = {5}, n = -1;
    OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    OK(MPI_File_write_at(fh, 0, NULL, 0, DN, &st));
    OK(MPI_Get_count(&st, MPI_BYTE, &n));
    CHECK(n == 0, "write_at of no items wrote %d bytes", n);
    OK(MPI_File_read_at(fh, 0, NULL, 0, DN, &st));
    OK(MPI_File_write_at_all(fh, 0, NULL, 0, DN, &st));
    OK(MPI_File_read_all(fh, NULL, 0, DN, &st));
    MPI_Request q;
    OK(MPI_File_iwrite_at(fh, 0, NULL, 0, DN, &q));
    OK(MPI_Wait(&q, &st));
    FAILS(MPI_File_write_at(fh, 0, x, 1, DN, &st), MPI_ERR_TYPE);
    OK(MPI_File_close(&fh));
}

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    CHECK(argc == 2, "usage: nulltype dir");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    CHECK(n == 2, "run on 2 ranks, not %d", n);
    peer = 1 - rank;
    pt2pt();
    pack();
    coll();
    rma();
    file(argv[1]);
    OK(MPI_Finalize());
    if (rank == 0) printf("OK nulltype\n");
    return 0;
}
