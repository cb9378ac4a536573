/* check.h - the assertion of mpigo's C ABI tests: a failed check prints where and
 * what, and ends the job with exit code 3. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            int r_ = -1;                                                        \
            int init_ = 0;                                                      \
            MPI_Initialized(&init_);                                            \
            if (init_) MPI_Comm_rank(MPI_COMM_WORLD, &r_);                      \
            fprintf(stderr, "FAIL rank %d %s:%d: %s: ", r_, __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                       \
            fprintf(stderr, "\n");                                              \
            fflush(stderr);                                                     \
            if (init_) MPI_Abort(MPI_COMM_WORLD, 3);                            \
            exit(3);                                                            \
        }                                                                       \
    } while (0)

#define OK(call) CHECK((call) == MPI_SUCCESS, "returned an error")

/* FAILS checks that call returns an error of class cls. */
#define FAILS(call, cls)                                                        \
    do {                                                                        \
        int rc_ = (call), class_ = MPI_SUCCESS;                                 \
        if (rc_ != MPI_SUCCESS) MPI_Error_class(rc_, &class_);                  \
        CHECK(class_ == (cls), "returned %d (class %d), want %s", rc_, class_, #cls); \
    } while (0)
