/* errhkind.c - error handlers have kinds (MPI 4.1 section 9.3): one made by
 * MPI_x_create_errhandler may be set only on an x, MPI_ERR_ERRHANDLER (an invalid
 * errhandler argument) on any other kind, though all four C handler functions share
 * a signature; the predefined handlers (MPI_ERRORS_RETURN, MPI_ERRORS_ARE_FATAL,
 * MPI_ERRORS_ABORT) go on every kind. */
#include "check.h"

static void chandler(MPI_Comm *c, int *code, ...) { (void)c, (void)code; }
static void whandler(MPI_Win *w, int *code, ...) { (void)w, (void)code; }
static void fhandler(MPI_File *f, int *code, ...) { (void)f, (void)code; }
static void shandler(MPI_Session *s, int *code, ...) { (void)s, (void)code; }

static int classof(int rc) {
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

enum { COMM, WIN, FILE_, SESSION, KINDS };
static const char *names[KINDS] = {"comm", "win", "file", "session"};

static MPI_Comm comm;
static MPI_Win win;
static MPI_Session session;

/* set and get on an object of kind k. */
static int set(int k, MPI_Errhandler eh) {
    switch (k) {
    case COMM: return MPI_Comm_set_errhandler(comm, eh);
    case WIN: return MPI_Win_set_errhandler(win, eh);
    case FILE_: return MPI_File_set_errhandler(MPI_FILE_NULL, eh);
    }
    return MPI_Session_set_errhandler(session, eh);
}

static MPI_Errhandler get(int k) {
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    switch (k) {
    case COMM: OK(MPI_Comm_get_errhandler(comm, &eh)); break;
    case WIN: OK(MPI_Win_get_errhandler(win, &eh)); break;
    case FILE_: OK(MPI_File_get_errhandler(MPI_FILE_NULL, &eh)); break;
    default: OK(MPI_Session_get_errhandler(session, &eh));
    }
    return eh;
}

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    int rank;
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    int buf[4];
    OK(MPI_Win_create(buf, sizeof buf, sizeof buf[0], MPI_INFO_NULL, comm, &win));
    OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session));
    for (int k = 0; k < KINDS; k++) /* the refusals below go to each object's handler */
        OK(set(k, MPI_ERRORS_RETURN));

    MPI_Errhandler made[KINDS];
    OK(MPI_Comm_create_errhandler(chandler, &made[COMM]));
    OK(MPI_Win_create_errhandler(whandler, &made[WIN]));
    OK(MPI_File_create_errhandler(fhandler, &made[FILE_]));
    OK(MPI_Session_create_errhandler(shandler, &made[SESSION]));

    for (int obj = 0; obj < KINDS; obj++) {
        for (int h = 0; h < KINDS; h++) {
            int rc = set(obj, made[h]);
            if (h == obj) {
                CHECK(rc == MPI_SUCCESS, "a %s handler on a %s: %d", names[h], names[obj], rc);
                MPI_Errhandler got = get(obj);
                CHECK(got == made[h], "a %s's handler reads back as another", names[obj]);
                OK(MPI_Errhandler_free(&got));
            } else {
                CHECK(classof(rc) == MPI_ERR_ERRHANDLER, "a %s handler on a %s gave %d, want MPI_ERR_ERRHANDLER",
                      names[h], names[obj], rc);
            }
        }
        /* the refusal left the object's own handler in place */
        MPI_Errhandler got = get(obj);
        CHECK(got == made[obj], "a refused set changed the %s's handler", names[obj]);
        OK(MPI_Errhandler_free(&got));
        /* every predefined handler goes on every kind; MPI_ERRORS_RETURN last */
        MPI_Errhandler pre[] = {MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT, MPI_ERRORS_RETURN};
        for (int i = 0; i < 3; i++) {
            OK(set(obj, pre[i]));
            CHECK(get(obj) == pre[i], "predefined handler %d on a %s reads back as another", i, names[obj]);
        }
    }

    /* the calls that take a handler for the object they make check its kind too */
    MPI_Group wg;
    OK(MPI_Session_get_num_psets(session, MPI_INFO_NULL, &(int){0}));
    OK(MPI_Group_from_session_pset(session, "mpi://WORLD", &wg));
    MPI_Comm nc = MPI_COMM_NULL;
    for (int h = WIN; h < KINDS; h++) {
        int rc = MPI_Comm_create_from_group(wg, "errhkind", MPI_INFO_NULL, made[h], &nc);
        CHECK(classof(rc) == MPI_ERR_ERRHANDLER, "MPI_Comm_create_from_group with a %s handler gave %d", names[h], rc);
    }
    OK(MPI_Comm_create_from_group(wg, "errhkind", MPI_INFO_NULL, made[COMM], &nc));
    OK(MPI_Comm_free(&nc));
    OK(MPI_Group_free(&wg));
    MPI_Session s2;
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN)); /* no session yet: Self's */
    for (int h = COMM; h < SESSION; h++) {
        int rc = MPI_Session_init(MPI_INFO_NULL, made[h], &s2);
        CHECK(classof(rc) == MPI_ERR_ERRHANDLER, "MPI_Session_init with a %s handler gave %d", names[h], rc);
    }

    for (int h = 0; h < KINDS; h++)
        OK(MPI_Errhandler_free(&made[h]));
    OK(MPI_Session_finalize(&session));
    OK(MPI_Win_free(&win));
    OK(MPI_Comm_free(&comm));
    OK(MPI_Finalize());
    if (rank == 0) printf("OK errhkind\n");
    return 0;
}
