/* badctor.c - a collective constructor whose arguments are bad at one rank only
 * fails at every rank, never leaving the others waiting in it: rank 1 passes a NULL
 * output (or another bad argument) and gets its own error; rank 0, whose arguments
 * are good, gets an error of the same class that names rank 1. Covered: the
 * communicator constructors (dup, dup_with_info, idup, split, split_type, create,
 * create_group, the intercommunicator's create and merge, the constructors from
 * groups), MPI_Comm_accept, _connect and _spawn, and the window constructors. After each a
 * barrier shows that both ranks go
 * on; creations refused many times over leave no context id taken. Runs on 2
 * ranks. */
#include <string.h>
#include "check.h"

static int rank;

/* BOTH_FAIL runs a constructor whose arguments are good at rank 0 and bad at rank 1,
 * and checks that it returns an error of class cls at both; rank 0's names rank 1 of
 * MPI_COMM_WORLD (BOTH_FAIL_NAMING: as who). */
#define BOTH_FAIL(call, cls) BOTH_FAIL_NAMING(call, cls, "rank 1 passed")
#define BOTH_FAIL_NAMING(call, cls, who)                                                      \
    do {                                                                                      \
        int rc_ = (call), class_ = MPI_SUCCESS;                                               \
        if (rc_ != MPI_SUCCESS) MPI_Error_class(rc_, &class_);                                \
        CHECK_AS(#call, class_ == (cls), "returned %d (class %d), want %s", rc_, class_, #cls); \
        if (rank == 0) {                                                                      \
            const char *s_ = check_err_(rc_);                                                 \
            CHECK_AS(#call, strstr(s_, who) != NULL, "error string \"%s\" does not say " who, s_); \
        }                                                                                     \
        OK(MPI_Barrier(MPI_COMM_WORLD));                                                      \
    } while (0)

/* out is where rank 0 writes a new communicator; rank 1 passes NULL. */
#define OUT(p) (rank == 0 ? (p) : NULL)

static void communicators(void) {
    MPI_Comm c = MPI_COMM_NULL;
    BOTH_FAIL(MPI_Comm_dup(MPI_COMM_WORLD, OUT(&c)), MPI_ERR_ARG);
    CHECK(c == MPI_COMM_NULL, "a failed MPI_Comm_dup wrote a communicator");
    BOTH_FAIL(MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, OUT(&c)), MPI_ERR_ARG);
    BOTH_FAIL(MPI_Comm_split(MPI_COMM_WORLD, 0, 0, OUT(&c)), MPI_ERR_ARG);
    BOTH_FAIL(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : -5, 0, &c), MPI_ERR_ARG);
    BOTH_FAIL(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, OUT(&c)), MPI_ERR_ARG);
    BOTH_FAIL(MPI_Comm_split_type(MPI_COMM_WORLD, rank == 0 ? MPI_COMM_TYPE_SHARED : 12345, 0, MPI_INFO_NULL, &c),
              MPI_ERR_ARG);

    MPI_Group world;
    OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    BOTH_FAIL(MPI_Comm_create(MPI_COMM_WORLD, world, OUT(&c)), MPI_ERR_ARG);
    BOTH_FAIL(MPI_Comm_create(MPI_COMM_WORLD, rank == 0 ? world : MPI_GROUP_NULL, &c), MPI_ERR_GROUP);
    BOTH_FAIL(MPI_Comm_create_group(MPI_COMM_WORLD, world, 5, OUT(&c)), MPI_ERR_ARG);
    BOTH_FAIL(MPI_Comm_create_from_group(world, "badctor", MPI_INFO_NULL, MPI_ERRORS_RETURN, OUT(&c)), MPI_ERR_ARG);

    MPI_Comm half, inter, merged;
    MPI_Group mine, other;
    OK(MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &half));
    OK(MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN));
    /* The others name rank 1 of MPI_COMM_WORLD by its rank in its own group. */
    BOTH_FAIL_NAMING(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - rank, 9, OUT(&inter)), MPI_ERR_ARG,
                     "rank 0 of the other group");
    OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - rank, 9, &inter));
    OK(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
    BOTH_FAIL_NAMING(MPI_Intercomm_merge(inter, rank, OUT(&merged)), MPI_ERR_ARG, "rank 0 of the other group");
    OK(MPI_Intercomm_merge(inter, rank, &merged)); /* the failures took no step out of line */
    int n = 0;
    OK(MPI_Comm_size(merged, &n));
    CHECK(n == 2, "the merged communicator has %d ranks", n);
    OK(MPI_Comm_group(half, &mine));
    OK(MPI_Comm_remote_group(inter, &other));
    BOTH_FAIL_NAMING(MPI_Intercomm_create_from_groups(mine, 0, other, 0, "badctor", MPI_INFO_NULL,
                                                      MPI_ERRORS_RETURN, OUT(&c)),
                     MPI_ERR_ARG, "rank 0 of the other group");
    OK(MPI_Group_free(&mine));
    OK(MPI_Group_free(&other));
    OK(MPI_Comm_free(&merged));
    OK(MPI_Comm_free(&inter));
    OK(MPI_Comm_free(&half));
    OK(MPI_Group_free(&world));

    /* A nonblocking duplication: rank 1 is refused at the call, rank 0 at completion. */
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = MPI_Comm_idup(MPI_COMM_WORLD, OUT(&c), &req);
    if (rank == 1) {
        int cls;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_ARG, "MPI_Comm_idup with a NULL newcomm returned class %d", cls);
    } else {
        OK(rc);
        int cls;
        MPI_Error_class(MPI_Wait(&req, MPI_STATUS_IGNORE), &cls);
        CHECK(cls == MPI_ERR_ARG, "rank 0's MPI_Comm_idup completed with class %d, want MPI_ERR_ARG", cls);
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));

    /* Each refused creation released what it agreed: more than there are context ids. */
    for (int i = 0; i < 5000; i++) {
        int r = MPI_Comm_dup(MPI_COMM_WORLD, OUT(&c));
        CHECK(r != MPI_SUCCESS, "round %d: MPI_Comm_dup succeeded with rank 1's NULL", i);
    }
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    OK(MPI_Comm_free(&c));
}

/* MPI_Comm_accept and _connect between the two ranks, each on MPI_COMM_SELF: one
 * side's NULL newcomm lets the connection be made and then fails it on both sides.
 * Then MPI_Comm_spawn with rank 1's NULL intercomm. */
static void connections(void) {
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm c = MPI_COMM_NULL;
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    for (int nuller = 1; nuller >= 0; nuller--) { /* the connector's NULL, then the acceptor's */
        if (rank == 0) OK(MPI_Open_port(MPI_INFO_NULL, port));
        OK(MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD));
        MPI_Comm *out = rank == nuller ? NULL : &c;
        int rc = rank == 0 ? MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, out)
                           : MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, out);
        int cls = MPI_SUCCESS;
        if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_ARG, "connection with rank %d's NULL newcomm: class %d", nuller, cls);
        const char *s = check_err_(rc);
        const char *want = rank == nuller ? "newcomm is NULL" : "rank 0 of the other group";
        CHECK(strstr(s, want) != NULL, "connection with rank %d's NULL newcomm: \"%s\" does not say %s", nuller, s, want);
        CHECK(c == MPI_COMM_NULL, "a failed connection wrote a communicator");
        OK(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0) OK(MPI_Close_port(port));
    }
    /* A spawn: the members agree on their arguments before anything starts. */
    MPI_Comm inter = MPI_COMM_WORLD;
    BOTH_FAIL(MPI_Comm_spawn("true", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, OUT(&inter),
                             MPI_ERRCODES_IGNORE),
              MPI_ERR_ARG);
    CHECK(rank == 1 || inter == MPI_COMM_NULL, "a failed spawn gave %s", "a communicator");
}

static void windows(void) {
    MPI_Win w = MPI_WIN_NULL;
    int buf[4];
    void *base;
    BOTH_FAIL(MPI_Win_create(buf, sizeof buf, 1, MPI_INFO_NULL, MPI_COMM_WORLD, rank == 0 ? &w : NULL), MPI_ERR_ARG);
    BOTH_FAIL(MPI_Win_create(buf, rank == 0 ? (MPI_Aint)sizeof buf : -1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w),
              MPI_ERR_SIZE);
    BOTH_FAIL(MPI_Win_allocate(16, 1, MPI_INFO_NULL, MPI_COMM_WORLD, rank == 0 ? (void *)&base : NULL, &w), MPI_ERR_ARG);
    BOTH_FAIL(MPI_Win_allocate_shared(16, rank == 0 ? 1 : 0, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w), MPI_ERR_DISP);
    BOTH_FAIL(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, rank == 0 ? &w : NULL), MPI_ERR_ARG);
    CHECK(w == MPI_WIN_NULL, "a failed window creation wrote a window");
    OK(MPI_Win_create(buf, sizeof buf, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    OK(MPI_Win_free(&w));
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    communicators();
    connections();
    windows();
    MPI_Finalize();
    if (rank == 0) printf("OK badctor\n");
    return 0;
}
