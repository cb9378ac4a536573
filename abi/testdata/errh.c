/* errh.c - a C error handler, MPI_ERRORS_RETURN, error strings, and a procedure
 * mpigo does not implement: MPI_ERR_UNSUPPORTED_OPERATION naming it, never a crash. */
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
    CHECK(calls == 2 && rc == MPI_ERR_COUNT, "negative count gave %d", rc);
    OK(MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER));
    CHECK(calls == 3 && last == MPI_ERR_OTHER, "call_errhandler");
    OK(MPI_Errhandler_free(&eh));
    CHECK(eh == MPI_ERRHANDLER_NULL, "Errhandler_free");

    char s[MPI_MAX_ERROR_STRING];
    int len;
    OK(MPI_Error_string(MPI_ERR_TRUNCATE, s, &len));
    CHECK(strstr(s, "MPI_ERR_TRUNCATE") && len == (int)strlen(s), "%s", s);

    /* an unimplemented procedure: on MPI_COMM_SELF's handler (no communicator) */
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Win win;
    rc = MPI_Win_create(&x, sizeof x, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    CHECK(rc == MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Win_create gave %d", rc);
    OK(MPI_Error_string(rc, s, &len));
    CHECK(strstr(s, "MPI_Win_create") != NULL, "the error string names the call: %s", s);
    if (rank == 0) printf("unsupported: %s\n", s);
    rc = MPI_Comm_spawn("x", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &dup, MPI_ERRCODES_IGNORE);
    CHECK(rc == MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Comm_spawn gave %d", rc);
    OK(MPI_Error_string(rc, s, &len));
    CHECK(strstr(s, "MPI_Comm_spawn") != NULL, "%s", s);
    OK(MPI_Finalize());
    if (rank == 0) printf("OK errh\n");
    return 0;
}
