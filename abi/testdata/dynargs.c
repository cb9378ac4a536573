/* dynargs.c - the dynamic-process procedures' bad arguments (MPI 4.1 chapter 11), on 2
 * ranks: each an error of the class MPI names, at every process alike where the
 * argument is significant at every process; the root's own (significant at the root
 * only) the root's error and an error at the other rank; never a crash or a hang. */
#include <string.h>
#include "check.h"

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int rank, size;
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_Comm inter = MPI_COMM_NULL, out = MPI_COMM_WORLD;
    OK(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, 1 - rank, 7, &inter));
    OK(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
    int codes[2] = {-1, -1};

    /* a job that was not spawned has no parent */
    MPI_Comm parent = MPI_COMM_WORLD;
    OK(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "MPI_Comm_get_parent of a job not spawned");
    FAILS(MPI_Comm_get_parent(NULL), MPI_ERR_ARG);

    /* spawn: the communicator, the root and intercomm are significant everywhere */
    FAILS(MPI_Comm_spawn("x", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_NULL, &out, codes), MPI_ERR_COMM);
    FAILS(MPI_Comm_spawn("x", MPI_ARGV_NULL, 1, MPI_INFO_NULL, size, MPI_COMM_WORLD, &out, codes), MPI_ERR_ROOT);
    FAILS(MPI_Comm_spawn("x", MPI_ARGV_NULL, 1, MPI_INFO_NULL, -1, MPI_COMM_WORLD, &out, codes), MPI_ERR_ROOT);
    FAILS(MPI_Comm_spawn("x", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, inter, &out, codes), MPI_ERR_COMM);
    FAILS(MPI_Comm_spawn("x", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, NULL, codes), MPI_ERR_ARG);
    CHECK(codes[0] == -1 && codes[1] == -1, "array_of_errcodes written by a call that failed its checks");
    char *cmds[1] = {"x"};
    int np[1] = {1};
    MPI_Info infos[1] = {MPI_INFO_NULL};
    FAILS(MPI_Comm_spawn_multiple(1, cmds, MPI_ARGVS_NULL, np, infos, size, MPI_COMM_WORLD, &out, MPI_ERRCODES_IGNORE), MPI_ERR_ROOT);
    FAILS(MPI_Comm_spawn_multiple(1, cmds, MPI_ARGVS_NULL, np, infos, 0, inter, &out, MPI_ERRCODES_IGNORE), MPI_ERR_COMM);
    CHECK(out == MPI_COMM_WORLD, "intercomm written by a call that failed its checks");

    /* accept and connect: the same */
    char port[MPI_MAX_PORT_NAME] = "";
    FAILS(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_NULL, &out), MPI_ERR_COMM);
    FAILS(MPI_Comm_accept(port, MPI_INFO_NULL, size, MPI_COMM_WORLD, &out), MPI_ERR_ROOT);
    FAILS(MPI_Comm_connect(port, MPI_INFO_NULL, -1, MPI_COMM_WORLD, &out), MPI_ERR_ROOT);
    FAILS(MPI_Comm_connect(port, MPI_INFO_NULL, 0, inter, &out), MPI_ERR_COMM);
    FAILS(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);

    /* the root's own arguments: its error, and an error (not a wait) at the other rank */
    MPI_Info bad = (MPI_Info)(intptr_t)12345;
    int rc;
#define ROOTFAILS(call, cls0)                                                   \
    do {                                                                        \
        out = MPI_COMM_WORLD;                                                   \
        rc = (call);                                                            \
        if (rank == 0) FAILS(rc, cls0);                                         \
        else CHECK(rc != MPI_SUCCESS, "%s succeeded at rank 1", #call);         \
        CHECK(out == MPI_COMM_NULL, "%s gave a communicator", #call);           \
    } while (0)
    ROOTFAILS(MPI_Comm_spawn("x", MPI_ARGV_NULL, 0, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &out, MPI_ERRCODES_IGNORE), MPI_ERR_ARG);
    ROOTFAILS(MPI_Comm_spawn(NULL, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &out, MPI_ERRCODES_IGNORE), MPI_ERR_ARG);
    ROOTFAILS(MPI_Comm_spawn("x", MPI_ARGV_NULL, 1, bad, 0, MPI_COMM_WORLD, &out, MPI_ERRCODES_IGNORE), MPI_ERR_INFO);
    ROOTFAILS(MPI_Comm_spawn_multiple(0, cmds, MPI_ARGVS_NULL, np, infos, 0, MPI_COMM_WORLD, &out, MPI_ERRCODES_IGNORE), MPI_ERR_ARG);
    ROOTFAILS(MPI_Comm_spawn_multiple(1, cmds, MPI_ARGVS_NULL, np, NULL, 0, MPI_COMM_WORLD, &out, MPI_ERRCODES_IGNORE), MPI_ERR_ARG);
    /* accept and connect: the root's reason reaches the other rank, class and all */
#define BOTHFAIL(call, cls)                                                     \
    do {                                                                        \
        out = MPI_COMM_WORLD;                                                   \
        FAILS(call, cls);                                                       \
        CHECK(out == MPI_COMM_NULL, "%s gave a communicator", #call);           \
    } while (0)
    BOTHFAIL(MPI_Comm_accept(port, bad, 0, MPI_COMM_WORLD, &out), MPI_ERR_INFO);
    BOTHFAIL(MPI_Comm_connect(port, bad, 0, MPI_COMM_WORLD, &out), MPI_ERR_INFO);
    BOTHFAIL(MPI_Comm_connect(NULL, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &out), MPI_ERR_PORT);
    BOTHFAIL(MPI_Comm_connect("no such port", MPI_INFO_NULL, 0, MPI_COMM_WORLD, &out), MPI_ERR_PORT);

    /* the local calls: NULL strings, a bad info */
    FAILS(MPI_Open_port(MPI_INFO_NULL, NULL), MPI_ERR_ARG);
    FAILS(MPI_Open_port((MPI_Info)(intptr_t)12345, port), MPI_ERR_INFO);
    FAILS(MPI_Close_port(NULL), MPI_ERR_ARG);
    FAILS(MPI_Publish_name(NULL, MPI_INFO_NULL, "p"), MPI_ERR_ARG);
    FAILS(MPI_Publish_name("dynargs", MPI_INFO_NULL, NULL), MPI_ERR_ARG);
    FAILS(MPI_Unpublish_name(NULL, MPI_INFO_NULL, "p"), MPI_ERR_ARG);
    FAILS(MPI_Lookup_name("dynargs", MPI_INFO_NULL, NULL), MPI_ERR_ARG);
    FAILS(MPI_Lookup_name(NULL, MPI_INFO_NULL, port), MPI_ERR_ARG);
    FAILS(MPI_Comm_join(0, NULL), MPI_ERR_ARG);

    /* disconnect: a NULL pointer, MPI_COMM_NULL */
    MPI_Comm null = MPI_COMM_NULL;
    FAILS(MPI_Comm_disconnect(NULL), MPI_ERR_ARG);
    FAILS(MPI_Comm_disconnect(&null), MPI_ERR_COMM);

    OK(MPI_Comm_free(&inter));
    OK(MPI_Finalize());
    if (rank == 0) printf("OK dynargs\n");
    return 0;
}
