/* errshow.h - the error printing of the C ABI tests of error strings (errtext.c,
 * largenames.c): show prints a call's error as "ERR <call> <MPI_Error_string>", or
 * "NOERR <call>" and counts a failure when the call succeeded. */
#include <mpi.h>
#include <stdio.h>

static int failures;

static void show(int rc, const char *call) {
    char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    if (rc == MPI_SUCCESS) {
        printf("NOERR %s\n", call);
        failures++;
        return;
    }
    MPI_Error_string(rc, s, &n);
    printf("ERR %s %s\n", call, s);
}
