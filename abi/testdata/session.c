/* session.c - a program with sessions only (no MPI_Init): process sets, their info
 * and groups, a communicator made from a group, and errors through the session's
 * handler; the file error handlers through MPI_FILE_NULL. */
#include <string.h>
#include "check.h"

static int scalls;
static MPI_Session slast;
static void shandler(MPI_Session *s, int *code, ...) {
    (void)code;
    scalls++;
    slast = *s;
}

static int fcalls, fcode;
static MPI_File flast;
static void fhandler(MPI_File *f, int *code, ...) {
    fcalls++;
    flast = *f;
    fcode = *code;
}

static int ccalls;
static void chandler(MPI_Comm *c, int *code, ...) {
    (void)c;
    (void)code;
    ccalls++;
}

static int classof(int rc) {
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

static void info_is(MPI_Info in, const char *key, const char *want) {
    char v[256];
    int len = sizeof v, flag = 0;
    OK(MPI_Info_get_string(in, key, &len, v, &flag));
    CHECK(flag && strcmp(v, want) == 0, "info %s = %s (flag %d), want %s", key, flag ? v : "", flag, want);
}

int main(void) {
    MPI_Errhandler seh;
    OK(MPI_Session_create_errhandler(shandler, &seh));
    MPI_Info req;
    OK(MPI_Info_create(&req));
    OK(MPI_Info_set(req, "thread_level", "MPI_THREAD_SERIALIZED"));
    MPI_Session s;
    OK(MPI_Session_init(req, seh, &s));
    OK(MPI_Info_free(&req));
    int flag = 1;
    OK(MPI_Initialized(&flag));
    CHECK(!flag, "a session made MPI_Initialized true");

    int n;
    OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
    CHECK(n == 2, "%d process sets", n);
    const char *names[] = {"mpi://WORLD", "mpi://SELF"};
    for (int i = 0; i < n; i++) {
        int len = 0;
        OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
        CHECK(len == (int)strlen(names[i]) + 1, "pset %d: length %d", i, len);
        char buf[64];
        len = sizeof buf;
        OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, buf));
        CHECK(strcmp(buf, names[i]) == 0, "pset %d is %s", i, buf);
    }
    char shortbuf[4];
    int slen = sizeof shortbuf;
    OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &slen, shortbuf));
    CHECK(strcmp(shortbuf, "mpi") == 0, "truncated name %s", shortbuf);

    MPI_Info in;
    OK(MPI_Session_get_info(s, &in));
    info_is(in, "mpi_thread_support_level", "MPI_THREAD_SERIALIZED");
    OK(MPI_Info_free(&in));

    MPI_Group g;
    OK(MPI_Group_from_session_pset(s, "mpi://world", &g)); /* any case */
    int gsize;
    OK(MPI_Group_size(g, &gsize));
    OK(MPI_Session_get_pset_info(s, "mpi://WORLD", &in));
    char want[16];
    snprintf(want, sizeof want, "%d", gsize);
    info_is(in, "mpi_size", want);
    OK(MPI_Info_free(&in));

    MPI_Comm c;
    OK(MPI_Comm_create_from_group(g, "org.mpigo.test.c", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    int rank, size;
    OK(MPI_Comm_rank(c, &rank));
    OK(MPI_Comm_size(c, &size));
    CHECK(size == gsize, "size %d of a group of %d", size, gsize);
    MPI_Errhandler got;
    OK(MPI_Comm_get_errhandler(c, &got));
    CHECK(got == MPI_ERRORS_RETURN, "the new communicator's handler");
    long sum = 0, mine = rank + 1;
    OK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, c));
    CHECK(sum == (long)size * (size + 1) / 2, "Allreduce gave %ld", sum);
    if (size > 1) {
        int to = (rank + 1) % size, from = (rank + size - 1) % size, x = -1;
        OK(MPI_Sendrecv(&rank, 1, MPI_INT, to, 5, &x, 1, MPI_INT, from, 5, c, MPI_STATUS_IGNORE));
        CHECK(x == from, "got %d from %d", x, from);
    }

    /* errors of the session's calls go to its handler */
    MPI_Group g2;
    int rc = MPI_Group_from_session_pset(s, "mpi://nowhere", &g2);
    CHECK(classof(rc) == MPI_ERR_ARG && scalls == 1 && slast == s, "unknown pset: class %d, %d calls", classof(rc), scalls);
    char buf[64];
    int len = sizeof buf;
    rc = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 2, &len, buf);
    CHECK(classof(rc) == MPI_ERR_ARG && scalls == 2, "pset 2: class %d", classof(rc));
    OK(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
    CHECK(scalls == 3, "Session_call_errhandler");
    MPI_Errhandler feh;
    OK(MPI_File_create_errhandler(fhandler, &feh));
    rc = MPI_Session_set_errhandler(s, feh);
    CHECK(classof(rc) == MPI_ERR_ERRHANDLER && scalls == 4, "a file handler on a session: class %d", classof(rc));
    OK(MPI_Session_get_errhandler(s, &got));
    CHECK(got == seh, "Session_get_errhandler");
    OK(MPI_Errhandler_free(&got));

    /* the handler given to Comm_create_from_group serves its errors */
    char tag[MPI_MAX_STRINGTAG_LEN + 1];
    memset(tag, 'x', MPI_MAX_STRINGTAG_LEN);
    tag[MPI_MAX_STRINGTAG_LEN] = 0;
    MPI_Errhandler ceh;
    OK(MPI_Comm_create_errhandler(chandler, &ceh));
    MPI_Comm bad;
    rc = MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, ceh, &bad);
    CHECK(classof(rc) == MPI_ERR_ARG && ccalls == 1, "a string tag too long: class %d, %d calls", classof(rc), ccalls);
    OK(MPI_Comm_create_from_group(MPI_GROUP_EMPTY, "empty", MPI_INFO_NULL, ceh, &bad));
    CHECK(bad == MPI_COMM_NULL, "MPI_GROUP_EMPTY gave a communicator");

    /* files: MPI_FILE_NULL's handler, MPI_ERRORS_RETURN at first */
    OK(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
    CHECK(got == MPI_ERRORS_RETURN, "files start with MPI_ERRORS_RETURN");
    OK(MPI_File_set_errhandler(MPI_FILE_NULL, feh));
    OK(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
    CHECK(got == feh, "File_get_errhandler");
    OK(MPI_Errhandler_free(&got));
    OK(MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_IO));
    CHECK(fcalls == 1 && flast == MPI_FILE_NULL && fcode == MPI_ERR_IO, "File_call_errhandler: %d calls", fcalls);
    rc = MPI_File_set_errhandler((MPI_File)0x5000, MPI_ERRORS_RETURN);
    CHECK(classof(rc) == MPI_ERR_FILE && fcalls == 2, "a file that is not open: class %d, %d calls", classof(rc), fcalls);
    rc = MPI_File_set_errhandler(MPI_FILE_NULL, seh);
    CHECK(classof(rc) == MPI_ERR_ERRHANDLER && fcalls == 3, "a session handler on files: class %d", classof(rc));
    rc = MPI_Comm_set_errhandler(c, feh);
    CHECK(classof(rc) == MPI_ERR_ERRHANDLER, "a file handler on a communicator: class %d", classof(rc));
    OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    OK(MPI_Errhandler_free(&feh));
    OK(MPI_Errhandler_free(&ceh));

    /* buffered sends on a communicator from the session use the session's buffer */
    static char sbuf[1 << 16];
    OK(MPI_Session_attach_buffer(s, sbuf, sizeof sbuf));
    rc = MPI_Session_attach_buffer(s, sbuf, sizeof sbuf);
    CHECK(classof(rc) == MPI_ERR_BUFFER, "a second Session_attach_buffer: class %d", classof(rc));
    MPI_Comm d;
    OK(MPI_Comm_dup(c, &d));
    char msg[1000] = {0};
    if (size > 1) {
        if (rank == 0) {
            OK(MPI_Bsend(msg, sizeof msg, MPI_CHAR, 1, 9, c));
            OK(MPI_Bsend(msg, sizeof msg, MPI_CHAR, 1, 9, d));
        } else if (rank == 1) {
            OK(MPI_Recv(msg, sizeof msg, MPI_CHAR, 0, 9, c, MPI_STATUS_IGNORE));
            OK(MPI_Recv(msg, sizeof msg, MPI_CHAR, 0, 9, d, MPI_STATUS_IGNORE));
        }
    }
    OK(MPI_Session_flush_buffer(s));
    MPI_Request freq;
    OK(MPI_Session_iflush_buffer(s, &freq));
    OK(MPI_Wait(&freq, MPI_STATUS_IGNORE));
    void *addr;
    int asize;
    OK(MPI_Session_detach_buffer(s, &addr, &asize));
    CHECK(addr == sbuf && asize == (int)sizeof sbuf, "Session_detach_buffer gave %p %d", addr, asize);
    if (size > 1 && rank == 0) {
        rc = MPI_Bsend(msg, sizeof msg, MPI_CHAR, 1, 10, c);
        CHECK(classof(rc) == MPI_ERR_BUFFER, "Bsend with no buffer: class %d", classof(rc));
    }
    OK(MPI_Session_attach_buffer(s, MPI_BUFFER_AUTOMATIC, 0));
    OK(MPI_Session_detach_buffer(s, &addr, &asize));
    CHECK(addr == MPI_BUFFER_AUTOMATIC, "detaching an automatic buffer gave %p", addr);
    OK(MPI_Comm_free(&d));

    OK(MPI_Comm_free(&c));
    OK(MPI_Group_free(&g));
    OK(MPI_Errhandler_free(&seh));
    OK(MPI_Session_finalize(&s));
    CHECK(s == MPI_SESSION_NULL, "Session_finalize left the handle");
    OK(MPI_Finalized(&flag));
    CHECK(!flag, "MPI_Finalized speaks of the world model only");

    /* MPI idles; a new session starts it again */
    OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    OK(MPI_Comm_create_from_group(g, "again", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    sum = 0;
    OK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, c));
    CHECK(sum == (long)size * (size + 1) / 2, "Allreduce after a new Session_init gave %ld", sum);
    OK(MPI_Comm_free(&c));
    OK(MPI_Group_free(&g));
    OK(MPI_Session_finalize(&s));
    if (rank == 0) printf("OK session\n");
    return 0;
}
