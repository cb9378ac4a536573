/* published.c - a program built against the MPI 5.0 standard ABI as published, not
 * against mpigo's mpi.h: it declares the few types, values and procedures it uses
 * itself, as the standard gives them (§21.3.2 for the handle types, the "ABI value"
 * column of §22.1.1 for the values, §22.3 for the prototypes), so that what it passes
 * is what any standard-ABI program passes.
 *
 * With no argument it sets MPI_ERRORS_RETURN on MPI_COMM_WORLD and makes erroneous
 * calls, which must return their error codes; and it calls the attribute procedures
 * that the standard leaves out of the ABI but the MPI Forum's reference header and
 * MPICH's declare, as a program built against those may. With "fatal" or "abort" it sets
 * MPI_ERRORS_ARE_FATAL or MPI_ERRORS_ABORT and makes one, which must end the job: a
 * "RETURNED" line says it did not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct MPI_ABI_Comm *MPI_Comm;
typedef struct MPI_ABI_Datatype *MPI_Datatype;
typedef struct MPI_ABI_Errhandler *MPI_Errhandler;

#define MPI_COMM_WORLD       ((MPI_Comm)257)
#define MPI_COMM_SELF        ((MPI_Comm)258)
#define MPI_INT              ((MPI_Datatype)521)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)321)
#define MPI_ERRORS_ABORT     ((MPI_Errhandler)322)
#define MPI_ERRORS_RETURN    ((MPI_Errhandler)323)
#define MPI_SUCCESS          0
#define MPI_ERR_COUNT        2
#define MPI_ERR_RANK         6
#define MPI_MAX_ERROR_STRING 512
#define MPI_ABI_VERSION      1
#define MPI_ABI_SUBVERSION   0

int MPI_Init(int *argc, char ***argv);
int MPI_Finalize(void);
int MPI_Abi_get_version(int *abi_major, int *abi_minor);
int MPI_Comm_rank(MPI_Comm comm, int *rank);
int MPI_Comm_size(MPI_Comm comm, int *size);
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Error_class(int errorcode, int *errorclass);
int MPI_Error_string(int errorcode, char *string, int *resultlen);

/* Deprecated in MPI-2.0, out of the standard ABI (§21.2.1), in other ABI headers. */
typedef int(MPI_Copy_function)(MPI_Comm, int, void *, void *, void *, int *);
typedef int(MPI_Delete_function)(MPI_Comm, int, void *, void *);
#define MPI_NULL_COPY_FN   ((MPI_Copy_function *)0)
#define MPI_NULL_DELETE_FN ((MPI_Delete_function *)0)
int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state);
int MPI_Keyval_free(int *keyval);
int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val);
int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag);
int MPI_Attr_delete(MPI_Comm comm, int keyval);

#define FAIL(...)                                                                  \
    do {                                                                           \
        fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                       \
        fprintf(stderr, __VA_ARGS__);                                              \
        fprintf(stderr, "\n");                                                     \
        exit(3);                                                                   \
    } while (0)

/* returned checks that rc is an error code of class want, whose string names the call. */
static void returned(int rc, int want) {
    int cls, len;
    char s[MPI_MAX_ERROR_STRING];
    if (rc == MPI_SUCCESS) FAIL("the erroneous call succeeded");
    if (MPI_Error_class(rc, &cls) != MPI_SUCCESS || cls != want)
        FAIL("error code %d has class %d, want %d", rc, cls, want);
    if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS || strstr(s, "MPI_Send") == NULL)
        FAIL("the string of error code %d does not name MPI_Send: %s", rc, s);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "return";
    int major, minor, rank, size, x = 0;
    MPI_Errhandler eh;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) FAIL("MPI_Init");
    if (MPI_Abi_get_version(&major, &minor) != MPI_SUCCESS || major != MPI_ABI_VERSION ||
        minor != MPI_ABI_SUBVERSION)
        FAIL("MPI_Abi_get_version: %d.%d", major, minor);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh) != MPI_SUCCESS || eh != MPI_ERRORS_ARE_FATAL)
        FAIL("MPI_COMM_WORLD's error handler is %p, want MPI_ERRORS_ARE_FATAL", (void *)eh);

    if (strcmp(mode, "return") == 0) {
        if (MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) != MPI_SUCCESS)
            FAIL("MPI_Comm_set_errhandler(MPI_ERRORS_RETURN)");
        if (MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh) != MPI_SUCCESS || eh != MPI_ERRORS_RETURN)
            FAIL("MPI_Comm_get_errhandler gives %p, want MPI_ERRORS_RETURN", (void *)eh);
        returned(MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
        returned(MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);

        int key, flag = 0;
        void *got = NULL;
        if (MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &key, NULL) != MPI_SUCCESS ||
            MPI_Attr_put(MPI_COMM_WORLD, key, &x) != MPI_SUCCESS ||
            MPI_Attr_get(MPI_COMM_WORLD, key, &got, &flag) != MPI_SUCCESS || !flag || got != &x)
            FAIL("MPI_Keyval_create, MPI_Attr_put, MPI_Attr_get: flag %d, %p for %p", flag, got, (void *)&x);
        if (MPI_Attr_delete(MPI_COMM_WORLD, key) != MPI_SUCCESS ||
            MPI_Attr_get(MPI_COMM_WORLD, key, &got, &flag) != MPI_SUCCESS || flag ||
            MPI_Keyval_free(&key) != MPI_SUCCESS)
            FAIL("MPI_Attr_delete, MPI_Keyval_free: flag %d", flag);
        MPI_Finalize();
        if (rank == 0) printf("OK published\n");
        return 0;
    }
    eh = strcmp(mode, "abort") == 0 ? MPI_ERRORS_ABORT : MPI_ERRORS_ARE_FATAL;
    if (MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh) != MPI_SUCCESS) FAIL("MPI_Comm_set_errhandler(%s)", mode);
    int rc = MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    printf("RETURNED %d from MPI_Send under %s\n", rc, mode);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
