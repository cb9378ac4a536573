/* errh.c - a C error handler (freed while set, it keeps serving), MPI_ERRORS_RETURN,
 * error strings naming the call and the class, on a communicator's handler and on
 * MPI_FILE_NULL's. */
#include <string.h>
#include "check.h"

static int calls, last;
static MPI_Comm last_comm;

static void handler(MPI_Comm *comm, int *code, ...) {
    calls++;
    last = *code;
    last_comm = *comm;
}

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Errhandler eh, got;
    OK(MPI_Comm_create_errhandler(handler, &eh));
    MPI_Comm dup;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    OK(MPI_Comm_set_errhandler(dup, eh));
    OK(MPI_Comm_get_errhandler(dup, &got));
    CHECK(got == eh, "get_errhandler");
    int x = 0;
    int rc = MPI_Send(&x, 1, MPI_INT, 99, 0, dup);
    int cls;
    OK(MPI_Error_class(rc, &cls));
    CHECK(calls == 1 && last == rc && cls == MPI_ERR_RANK && last_comm == dup, "handler: calls %d code %d", calls, rc);
    rc = MPI_Send(&x, -1, MPI_INT, 0, 0, dup);
    OK(MPI_Error_class(rc, &cls));
    CHECK(calls == 2 && cls == MPI_ERR_COUNT && rc != MPI_ERR_COUNT, "negative count gave %d", rc);
    /* each error has a code of its own, whose string is that call's message */
    char s1[MPI_MAX_ERROR_STRING];
    int l1;
    OK(MPI_Error_string(rc, s1, &l1));
    CHECK(strstr(s1, "MPI_ERR_COUNT") && strstr(s1, "MPI_Send") && strstr(s1, "-1"), "the code's string: %s", s1);
    OK(MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER));
    CHECK(calls == 3 && last == MPI_ERR_OTHER, "call_errhandler");
    OK(MPI_Errhandler_free(&got)); /* the reference Comm_get_errhandler gave */
    MPI_Errhandler copy = eh;
    OK(MPI_Errhandler_free(&eh));
    CHECK(eh == MPI_ERRHANDLER_NULL, "Errhandler_free");

    /* freed, the handler still serves the communicator it is set on, and those made
     * from it; a handle to it given back by get is a reference of its own */
    MPI_Comm dup2;
    OK(MPI_Comm_dup(dup, &dup2));
    rc = MPI_Send(&x, 1, MPI_INT, 99, 0, dup2);
    CHECK(calls == 4 && last == rc && last_comm == dup2, "the freed handler on a duplicate: calls %d", calls);
    int ecls;
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN)); /* errors with no communicator */
    rc = MPI_Errhandler_free(&copy); /* every reference the program had is freed */
    OK(MPI_Error_class(rc, &ecls));
    CHECK(ecls == MPI_ERR_ERRHANDLER, "freeing a freed handler gave class %d", ecls);
    OK(MPI_Comm_get_errhandler(dup, &got));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, got));
    rc = MPI_Send(&x, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
    CHECK(calls == 5 && last_comm == MPI_COMM_WORLD, "the handler given back, set on MPI_COMM_WORLD: calls %d", calls);
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    OK(MPI_Errhandler_free(&got));
    OK(MPI_Comm_free(&dup2));
    rc = MPI_Comm_set_errhandler(dup, MPI_ERRHANDLER_NULL);
    OK(MPI_Error_class(rc, &ecls));
    CHECK(calls == 6 && ecls == MPI_ERR_ERRHANDLER, "MPI_ERRHANDLER_NULL: class %d, calls %d", ecls, calls);
    /* a predefined handler may be freed: nothing happens */
    MPI_Errhandler pre = MPI_ERRORS_RETURN;
    OK(MPI_Errhandler_free(&pre));
    CHECK(pre == MPI_ERRHANDLER_NULL, "freeing MPI_ERRORS_RETURN");

    char s[MPI_MAX_ERROR_STRING];
    int len;
    OK(MPI_Error_string(MPI_ERR_TRUNCATE, s, &len));
    CHECK(strstr(s, "MPI_ERR_TRUNCATE") && len == (int)strlen(s), "%s", s);

    /* a call of the I/O chapter with no file: on MPI_FILE_NULL's handler
     * (MPI_ERRORS_RETURN), its string naming the call and the class */
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    rc = MPI_Register_datarep("x", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, NULL, NULL);
    OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_ARG, "MPI_Register_datarep with no extent function gave %d", rc);
    OK(MPI_Error_string(rc, s, &len));
    CHECK(strstr(s, "MPI_Register_datarep") != NULL, "the error string names the call: %s", s);
    if (rank == 0) printf("file null: %s\n", s);
    /* a communicator's call goes to its handler, and its string names the call */
    rc = MPI_Comm_spawn("x", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 1, MPI_COMM_SELF, &dup, MPI_ERRCODES_IGNORE);
    OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_ROOT, "MPI_Comm_spawn from root 1 of MPI_COMM_SELF gave %d", rc);
    OK(MPI_Error_string(rc, s, &len));
    CHECK(strstr(s, "MPI_Comm_spawn") != NULL, "%s", s);
    OK(MPI_Finalize());
    if (rank == 0) printf("OK errh\n");
    return 0;
}
