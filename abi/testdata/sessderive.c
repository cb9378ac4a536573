/* sessderive.c - groups derived from a session belong to it (MPI 4.1 section 11.3):
 * the group of a session's communicator or window, and groups computed from them,
 * make communicators that use the session's buffer; an error with no communicator
 * goes to the session's handler; groups of different sessions, or of a session and
 * the world model, are refused in one call with MPI_ERR_GROUP. */
#include "check.h"

static int scalls;
static MPI_Session slast;
static void shandler(MPI_Session *s, int *code, ...) {
    (void)code;
    scalls++;
    slast = *s;
}
static void whandler(MPI_Win *w, int *code, ...) { (void)w, (void)code; }

static int classof(int rc) {
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* bsend_on: a Bsend from rank 0 to 1 on c with no process buffer attached: it
 * succeeds only through the session's buffer. */
static void bsend_on(MPI_Comm c, const char *what) {
    int me;
    char msg[1000] = {0};
    OK(MPI_Comm_rank(c, &me));
    if (me == 0) {
        int rc = MPI_Bsend(msg, sizeof msg, MPI_CHAR, 1, 1, c);
        if (rc != MPI_SUCCESS) {
            fprintf(stderr, "FAIL Bsend on a communicator made from %s: error class %d (the session's buffer was not used)\n", what, classof(rc));
            OK(MPI_Send(msg, sizeof msg, MPI_CHAR, 1, 1, c));
            exit(3);
        }
    } else if (me == 1) {
        OK(MPI_Recv(msg, sizeof msg, MPI_CHAR, 0, 1, c, MPI_STATUS_IGNORE));
    }
}

int main(void) {
    MPI_Errhandler seh, weh;
    OK(MPI_Session_create_errhandler(shandler, &seh));
    OK(MPI_Win_create_errhandler(whandler, &weh));
    MPI_Session s, s2;
    OK(MPI_Session_init(MPI_INFO_NULL, seh, &s));
    static char sbuf[1 << 16];
    OK(MPI_Session_attach_buffer(s, sbuf, sizeof sbuf));
    MPI_Group pset, g, rev, u, wg;
    OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &pset));
    MPI_Comm c;
    OK(MPI_Comm_create_from_group(pset, "base", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    int me;
    OK(MPI_Comm_rank(c, &me));

    OK(MPI_Comm_group(c, &g));
    int two[2] = {1, 0};
    OK(MPI_Group_incl(g, 2, two, &rev));
    OK(MPI_Group_union(MPI_GROUP_EMPTY, rev, &u));
    MPI_Win w;
    void *wbase;
    OK(MPI_Win_allocate(8, 8, MPI_INFO_NULL, c, &wbase, &w));
    OK(MPI_Win_get_group(w, &wg));
    OK(MPI_Win_free(&w));
    MPI_Group from[] = {g, rev, u, wg};
    const char *names[] = {"MPI_Comm_group", "MPI_Group_incl", "MPI_Group_union", "MPI_Win_get_group"};
    for (int i = 0; i < 4; i++) {
        MPI_Comm d;
        OK(MPI_Comm_create_from_group(from[i], names[i], MPI_INFO_NULL, MPI_ERRORS_RETURN, &d));
        bsend_on(d, names[i]);
        OK(MPI_Comm_free(&d));
    }
    MPI_Comm cr;
    OK(MPI_Comm_create(c, g, &cr));
    bsend_on(cr, "MPI_Comm_create");
    OK(MPI_Comm_free(&cr));

    /* an error with no communicator: the session's handler, not MPI_COMM_SELF's
     * (fatal by default: the job would end) */
    MPI_Comm bad = MPI_COMM_NULL;
    int rc = MPI_Comm_create_from_group(rev, "wrong-kind", MPI_INFO_NULL, weh, &bad);
    CHECK(classof(rc) == MPI_ERR_ERRHANDLER && scalls == 1 && slast == s, "a window's handler: error class %d, session handler calls %d",
          classof(rc), scalls);

    /* mixing owners */
    OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2));
    MPI_Group g2, x;
    OK(MPI_Group_from_session_pset(s2, "mpi://WORLD", &g2));
    rc = MPI_Group_union(g, g2, &x);
    CHECK(classof(rc) == MPI_ERR_GROUP && scalls == 2, "Group_union of two sessions: class %d, session handler calls %d", classof(rc), scalls);
    MPI_Group lo, hi2;
    int zero = 0, one = 1;
    OK(MPI_Group_incl(g, 1, &zero, &lo));
    OK(MPI_Group_incl(g2, 1, &one, &hi2));
    MPI_Comm ic = MPI_COMM_NULL;
    rc = me == 0 ? MPI_Intercomm_create_from_groups(lo, 0, hi2, 0, "mixed", MPI_INFO_NULL, MPI_ERRORS_RETURN, &ic)
                 : MPI_Intercomm_create_from_groups(hi2, 0, lo, 0, "mixed", MPI_INFO_NULL, MPI_ERRORS_RETURN, &ic);
    CHECK(classof(rc) == MPI_ERR_GROUP && ic == MPI_COMM_NULL, "Intercomm_create_from_groups of two sessions: class %d", classof(rc));
    rc = MPI_Comm_create_group(c, g2, 3, &ic);
    CHECK(classof(rc) == MPI_ERR_GROUP, "Comm_create_group of another session's group: class %d", classof(rc));
    /* a group call's own error on a session's group: the session's handler too */
    int far = 99;
    rc = MPI_Group_incl(g, 1, &far, &x);
    CHECK(classof(rc) == MPI_ERR_RANK && scalls == 3, "Group_incl of rank 99: class %d, session handler calls %d", classof(rc), scalls);

    OK(MPI_Init(NULL, NULL));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_Group world;
    OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    rc = MPI_Group_intersection(world, g, &x);
    CHECK(classof(rc) == MPI_ERR_GROUP, "Group_intersection of the world's and a session's: class %d", classof(rc));
    rc = MPI_Group_difference(rev, world, &x);
    CHECK(classof(rc) == MPI_ERR_GROUP, "Group_difference of a session's and the world's: class %d", classof(rc));
    rc = MPI_Comm_create(MPI_COMM_WORLD, g, &cr);
    CHECK(classof(rc) == MPI_ERR_GROUP, "Comm_create of a session's group on MPI_COMM_WORLD: class %d", classof(rc));
    rc = MPI_Comm_create(c, world, &cr);
    CHECK(classof(rc) == MPI_ERR_GROUP, "Comm_create of the world's group on a session's communicator: class %d", classof(rc));
    OK(MPI_Win_allocate(8, 8, MPI_INFO_NULL, c, &wbase, &w));
    OK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
    rc = MPI_Win_start(world, 0, w);
    CHECK(classof(rc) == MPI_ERR_GROUP, "Win_start of the world's group on a session's window: class %d", classof(rc));
    OK(MPI_Win_free(&w));
    OK(MPI_Comm_create(MPI_COMM_WORLD, world, &cr)); /* the world model's own still work */
    OK(MPI_Barrier(cr));
    OK(MPI_Comm_free(&cr));
    OK(MPI_Group_free(&world));
    OK(MPI_Finalize());

    MPI_Group all[] = {pset, g, u, wg, g2, lo, hi2};
    for (int i = 0; i < 7; i++)
        OK(MPI_Group_free(&all[i]));
    OK(MPI_Comm_free(&c));
    OK(MPI_Errhandler_free(&weh));
    OK(MPI_Errhandler_free(&seh));
    OK(MPI_Session_finalize(&s2));
    OK(MPI_Session_finalize(&s));
    /* a finalized session's group makes no communicator */
    rc = MPI_Comm_create_from_group(rev, "after", MPI_INFO_NULL, MPI_ERRORS_RETURN, &cr);
    CHECK(classof(rc) == MPI_ERR_SESSION, "Comm_create_from_group of a finalized session's group: class %d", classof(rc));
    if (me == 0) printf("OK sessderive\n");
    return 0;
}
