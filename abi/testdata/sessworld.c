/* sessworld.c - sessions beside the world model: a session begun after MPI_Init
 * outlives MPI_Finalize; errors of bad sessions go to MPI_COMM_SELF's handler; an
 * intercommunicator from two groups. */
#include <string.h>
#include "check.h"

static int classof(int rc) {
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

static void noop(MPI_Session *s, int *code, ...) {
    (void)s;
    (void)code;
}

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    int wrank, wsize;
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    MPI_Session s;
    OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    MPI_Group g;
    OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    MPI_Comm c;
    OK(MPI_Comm_create_from_group(g, "world", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    int cmp;
    OK(MPI_Comm_compare(c, MPI_COMM_WORLD, &cmp));
    CHECK(cmp == MPI_CONGRUENT, "compare gave %d", cmp);

    /* bad sessions and handlers of the wrong kind: on MPI_COMM_SELF */
    int n;
    int rc = MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL, &n);
    CHECK(classof(rc) == MPI_ERR_SESSION, "MPI_SESSION_NULL: class %d", classof(rc));
    MPI_Errhandler seh;
    OK(MPI_Session_create_errhandler(noop, &seh));
    MPI_Comm bad;
    rc = MPI_Comm_create_from_group(g, "x", MPI_INFO_NULL, seh, &bad);
    CHECK(classof(rc) == MPI_ERR_ERRHANDLER, "a session handler for a communicator: class %d", classof(rc));
    MPI_Session s2;
    MPI_Errhandler ceh;
    OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &ceh));
    rc = MPI_Session_init(MPI_INFO_NULL, seh, &s2);
    OK(rc);
    OK(MPI_Session_finalize(&s2));
    rc = MPI_Session_finalize(&s2);
    CHECK(classof(rc) == MPI_ERR_SESSION, "a second Session_finalize: class %d", classof(rc));
    OK(MPI_Errhandler_free(&seh));
    OK(MPI_Errhandler_free(&ceh));

    /* an intercommunicator between the lower and upper halves */
    if (wsize >= 2) {
        int half = wsize / 2;
        int lo[64], hi[64], nl = 0, nh = 0;
        for (int i = 0; i < wsize; i++) {
            if (i < half) lo[nl++] = i;
            else hi[nh++] = i;
        }
        MPI_Group glo, ghi;
        OK(MPI_Group_incl(g, nl, lo, &glo));
        OK(MPI_Group_incl(g, nh, hi, &ghi));
        int mine_lo = wrank < half;
        MPI_Comm ic;
        OK(MPI_Intercomm_create_from_groups(mine_lo ? glo : ghi, 0, mine_lo ? ghi : glo, 0, "halves",
                                            MPI_INFO_NULL, MPI_ERRORS_RETURN, &ic));
        int inter, rsize;
        OK(MPI_Comm_test_inter(ic, &inter));
        OK(MPI_Comm_remote_size(ic, &rsize));
        CHECK(inter && rsize == (mine_lo ? nh : nl), "intercommunicator: inter %d remote %d", inter, rsize);
        int x = wrank, y = -1;
        int lr;
        OK(MPI_Comm_rank(ic, &lr));
        if (lr == 0) {
            OK(MPI_Sendrecv(&x, 1, MPI_INT, 0, 1, &y, 1, MPI_INT, 0, 1, ic, MPI_STATUS_IGNORE));
            CHECK(y == (mine_lo ? half : 0), "the other leader is %d", y);
        }
        rc = MPI_Intercomm_create_from_groups(g, 0, glo, 0, "overlap", MPI_INFO_NULL, MPI_ERRORS_RETURN, &bad);
        CHECK(classof(rc) == MPI_ERR_GROUP, "overlapping groups: class %d", classof(rc));
        OK(MPI_Comm_free(&ic));
        OK(MPI_Group_free(&glo));
        OK(MPI_Group_free(&ghi));
    }

    /* the world model ends; the session goes on */
    OK(MPI_Finalize());
    int flag;
    OK(MPI_Finalized(&flag));
    CHECK(flag, "MPI_Finalized after MPI_Finalize");
    rc = MPI_Comm_rank(MPI_COMM_WORLD, &n);
    CHECK(classof(rc) == MPI_ERR_OTHER, "MPI_COMM_WORLD after MPI_Finalize: class %d", classof(rc));
    long sum = 0, one = 1;
    OK(MPI_Allreduce(&one, &sum, 1, MPI_LONG, MPI_SUM, c));
    CHECK(sum == wsize, "Allreduce after MPI_Finalize: %ld", sum);
    OK(MPI_Comm_free(&c));
    OK(MPI_Group_free(&g));
    OK(MPI_Session_finalize(&s));
    if (wrank == 0) printf("OK sessworld\n");
    return 0;
}
