/* reqset.c - the calls on sets of requests (MPI 4.1 sections 3.7.5, 3.7.6): null
 * and inactive persistent requests take no part and get the empty status; with none
 * active the index or count is MPI_UNDEFINED; MPI_Testall completes all or none; a
 * request's failure is MPI_Waitany's error, and MPI_ERR_IN_STATUS for the calls that
 * report several, each status holding its own code; either goes to the handler of
 * the failed request's communicator; MPI_Request_get_status_* leave the requests. */
#include "check.h"
#include <string.h>

static int calls, last;
static MPI_Comm last_comm;

static void handler(MPI_Comm *comm, int *code, ...) {
    calls++;
    last = *code;
    last_comm = *comm;
}

static int classof(int rc) {
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* sender_named checks that the text of code names the sender of a truncated message
 * and both lengths, as MPI_Recv's does. */
static void sender_named(int code, int from, const char *what) {
    char text[MPI_MAX_ERROR_STRING], want[100];
    int len = 0;
    MPI_Error_string(code, text, &len);
    snprintf(want, sizeof want, "from rank %d: message truncated: 16-byte message, 4-byte receive buffer", from);
    CHECK(strstr(text, want) != NULL, "%s: \"%s\" does not say \"%s\"", what, text, want);
}

static int empty(const MPI_Status *st) {
    int n = -1;
    MPI_Get_count(st, MPI_INT, &n);
    return st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && n == 0;
}

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    int rank, size;
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 2, "run on 2 ranks, not %d", size);
    int peer = 1 - rank;
    MPI_Comm c;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_Errhandler eh;
    OK(MPI_Comm_create_errhandler(handler, &eh));
    OK(MPI_Comm_set_errhandler(c, eh));
    OK(MPI_Errhandler_free(&eh));

    /* null and inactive persistent requests take no part */
    int buf[4] = {0}, one = 7, spare = 0; /* spare: a receive pending beside one into buf */
    MPI_Request ps;
    OK(MPI_Recv_init(buf, 1, MPI_INT, peer, 9, c, &ps));
    MPI_Request rs[3] = {MPI_REQUEST_NULL, ps, MPI_REQUEST_NULL};
    MPI_Status st, sts[3];
    int idx = 5, flag = 0, n = 5, ix[3];
    OK(MPI_Waitany(3, rs, &idx, &st));
    CHECK(idx == MPI_UNDEFINED && empty(&st), "Waitany of nothing active: index %d", idx);
    OK(MPI_Testany(3, rs, &idx, &flag, &st));
    CHECK(idx == MPI_UNDEFINED && flag && empty(&st), "Testany of nothing active: index %d flag %d", idx, flag);
    OK(MPI_Waitsome(3, rs, &n, ix, sts));
    CHECK(n == MPI_UNDEFINED, "Waitsome of nothing active: outcount %d", n);
    OK(MPI_Testsome(3, rs, &n, ix, sts));
    CHECK(n == MPI_UNDEFINED, "Testsome of nothing active: outcount %d", n);
    OK(MPI_Testall(3, rs, &flag, sts));
    CHECK(flag && empty(&sts[0]) && empty(&sts[1]) && rs[1] == ps, "Testall of nothing active");
    OK(MPI_Waitall(3, rs, sts));
    CHECK(empty(&sts[1]) && rs[1] == ps && rs[0] == MPI_REQUEST_NULL, "Waitall: the inactive request changed");

    /* the persistent request, started, takes part and stays, inactive, once done */
    OK(MPI_Start(&rs[1]));
    OK(MPI_Send(&one, 1, MPI_INT, peer, 9, c));
    OK(MPI_Waitany(3, rs, &idx, &st));
    CHECK(idx == 1 && buf[0] == 7 && st.MPI_SOURCE == peer && rs[1] == ps, "Waitany of the started request: %d", idx);

    /* Testall: all or none */
    OK(MPI_Barrier(c));
    MPI_Request two[2];
    OK(MPI_Irecv(&buf[0], 1, MPI_INT, peer, 10, c, &two[0]));
    OK(MPI_Irecv(&buf[1], 1, MPI_INT, peer, 11, c, &two[1]));
    OK(MPI_Send(&one, 1, MPI_INT, peer, 10, c));
    OK(MPI_Barrier(c)); /* the tag-10 message is here; tag 11's is not sent yet */
    OK(MPI_Request_get_status_any(2, two, &idx, &flag, &st));
    CHECK(flag && idx == 0 && two[0] != MPI_REQUEST_NULL, "get_status_any: index %d flag %d", idx, flag);
    OK(MPI_Request_get_status_all(2, two, &flag, sts));
    CHECK(!flag, "get_status_all with one not done");
    OK(MPI_Request_get_status_some(2, two, &n, ix, sts));
    CHECK(n == 1 && ix[0] == 0 && two[0] != MPI_REQUEST_NULL, "get_status_some: %d", n);
    OK(MPI_Testall(2, two, &flag, sts));
    CHECK(!flag && two[0] != MPI_REQUEST_NULL && two[1] != MPI_REQUEST_NULL, "Testall completed some of them");
    OK(MPI_Testsome(2, two, &n, ix, sts));
    CHECK(n == 1 && ix[0] == 0 && two[0] == MPI_REQUEST_NULL && two[1] != MPI_REQUEST_NULL, "Testsome: %d", n);
    OK(MPI_Barrier(c)); /* both have looked before either sends tag 11 */
    OK(MPI_Send(&one, 1, MPI_INT, peer, 11, c));
    OK(MPI_Waitall(2, two, MPI_STATUSES_IGNORE));

    /* a failure: the request's error, on its communicator's handler */
    OK(MPI_Barrier(c));
    int big[4] = {1, 2, 3, 4};
    MPI_Request r2[2];
    OK(MPI_Irecv(buf, 1, MPI_INT, peer, 12, c, &r2[0])); /* truncated: 4 ints come */
    OK(MPI_Send(big, 4, MPI_INT, peer, 12, c));
    int rc = MPI_Waitany(1, r2, &idx, &st);
    CHECK(classof(rc) == MPI_ERR_TRUNCATE && idx == 0 && calls == 1 && last == rc && last_comm == c,
          "Waitany of a truncated receive: class %d, index %d, handler calls %d", classof(rc), idx, calls);
    sender_named(rc, peer, "Waitany");

    OK(MPI_Barrier(c));
    OK(MPI_Irecv(&buf[0], 4, MPI_INT, peer, 13, c, &r2[0]));
    OK(MPI_Irecv(&spare, 1, MPI_INT, peer, 14, c, &r2[1])); /* truncated */
    OK(MPI_Send(big, 4, MPI_INT, peer, 13, c));
    OK(MPI_Send(big, 4, MPI_INT, peer, 14, c));
    rc = MPI_Waitall(2, r2, sts);
    CHECK(rc == MPI_ERR_IN_STATUS && sts[0].MPI_ERROR == MPI_SUCCESS && classof(sts[1].MPI_ERROR) == MPI_ERR_TRUNCATE &&
              calls == 2 && last == rc && last_comm == c && r2[0] == MPI_REQUEST_NULL && r2[1] == MPI_REQUEST_NULL,
          "Waitall with a truncated receive: %d, errors %d %d, handler calls %d", rc, sts[0].MPI_ERROR, sts[1].MPI_ERROR, calls);
    sender_named(sts[1].MPI_ERROR, peer, "Waitall's status");

    OK(MPI_Barrier(c));
    OK(MPI_Irecv(&buf[1], 1, MPI_INT, peer, 15, c, &r2[0])); /* truncated */
    OK(MPI_Send(big, 4, MPI_INT, peer, 15, c));
    n = 0;
    while (n == 0) /* bounded by the message, which was sent */
        rc = MPI_Testsome(1, r2, &n, ix, sts);
    CHECK(rc == MPI_ERR_IN_STATUS && n == 1 && classof(sts[0].MPI_ERROR) == MPI_ERR_TRUNCATE && calls == 3,
          "Testsome with a truncated receive: %d, outcount %d, handler calls %d", rc, n, calls);
    sender_named(sts[0].MPI_ERROR, peer, "Testsome's status");

    OK(MPI_Request_free(&ps));
    OK(MPI_Comm_free(&c));
    OK(MPI_Finalize());
    if (rank == 0) printf("OK reqset\n");
    return 0;
}
