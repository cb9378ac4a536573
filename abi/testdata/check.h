/* check.h - the assertion of mpigo's C ABI tests: a failed check prints where and
 * what, and ends the job with exit code 3. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...) CHECK_AS(#cond, cond, __VA_ARGS__)

/* CHECK_AS is CHECK that names the check what. */
#define CHECK_AS(what, cond, ...)                                               \
    do {                                                                        \
        if (!(cond)) {                                                          \
            int r_ = -1;                                                        \
            int init_ = 0;                                                      \
            MPI_Initialized(&init_);                                            \
            if (init_) MPI_Comm_rank(MPI_COMM_WORLD, &r_);                      \
            fprintf(stderr, "FAIL rank %d %s:%d: %s: ", r_, __FILE__, __LINE__, what); \
            fprintf(stderr, __VA_ARGS__);                                       \
            fprintf(stderr, "\n");                                              \
            fflush(stderr);                                                     \
            if (init_) MPI_Abort(MPI_COMM_WORLD, 3);                            \
            exit(3);                                                            \
        }                                                                       \
    } while (0)

/* check_err_ is rc's error string, for the failure's message. */
static inline const char *check_err_(int rc) {
    static char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    if (MPI_Error_string(rc, s, &n) != MPI_SUCCESS) s[0] = 0;
    return s;
}

/* OK checks that call succeeds, and otherwise says what it returned. */
#define OK(call)                                                                \
    do {                                                                        \
        int ok_ = (call);                                                       \
        CHECK_AS(#call, ok_ == MPI_SUCCESS, "returned %d: %s", ok_, check_err_(ok_)); \
    } while (0)

/* FAILS checks that call returns an error of class cls. */
#define FAILS(call, cls)                                                        \
    do {                                                                        \
        int rc_ = (call), class_ = MPI_SUCCESS;                                 \
        if (rc_ != MPI_SUCCESS) MPI_Error_class(rc_, &class_);                  \
        CHECK(class_ == (cls), "returned %d (class %d), want %s", rc_, class_, #cls); \
    } while (0)

/* mpigo_short_fallbacks is how many calls the C library has handed to their Go halves
 * (mpigo's own, for the tests of its short ways in C). */
extern long mpigo_short_fallbacks(void);

/* CALLS runs the statement and sets n to the calls it handed to Go. */
#define CALLS(n, stmt)                      \
    do {                                    \
        long f0_ = mpigo_short_fallbacks(); \
        stmt;                               \
        n = mpigo_short_fallbacks() - f0_;  \
    } while (0)
