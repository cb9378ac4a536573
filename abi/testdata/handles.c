/* handles.c - a handle names one object of one kind, or nothing. For every kind of
 * handle a program can be given, a freed one (also after the kind's slots were
 * reused many times over) and one of another kind, a predefined handle of another
 * kind and garbage each give that kind's error class with MPI_ERRORS_RETURN, and the
 * error string says what the handle is; never another object, never a crash. The
 * short ways in C (MPI_Put and MPI_Win_flush on a window, MPI_Type_commit and
 * MPI_Type_free of a datatype) refuse a stale handle too, so the Go half reports it. */
#include <stdint.h>
#include <string.h>
#include "check.h"

#define CHURN 150 /* more than the slots a kind keeps freed before reusing one */

static int rank;

static int classof(int rc) {
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* refused checks that rc is an error of class want whose string contains says (when
 * not NULL): check.h's FAILS, and the words. */
static void refused(int rc, int want, const char *says, const char *what, int line) {
    char msg[MPI_MAX_ERROR_STRING];
    int n = 0;
    msg[0] = 0;
    if (rc != MPI_SUCCESS) MPI_Error_string(rc, msg, &n);
    CHECK(rc != MPI_SUCCESS && classof(rc) == want, "line %d: %s gave %d (class %d: %s), want class %d", line, what,
          rc, classof(rc), msg, want);
    CHECK(says == NULL || strstr(msg, says) != NULL, "line %d: %s: the error string \"%s\" does not say \"%s\"", line,
          what, msg, says);
}
#define REFUSED(call, want, says) refused((call), (want), (says), #call, __LINE__)

/* Handles of every kind that are not the one a call expects. */
#define GARBAGE1 ((intptr_t)0x12345)             /* between the predefined and the made handles */
#define GARBAGE2 ((intptr_t)0x7ffffff0)          /* the made handles' range, no kind */
#define GARBAGE3 ((intptr_t)0x5eadbeef00000000LL) /* wider than any handle */
static const intptr_t garbage[] = {GARBAGE1, GARBAGE2, GARBAGE3};

static MPI_Comm other_comm;     /* a live communicator */
static MPI_Datatype other_type; /* a live datatype Go made */

static void comms(void) {
    MPI_Comm c, stale;
    int n;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    stale = c;
    OK(MPI_Comm_free(&c));
    REFUSED(MPI_Comm_size(stale, &n), MPI_ERR_COMM, "was freed");
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c)); /* a new communicator: the old handle stays dead */
    REFUSED(MPI_Comm_size(stale, &n), MPI_ERR_COMM, "was freed");
    REFUSED(MPI_Send(&n, 1, MPI_INT, 0, 0, stale), MPI_ERR_COMM, "was freed");
    REFUSED(MPI_Comm_free(&stale), MPI_ERR_COMM, "was freed");
    OK(MPI_Comm_size(c, &n));
    OK(MPI_Comm_free(&c));

    /* After many communicators came and went, no old handle names a new one. */
    static MPI_Comm old[CHURN];
    for (int i = 0; i < CHURN; i++) {
        OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        OK(MPI_Comm_set_name(c, "new"));
        old[i] = c;
        if (i < CHURN - 1) OK(MPI_Comm_free(&c));
    }
    for (int i = 0; i < CHURN - 1; i++) {
        REFUSED(MPI_Comm_size(old[i], &n), MPI_ERR_COMM, "was freed");
        CHECK(old[i] != c, "communicator %d's handle is the live one's", i);
    }
    char name[MPI_MAX_OBJECT_NAME];
    OK(MPI_Comm_get_name(c, name, &n));
    CHECK(strcmp(name, "new") == 0, "the live communicator is named %s", name);
    OK(MPI_Comm_free(&c));

    REFUSED(MPI_Comm_size((MPI_Comm)other_type, &n), MPI_ERR_COMM, "is a datatype, not a communicator");
    REFUSED(MPI_Comm_size((MPI_Comm)MPI_INT, &n), MPI_ERR_COMM, "is a predefined datatype, not a communicator");
    REFUSED(MPI_Send(&n, 1, MPI_INT, 0, 0, (MPI_Comm)other_type), MPI_ERR_COMM, "not a communicator");
    for (int i = 0; i < 3; i++) REFUSED(MPI_Comm_size((MPI_Comm)garbage[i], &n), MPI_ERR_COMM, "is not a communicator");
    REFUSED(MPI_Comm_size(MPI_COMM_NULL, &n), MPI_ERR_COMM, "MPI_COMM_NULL");
}

static void types(void) {
    MPI_Datatype t, stale, made[2];
    int n;
    /* made[0] Go makes (a struct); made[1] the constructor's short way in C makes
     * (typeshort.c). */
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 8};
    MPI_Datatype parts[2] = {MPI_INT, MPI_DOUBLE};
    for (int k = 0; k < 2; k++) {
        if (k == 0) OK(MPI_Type_create_struct(2, bl, disp, parts, &t));
        else OK(MPI_Type_contiguous(2, MPI_INT, &t));
        stale = t;
        OK(MPI_Type_free(&t));
        REFUSED(MPI_Type_size(stale, &n), MPI_ERR_TYPE, "was freed");
        t = stale;
        REFUSED(MPI_Type_commit(&t), MPI_ERR_TYPE, "was freed");
        t = stale;
        REFUSED(MPI_Type_free(&t), MPI_ERR_TYPE, "was freed");
        REFUSED(MPI_Send(&n, 1, stale, 0, 0, MPI_COMM_SELF), MPI_ERR_TYPE, "was freed");
        made[k] = stale;
    }

    /* Churn both ways of making types; the last one of each stays live. */
    static MPI_Datatype old[2][CHURN];
    MPI_Datatype live[2];
    for (int i = 0; i < CHURN; i++) {
        for (int k = 0; k < 2; k++) {
            if (k == 0) OK(MPI_Type_create_struct(2, bl, disp, parts, &t));
            else OK(MPI_Type_contiguous(2, MPI_INT, &t));
            old[k][i] = t;
            if (i < CHURN - 1) {
                if (i % 2) OK(MPI_Type_commit(&t)); /* committed in C: the mark goes with the type */
                OK(MPI_Type_free(&t));
            }
            live[k] = t;
        }
    }
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < CHURN - 1; i++) {
            REFUSED(MPI_Type_size(old[k][i], &n), MPI_ERR_TYPE, "was freed");
            t = old[k][i];
            REFUSED(MPI_Type_commit(&t), MPI_ERR_TYPE, "was freed");
        }
        REFUSED(MPI_Type_size(made[k], &n), MPI_ERR_TYPE, "was freed");
        /* the live type was never committed: a stale handle's commit did not mark it */
        int v[4] = {0};
        REFUSED(MPI_Send(v, 1, live[k], 0, 0, MPI_COMM_SELF), MPI_ERR_TYPE, "not committed");
        OK(MPI_Type_commit(&live[k]));
        OK(MPI_Type_size(live[k], &n));
        CHECK(n == (k == 0 ? 12 : 8), "the live type %d has size %d", k, n);
        OK(MPI_Type_free(&live[k]));
    }

    t = (MPI_Datatype)other_comm;
    REFUSED(MPI_Type_size(t, &n), MPI_ERR_TYPE, "is a communicator, not a datatype");
    REFUSED(MPI_Type_commit(&t), MPI_ERR_TYPE, "is a communicator, not a datatype");
    REFUSED(MPI_Type_free(&t), MPI_ERR_TYPE, "is a communicator, not a datatype");
    REFUSED(MPI_Send(&n, 1, t, 0, 0, MPI_COMM_SELF), MPI_ERR_TYPE, "is a communicator, not a datatype");
    REFUSED(MPI_Type_contiguous(2, t, &stale), MPI_ERR_TYPE, "is a communicator, not a datatype");
    REFUSED(MPI_Type_size((MPI_Datatype)MPI_COMM_WORLD, &n), MPI_ERR_TYPE, "predefined communicator");
    for (int i = 0; i < 3; i++) {
        t = (MPI_Datatype)garbage[i];
        REFUSED(MPI_Type_size(t, &n), MPI_ERR_TYPE, "is not a datatype");
        REFUSED(MPI_Type_commit(&t), MPI_ERR_TYPE, "is not a datatype");
    }
}

static void groups(void) {
    MPI_Group g, stale;
    int n;
    OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
    stale = g;
    OK(MPI_Group_free(&g));
    REFUSED(MPI_Group_size(stale, &n), MPI_ERR_GROUP, "was freed");
    static MPI_Group old[CHURN];
    for (int i = 0; i < CHURN; i++) {
        OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
        old[i] = g;
        if (i < CHURN - 1) OK(MPI_Group_free(&g));
    }
    for (int i = 0; i < CHURN - 1; i++) REFUSED(MPI_Group_size(old[i], &n), MPI_ERR_GROUP, "was freed");
    REFUSED(MPI_Group_free(&stale), MPI_ERR_GROUP, "was freed");
    OK(MPI_Group_size(g, &n));
    OK(MPI_Group_free(&g));
    REFUSED(MPI_Group_size((MPI_Group)other_comm, &n), MPI_ERR_GROUP, "is a communicator, not a group");
    REFUSED(MPI_Comm_create(MPI_COMM_WORLD, (MPI_Group)other_type, &(MPI_Comm){0}), MPI_ERR_GROUP,
          "is a datatype, not a group");
    for (int i = 0; i < 3; i++) REFUSED(MPI_Group_size((MPI_Group)garbage[i], &n), MPI_ERR_GROUP, "not a group");
}

static void infos(void) {
    MPI_Info in, stale;
    int n;
    OK(MPI_Info_create(&in));
    stale = in;
    OK(MPI_Info_free(&in));
    REFUSED(MPI_Info_set(stale, "k", "v"), MPI_ERR_INFO, "was freed");
    static MPI_Info old[CHURN];
    for (int i = 0; i < CHURN; i++) {
        OK(MPI_Info_create(&in));
        old[i] = in;
        if (i < CHURN - 1) OK(MPI_Info_free(&in));
    }
    for (int i = 0; i < CHURN - 1; i++) REFUSED(MPI_Info_get_nkeys(old[i], &n), MPI_ERR_INFO, "was freed");
    OK(MPI_Info_get_nkeys(in, &n));
    CHECK(n == 0, "a new info has %d keys", n);
    OK(MPI_Info_free(&in));
    REFUSED(MPI_Info_get_nkeys((MPI_Info)other_comm, &n), MPI_ERR_INFO, "is a communicator, not an info object");
    MPI_Comm c;
    REFUSED(MPI_Comm_dup_with_info(MPI_COMM_WORLD, stale, &c), MPI_ERR_INFO, "was freed");
    REFUSED(MPI_Comm_dup_with_info(MPI_COMM_WORLD, (MPI_Info)other_type, &c), MPI_ERR_INFO, "is a datatype");
    for (int i = 0; i < 3; i++) REFUSED(MPI_Info_get_nkeys((MPI_Info)garbage[i], &n), MPI_ERR_INFO, "not an info");
}

static void noop(MPI_Comm *c, int *code, ...) { (void)c, (void)code; }

static void errhandlers(void) {
    MPI_Errhandler e, stale;
    OK(MPI_Comm_create_errhandler(noop, &e));
    stale = e;
    OK(MPI_Errhandler_free(&e)); /* set on nothing: gone */
    REFUSED(MPI_Comm_set_errhandler(other_comm, stale), MPI_ERR_ERRHANDLER, "was freed");
    static MPI_Errhandler old[CHURN];
    for (int i = 0; i < CHURN; i++) {
        OK(MPI_Comm_create_errhandler(noop, &e));
        old[i] = e;
        if (i < CHURN - 1) OK(MPI_Errhandler_free(&e));
    }
    for (int i = 0; i < CHURN - 1; i++) {
        REFUSED(MPI_Comm_set_errhandler(other_comm, old[i]), MPI_ERR_ERRHANDLER, "was freed");
        MPI_Errhandler x = old[i];
        REFUSED(MPI_Errhandler_free(&x), MPI_ERR_ERRHANDLER, "was freed");
    }
    OK(MPI_Errhandler_free(&e));
    REFUSED(MPI_Comm_set_errhandler(other_comm, (MPI_Errhandler)other_type), MPI_ERR_ERRHANDLER,
          "is a datatype, not an error handler");
    REFUSED(MPI_Comm_set_errhandler(other_comm, (MPI_Errhandler)MPI_INFO_ENV), MPI_ERR_ERRHANDLER,
          "predefined info object");
    for (int i = 0; i < 3; i++)
        REFUSED(MPI_Comm_set_errhandler(other_comm, (MPI_Errhandler)garbage[i]), MPI_ERR_ERRHANDLER, "not an error handler");
    /* the refusals left the communicator's handler alone */
    OK(MPI_Comm_get_errhandler(other_comm, &e));
    CHECK(e == MPI_ERRORS_RETURN, "a refused set changed the handler");
}

static void sum(void *in, void *inout, int *n, MPI_Datatype *t) {
    (void)t;
    for (int i = 0; i < *n; i++) ((int *)inout)[i] += ((int *)in)[i];
}

static void ops(void) {
    MPI_Op op, stale;
    int flag, a = 1, b = 2;
    OK(MPI_Op_create(sum, 1, &op));
    stale = op;
    OK(MPI_Op_free(&op));
    REFUSED(MPI_Op_commutative(stale, &flag), MPI_ERR_OP, "was freed");
    static MPI_Op old[CHURN];
    for (int i = 0; i < CHURN; i++) {
        OK(MPI_Op_create(sum, 1, &op));
        old[i] = op;
        if (i < CHURN - 1) OK(MPI_Op_free(&op));
    }
    for (int i = 0; i < CHURN - 1; i++) REFUSED(MPI_Reduce_local(&a, &b, 1, MPI_INT, old[i]), MPI_ERR_OP, "was freed");
    CHECK(b == 2, "a stale op reduced: %d", b);
    OK(MPI_Reduce_local(&a, &b, 1, MPI_INT, op));
    CHECK(b == 3, "the live op gave %d", b);
    OK(MPI_Op_free(&op));
    REFUSED(MPI_Allreduce(&a, &b, 1, MPI_INT, stale, MPI_COMM_WORLD), MPI_ERR_OP, "was freed");
    REFUSED(MPI_Op_commutative((MPI_Op)other_comm, &flag), MPI_ERR_OP, "is a communicator, not an operation");
    REFUSED(MPI_Reduce_local(&a, &b, 1, MPI_INT, (MPI_Op)MPI_INT), MPI_ERR_OP, "predefined datatype");
    for (int i = 0; i < 3; i++) REFUSED(MPI_Op_commutative((MPI_Op)garbage[i], &flag), MPI_ERR_OP, "not an operation");
}

static void requests(void) {
    MPI_Request r, stale;
    int v = 7, w = 0, flag;
    int peer = rank ^ 1;
    /* A completed request's copy is stale at once; the next request reuses its slot. */
    OK(MPI_Irecv(&w, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &r));
    stale = r;
    OK(MPI_Send(&v, 1, MPI_INT, peer, 1, MPI_COMM_WORLD));
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(r == MPI_REQUEST_NULL && w == 7, "the receive");
    OK(MPI_Irecv(&w, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &r)); /* live while the stale one is tried */
    MPI_Request x = stale;
    REFUSED(MPI_Test(&x, &flag, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "was freed");
    REFUSED(MPI_Request_get_status(stale, &flag, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "was freed");
    REFUSED(MPI_Cancel(&x), MPI_ERR_REQUEST, "was freed");
    OK(MPI_Send(&v, 1, MPI_INT, peer, 2, MPI_COMM_WORLD));
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));

    /* A persistent request freed. */
    OK(MPI_Send_init(&v, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &r));
    stale = r;
    OK(MPI_Request_free(&r));
    x = stale;
    REFUSED(MPI_Start(&x), MPI_ERR_REQUEST, "was freed");
    REFUSED(MPI_Request_free(&x), MPI_ERR_REQUEST, "was freed");

    x = (MPI_Request)other_comm;
    REFUSED(MPI_Wait(&x, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "is a communicator, not a request");
    REFUSED(MPI_Start(&x), MPI_ERR_REQUEST, "is a communicator, not a request");
    x = (MPI_Request)MPI_COMM_WORLD;
    REFUSED(MPI_Wait(&x, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "predefined communicator");
    for (int i = 0; i < 3; i++) {
        x = (MPI_Request)garbage[i];
        REFUSED(MPI_Test(&x, &flag, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "not a request");
    }
}

static void messages(void) {
    int v = 5, w = 0;
    if (rank == 1) {
        OK(MPI_Send(&v, 1, MPI_INT, 0, 9, MPI_COMM_WORLD));
        return;
    }
    MPI_Message m, stale;
    OK(MPI_Mprobe(1, 9, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE));
    stale = m;
    OK(MPI_Mrecv(&w, 1, MPI_INT, &m, MPI_STATUS_IGNORE));
    CHECK(m == MPI_MESSAGE_NULL && w == 5, "the matched receive");
    REFUSED(MPI_Mrecv(&w, 1, MPI_INT, &stale, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "was freed");
    m = (MPI_Message)other_comm;
    REFUSED(MPI_Mrecv(&w, 1, MPI_INT, &m, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "is a communicator, not a message");
    for (int i = 0; i < 3; i++) {
        m = (MPI_Message)garbage[i];
        REFUSED(MPI_Mrecv(&w, 1, MPI_INT, &m, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "not a message");
    }
}

static void sessions(void) {
    MPI_Session s, stale;
    int n;
    OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    stale = s;
    OK(MPI_Session_finalize(&s));
    REFUSED(MPI_Session_get_num_psets(stale, MPI_INFO_NULL, &n), MPI_ERR_SESSION, "was freed");
    OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    REFUSED(MPI_Session_get_num_psets(stale, MPI_INFO_NULL, &n), MPI_ERR_SESSION, "was freed");
    OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
    OK(MPI_Session_finalize(&s));
    REFUSED(MPI_Session_get_num_psets((MPI_Session)other_comm, MPI_INFO_NULL, &n), MPI_ERR_SESSION,
          "is a communicator, not a session");
    for (int i = 0; i < 3; i++)
        REFUSED(MPI_Session_get_num_psets((MPI_Session)garbage[i], MPI_INFO_NULL, &n), MPI_ERR_SESSION, "not a session");
}

static void wins(void) {
    enum { NWIN = 80 }; /* enough that freed windows' slots are reused */
    static int mem[NWIN];
    static MPI_Win old[NWIN];
    MPI_Win w;
    for (int i = 0; i < NWIN; i++) {
        OK(MPI_Win_create(&mem[i], sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w));
        old[i] = w;
        if (i < NWIN - 1) OK(MPI_Win_free(&w));
    }
    OK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
    /* The live window is locked, so the short way would take a Put to it: a stale
     * handle in its slot must not. */
    OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w));
    int one = 1;
    for (int i = 0; i < NWIN - 1; i++) {
        REFUSED(MPI_Put(&one, 1, MPI_INT, rank, 0, 1, MPI_INT, old[i]), MPI_ERR_WIN, "was freed");
        REFUSED(MPI_Win_flush(rank, old[i]), MPI_ERR_WIN, "was freed");
        REFUSED(MPI_Win_flush_all(old[i]), MPI_ERR_WIN, "was freed");
        REFUSED(MPI_Accumulate(&one, 1, MPI_INT, rank, 0, 1, MPI_INT, MPI_SUM, old[i]), MPI_ERR_WIN, "was freed");
    }
    OK(MPI_Win_flush(rank, w));
    OK(MPI_Win_unlock(rank, w));
    for (int i = 0; i < NWIN; i++) CHECK(mem[i] == 0, "a Put through a stale window handle wrote window %d", i);
    REFUSED(MPI_Win_fence(0, old[0]), MPI_ERR_WIN, "was freed");
    MPI_Win x = (MPI_Win)other_comm;
    REFUSED(MPI_Win_fence(0, x), MPI_ERR_WIN, "is a communicator, not a window");
    REFUSED(MPI_Put(&one, 1, MPI_INT, rank, 0, 1, MPI_INT, x), MPI_ERR_WIN, "is a communicator, not a window");
    REFUSED(MPI_Win_flush(rank, x), MPI_ERR_WIN, "is a communicator, not a window");
    REFUSED(MPI_Win_free(&x), MPI_ERR_WIN, "is a communicator, not a window");
    for (int i = 0; i < 3; i++) {
        REFUSED(MPI_Put(&one, 1, MPI_INT, rank, 0, 1, MPI_INT, (MPI_Win)garbage[i]), MPI_ERR_WIN, "not a window");
        REFUSED(MPI_Win_flush_local(rank, (MPI_Win)garbage[i]), MPI_ERR_WIN, "not a window");
    }
    OK(MPI_Win_free(&w));
}

/* Files: mpigo opens none, so no file handle is ever valid; another kind's handle
 * says so. */
static void files(void) {
    MPI_Errhandler e;
    REFUSED(MPI_File_get_errhandler((MPI_File)other_comm, &e), MPI_ERR_FILE, "is a communicator, not a file");
    REFUSED(MPI_File_set_errhandler((MPI_File)MPI_COMM_WORLD, MPI_ERRORS_RETURN), MPI_ERR_FILE, "predefined communicator");
    for (int i = 0; i < 3; i++) REFUSED(MPI_File_get_errhandler((MPI_File)garbage[i], &e), MPI_ERR_FILE, "not a file");
}

static void keyvals(void) {
    int k, stale, flag;
    void *v;
    OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k, NULL));
    stale = k;
    OK(MPI_Comm_free_keyval(&k));
    REFUSED(MPI_Comm_set_attr(other_comm, stale, &flag), MPI_ERR_KEYVAL, "was freed");
    static int old[CHURN];
    for (int i = 0; i < CHURN; i++) {
        OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k, NULL));
        old[i] = k;
        if (i < CHURN - 1) OK(MPI_Comm_free_keyval(&k));
    }
    OK(MPI_Comm_set_attr(other_comm, k, &rank));
    for (int i = 0; i < CHURN - 1; i++) {
        REFUSED(MPI_Comm_set_attr(other_comm, old[i], &flag), MPI_ERR_KEYVAL, "was freed");
        REFUSED(MPI_Comm_get_attr(other_comm, old[i], &v, &flag), MPI_ERR_KEYVAL, "was freed");
    }
    OK(MPI_Comm_get_attr(other_comm, k, &v, &flag));
    CHECK(flag && v == &rank, "the live keyval's attribute");
    OK(MPI_Comm_delete_attr(other_comm, k));
    OK(MPI_Comm_free_keyval(&k));
    REFUSED(MPI_Comm_set_attr(other_comm, (int)(intptr_t)other_comm, &flag), MPI_ERR_KEYVAL,
          "is a communicator, not a keyval");
    REFUSED(MPI_Comm_set_attr(other_comm, 0x12345, &flag), MPI_ERR_KEYVAL, "not a keyval");
    REFUSED(MPI_Comm_set_attr(other_comm, -7, &flag), MPI_ERR_KEYVAL, "not a keyval");
}

/* A call with no valid object raises on MPI_COMM_SELF's handler. */
static int self_calls, self_class;
static void on_self(MPI_Comm *c, int *code, ...) {
    (void)c;
    self_calls++;
    self_class = classof(*code);
}

static void raised_on_self(void) {
    MPI_Comm c, stale;
    int n;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    stale = c;
    OK(MPI_Comm_free(&c));
    MPI_Errhandler e;
    OK(MPI_Comm_create_errhandler(on_self, &e));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, e));
    REFUSED(MPI_Comm_size(stale, &n), MPI_ERR_COMM, "was freed");
    REFUSED(MPI_Type_size((MPI_Datatype)stale, &n), MPI_ERR_TYPE, "is a communicator, not a datatype");
    CHECK(self_calls == 2 && self_class == MPI_ERR_TYPE, "MPI_COMM_SELF's handler ran %d times, last class %d",
          self_calls, self_class);
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    OK(MPI_Errhandler_free(&e));
}

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &other_comm));
    OK(MPI_Type_dup(MPI_INT, &other_type));

    comms();
    types();
    groups();
    infos();
    errhandlers();
    ops();
    requests();
    messages();
    sessions();
    wins();
    files();
    keyvals();
    raised_on_self();

    OK(MPI_Type_free(&other_type));
    OK(MPI_Comm_free(&other_comm));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Finalize());
    if (rank == 0) printf("OK handles\n");
    return 0;
}
