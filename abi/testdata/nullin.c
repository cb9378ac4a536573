/* nullin.c - NULL where a procedure reads an argument (an input array that holds
 * entries, a string, a pointer to a handle): an error of the class the call names
 * (MPI_ERR_ARG but where noted) through the object's error handler, whose string
 * names the C binding's argument, never a crash, a hang or a success that read
 * nothing. Covered: the v and w collectives, blocking, nonblocking, persistent and
 * large-count, on MPI_COMM_WORLD (every rank passing NULL) and MPI_COMM_SELF, and
 * their neighbourhood forms; MPI_Pready_list; MPI_Add_error_string; MPI_Comm_set_name;
 * MPI_File_set_view's datarep; the port names of MPI_Comm_accept and _connect
 * (MPI_ERR_PORT: NULL names no port) and the commands of MPI_Comm_spawn(_multiple);
 * and, refused before, the datatype constructors, groups, topologies, info keys and
 * values, object names, pset names and string tags, and the frees of handles given
 * NULL. The NULLs the standard allows stay allowed: arrays an argument says hold no
 * entries, arrays of a side that is not significant (a non-root's of MPI_Gatherv and
 * MPI_Scatterv, also across an intercommunicator; the send side of MPI_Alltoallv and
 * _w in place), a neighbourhood of no neighbours, MPI_Info_create_env's argv. Runs on
 * 2 ranks. */
#include <string.h>
#include <unistd.h>
#include "check.h"

/* raised counts the calls of the handlers set on the communicators and files. */
static int raised;
static void comm_handler(MPI_Comm *c, int *code, ...) {
    (void)c;
    (void)code;
    raised++;
}
static void session_handler(MPI_Session *s, int *code, ...) {
    (void)s;
    (void)code;
    raised++;
}
static void file_handler(MPI_File *f, int *code, ...) {
    (void)f;
    (void)code;
    raised++;
}

/* REFUSES_AS checks that call returns an error of class cls through a handler (once)
 * whose string names the argument arg as NULL. */
#define REFUSES_AS(call, cls, arg)                                                                         \
    do {                                                                                                   \
        int before_ = raised, rc_ = (call), class_ = MPI_SUCCESS;                                          \
        if (rc_ != MPI_SUCCESS) MPI_Error_class(rc_, &class_);                                             \
        CHECK_AS(#call, class_ == (cls), "returned %d (class %d), want %s", rc_, class_, #cls);            \
        CHECK_AS(#call, raised == before_ + 1, "the error handler ran %d times, want once", raised - before_); \
        const char *s_ = check_err_(rc_);                                                                  \
        CHECK_AS(#call, strstr(s_, arg " is NULL") != NULL, "error string \"%s\" does not say " arg " is NULL", s_); \
    } while (0)

#define REFUSES(call, arg) REFUSES_AS(call, MPI_ERR_ARG, arg)

static int one[2] = {1, 1}, two[2] = {2, 2}, zero[2] = {0, 0}, idx[2] = {0, 1}, bytes[2] = {0, 4};
static MPI_Aint adisp[2] = {0, 4}, azero[2] = {0, 0};
static MPI_Count cone[2] = {1, 1};
static MPI_Datatype ints[2] = {MPI_INT, MPI_INT};
static int sbuf[8], rbuf[8];

/* The v and w collectives on comm, whose every rank gives NULL (comm has at most 2
 * ranks). */
static void collectives(MPI_Comm comm) {
    MPI_Request r;
    REFUSES(MPI_Allgatherv(sbuf, 1, MPI_INT, rbuf, NULL, idx, MPI_INT, comm), "recvcounts");
    REFUSES(MPI_Allgatherv(sbuf, 1, MPI_INT, rbuf, one, NULL, MPI_INT, comm), "displs");
    REFUSES(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_INT, rbuf, one, NULL, MPI_INT, comm), "displs");
    REFUSES(MPI_Allgatherv_c(sbuf, 1, MPI_INT, rbuf, NULL, azero, MPI_INT, comm), "recvcounts");
    REFUSES(MPI_Iallgatherv(sbuf, 1, MPI_INT, rbuf, NULL, idx, MPI_INT, comm, &r), "recvcounts");
    REFUSES(MPI_Allgatherv_init(sbuf, 1, MPI_INT, rbuf, one, NULL, MPI_INT, comm, MPI_INFO_NULL, &r), "displs");

    REFUSES(MPI_Alltoallv(sbuf, NULL, idx, MPI_INT, rbuf, one, idx, MPI_INT, comm), "sendcounts");
    REFUSES(MPI_Alltoallv(sbuf, one, NULL, MPI_INT, rbuf, one, idx, MPI_INT, comm), "sdispls");
    REFUSES(MPI_Alltoallv(sbuf, one, idx, MPI_INT, rbuf, NULL, idx, MPI_INT, comm), "recvcounts");
    REFUSES(MPI_Alltoallv(sbuf, one, idx, MPI_INT, rbuf, one, NULL, MPI_INT, comm), "rdispls");
    REFUSES(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, rbuf, NULL, idx, MPI_INT, comm), "recvcounts");
    REFUSES(MPI_Alltoallv_c(sbuf, NULL, azero, MPI_INT, rbuf, cone, azero, MPI_INT, comm), "sendcounts");
    REFUSES(MPI_Ialltoallv(sbuf, one, idx, MPI_INT, rbuf, one, NULL, MPI_INT, comm, &r), "rdispls");
    REFUSES(MPI_Alltoallv_init(sbuf, NULL, idx, MPI_INT, rbuf, one, idx, MPI_INT, comm, MPI_INFO_NULL, &r), "sendcounts");

    REFUSES(MPI_Alltoallw(sbuf, NULL, bytes, ints, rbuf, one, bytes, ints, comm), "sendcounts");
    REFUSES(MPI_Alltoallw(sbuf, one, NULL, ints, rbuf, one, bytes, ints, comm), "sdispls");
    REFUSES(MPI_Alltoallw(sbuf, one, bytes, NULL, rbuf, one, bytes, ints, comm), "sendtypes");
    REFUSES(MPI_Alltoallw(sbuf, one, bytes, ints, rbuf, NULL, bytes, ints, comm), "recvcounts");
    REFUSES(MPI_Alltoallw(sbuf, one, bytes, ints, rbuf, one, NULL, ints, comm), "rdispls");
    REFUSES(MPI_Alltoallw(sbuf, one, bytes, ints, rbuf, one, bytes, NULL, comm), "recvtypes");
    REFUSES(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, rbuf, one, bytes, NULL, comm), "recvtypes");
    REFUSES(MPI_Alltoallw_c(sbuf, cone, adisp, NULL, rbuf, cone, adisp, ints, comm), "sendtypes");
    REFUSES(MPI_Ialltoallw(sbuf, one, bytes, ints, rbuf, one, bytes, NULL, comm, &r), "recvtypes");
    REFUSES(MPI_Alltoallw_init(sbuf, NULL, bytes, ints, rbuf, one, bytes, ints, comm, MPI_INFO_NULL, &r), "sendcounts");

    /* The send side in place is not read. */
    OK(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, rbuf, one, idx, MPI_INT, comm));
    OK(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, rbuf, one, bytes, ints, comm));
}

/* The rooted v collectives at their root (MPI_COMM_SELF's rank 0), and NULL where it
 * is not significant: the non-root's arrays on MPI_COMM_WORLD and across an
 * intercommunicator. */
static void rooted(int rank) {
    MPI_Request r;
    REFUSES(MPI_Gatherv(sbuf, 1, MPI_INT, rbuf, NULL, idx, MPI_INT, 0, MPI_COMM_SELF), "recvcounts");
    REFUSES(MPI_Gatherv(sbuf, 1, MPI_INT, rbuf, one, NULL, MPI_INT, 0, MPI_COMM_SELF), "displs");
    REFUSES(MPI_Gatherv(MPI_IN_PLACE, 0, MPI_INT, rbuf, NULL, idx, MPI_INT, 0, MPI_COMM_SELF), "recvcounts");
    REFUSES(MPI_Gatherv_c(sbuf, 1, MPI_INT, rbuf, NULL, azero, MPI_INT, 0, MPI_COMM_SELF), "recvcounts");
    REFUSES(MPI_Igatherv(sbuf, 1, MPI_INT, rbuf, one, NULL, MPI_INT, 0, MPI_COMM_SELF, &r), "displs");
    REFUSES(MPI_Gatherv_init(sbuf, 1, MPI_INT, rbuf, NULL, idx, MPI_INT, 0, MPI_COMM_SELF, MPI_INFO_NULL, &r), "recvcounts");
    REFUSES(MPI_Scatterv(sbuf, NULL, idx, MPI_INT, rbuf, 1, MPI_INT, 0, MPI_COMM_SELF), "sendcounts");
    REFUSES(MPI_Scatterv(sbuf, one, NULL, MPI_INT, rbuf, 1, MPI_INT, 0, MPI_COMM_SELF), "displs");
    REFUSES(MPI_Scatterv(sbuf, NULL, idx, MPI_INT, MPI_IN_PLACE, 0, MPI_INT, 0, MPI_COMM_SELF), "sendcounts");
    REFUSES(MPI_Scatterv_c(sbuf, NULL, azero, MPI_INT, rbuf, 1, MPI_INT, 0, MPI_COMM_SELF), "sendcounts");
    REFUSES(MPI_Iscatterv(sbuf, one, NULL, MPI_INT, rbuf, 1, MPI_INT, 0, MPI_COMM_SELF, &r), "displs");
    REFUSES(MPI_Scatterv_init(sbuf, NULL, idx, MPI_INT, rbuf, 1, MPI_INT, 0, MPI_COMM_SELF, MPI_INFO_NULL, &r), "sendcounts");

    if (rank == 0) {
        OK(MPI_Gatherv(sbuf, 1, MPI_INT, rbuf, one, idx, MPI_INT, 0, MPI_COMM_WORLD));
        OK(MPI_Scatterv(sbuf, one, idx, MPI_INT, rbuf, 1, MPI_INT, 0, MPI_COMM_WORLD));
    } else {
        OK(MPI_Gatherv(sbuf, 1, MPI_INT, NULL, NULL, NULL, MPI_INT, 0, MPI_COMM_WORLD));
        OK(MPI_Scatterv(NULL, NULL, NULL, MPI_INT, rbuf, 1, MPI_INT, 0, MPI_COMM_WORLD));
    }
    MPI_Comm inter;
    OK(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, 1 - rank, 5, &inter));
    OK(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
    if (rank == 0) {
        OK(MPI_Gatherv(NULL, 0, MPI_INT, rbuf, one, idx, MPI_INT, MPI_ROOT, inter));
        OK(MPI_Scatterv(sbuf, one, idx, MPI_INT, NULL, 0, MPI_INT, MPI_ROOT, inter));
    } else {
        OK(MPI_Gatherv(sbuf, 1, MPI_INT, NULL, NULL, NULL, MPI_INT, 0, inter));
        OK(MPI_Scatterv(NULL, NULL, NULL, MPI_INT, rbuf, 1, MPI_INT, 0, inter));
    }
    OK(MPI_Comm_free(&inter));
}

/* The neighbourhood forms on a periodic ring of one (two neighbours: itself), and
 * with no neighbours at all. */
static void neighbours(void) {
    MPI_Comm ring, none;
    MPI_Request r;
    OK(MPI_Cart_create(MPI_COMM_SELF, 1, one, one, 0, &ring));
    REFUSES(MPI_Neighbor_allgatherv(sbuf, 1, MPI_INT, rbuf, NULL, idx, MPI_INT, ring), "recvcounts");
    REFUSES(MPI_Neighbor_allgatherv(sbuf, 1, MPI_INT, rbuf, one, NULL, MPI_INT, ring), "displs");
    REFUSES(MPI_Ineighbor_allgatherv(sbuf, 1, MPI_INT, rbuf, one, NULL, MPI_INT, ring, &r), "displs");
    REFUSES(MPI_Neighbor_allgatherv_init(sbuf, 1, MPI_INT, rbuf, NULL, idx, MPI_INT, ring, MPI_INFO_NULL, &r), "recvcounts");
    REFUSES(MPI_Neighbor_alltoallv(sbuf, NULL, idx, MPI_INT, rbuf, one, idx, MPI_INT, ring), "sendcounts");
    REFUSES(MPI_Neighbor_alltoallv(sbuf, one, NULL, MPI_INT, rbuf, one, idx, MPI_INT, ring), "sdispls");
    REFUSES(MPI_Neighbor_alltoallv(sbuf, one, idx, MPI_INT, rbuf, NULL, idx, MPI_INT, ring), "recvcounts");
    REFUSES(MPI_Neighbor_alltoallv(sbuf, one, idx, MPI_INT, rbuf, one, NULL, MPI_INT, ring), "rdispls");
    REFUSES(MPI_Neighbor_alltoallv_c(sbuf, cone, azero, MPI_INT, rbuf, cone, NULL, MPI_INT, ring), "rdispls");
    REFUSES(MPI_Ineighbor_alltoallv(sbuf, NULL, idx, MPI_INT, rbuf, one, idx, MPI_INT, ring, &r), "sendcounts");
    REFUSES(MPI_Neighbor_alltoallv_init(sbuf, one, idx, MPI_INT, rbuf, one, NULL, MPI_INT, ring, MPI_INFO_NULL, &r), "rdispls");
    REFUSES(MPI_Neighbor_alltoallw(sbuf, NULL, adisp, ints, rbuf, one, adisp, ints, ring), "sendcounts");
    REFUSES(MPI_Neighbor_alltoallw(sbuf, one, NULL, ints, rbuf, one, adisp, ints, ring), "sdispls");
    REFUSES(MPI_Neighbor_alltoallw(sbuf, one, adisp, NULL, rbuf, one, adisp, ints, ring), "sendtypes");
    REFUSES(MPI_Neighbor_alltoallw(sbuf, one, adisp, ints, rbuf, NULL, adisp, ints, ring), "recvcounts");
    REFUSES(MPI_Neighbor_alltoallw(sbuf, one, adisp, ints, rbuf, one, NULL, ints, ring), "rdispls");
    REFUSES(MPI_Neighbor_alltoallw(sbuf, one, adisp, ints, rbuf, one, adisp, NULL, ring), "recvtypes");
    REFUSES(MPI_Neighbor_alltoallw_c(sbuf, NULL, adisp, ints, rbuf, cone, adisp, ints, ring), "sendcounts");
    REFUSES(MPI_Ineighbor_alltoallw(sbuf, one, adisp, NULL, rbuf, one, adisp, ints, ring, &r), "sendtypes");
    REFUSES(MPI_Neighbor_alltoallw_init(sbuf, one, adisp, ints, rbuf, one, adisp, NULL, ring, MPI_INFO_NULL, &r), "recvtypes");
    OK(MPI_Comm_free(&ring));

    OK(MPI_Dist_graph_create_adjacent(MPI_COMM_SELF, 0, NULL, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                      &none));
    OK(MPI_Comm_set_errhandler(none, MPI_ERRORS_RETURN));
    OK(MPI_Neighbor_allgatherv(sbuf, 0, MPI_INT, rbuf, NULL, NULL, MPI_INT, none));
    OK(MPI_Neighbor_alltoallv(sbuf, NULL, NULL, MPI_INT, rbuf, NULL, NULL, MPI_INT, none));
    OK(MPI_Neighbor_alltoallw(sbuf, NULL, NULL, NULL, rbuf, NULL, NULL, NULL, none));
    OK(MPI_Comm_free(&none));
}

/* MPI_Pready_list reads its list only once the request is one, and refuses a list it
 * would read as NULL before marking anything. */
static void partitions(void) {
    MPI_Request r;
    int parts[2] = {0, 1};
    FAILS(MPI_Pready_list(1, parts, MPI_REQUEST_NULL), MPI_ERR_REQUEST);
    OK(MPI_Psend_init(sbuf, 2, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_SELF, MPI_INFO_NULL, &r));
    OK(MPI_Start(&r));
    REFUSES(MPI_Pready_list(2, NULL, r), "array_of_partitions");
    FAILS(MPI_Pready_list(-1, parts, r), MPI_ERR_COUNT);
    OK(MPI_Pready_list(0, NULL, r)); /* none named */
    OK(MPI_Pready_list(2, parts, r));
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    OK(MPI_Request_free(&r));
}

/* Strings and the dynamic processes' arguments. */
static void strings(void) {
    int cls, code;
    OK(MPI_Add_error_class(&cls));
    OK(MPI_Add_error_code(cls, &code));
    REFUSES(MPI_Add_error_string(code, NULL), "string");
    REFUSES(MPI_Add_error_string(cls, NULL), "string");
    OK(MPI_Add_error_string(code, "an error of nullin.c's"));
    REFUSES(MPI_Comm_set_name(MPI_COMM_SELF, NULL), "comm_name");

    MPI_Comm c;
    REFUSES_AS(MPI_Comm_accept(NULL, MPI_INFO_NULL, 0, MPI_COMM_SELF, &c), MPI_ERR_PORT, "port_name");
    REFUSES_AS(MPI_Comm_connect(NULL, MPI_INFO_NULL, 0, MPI_COMM_SELF, &c), MPI_ERR_PORT, "port_name");
    REFUSES(MPI_Comm_spawn(NULL, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &c, MPI_ERRCODES_IGNORE), "command");
    char *cmds[1] = {NULL};
    int np[1] = {1};
    MPI_Info infos[1] = {MPI_INFO_NULL};
    REFUSES(MPI_Comm_spawn_multiple(1, cmds, MPI_ARGVS_NULL, np, infos, 0, MPI_COMM_SELF, &c, MPI_ERRCODES_IGNORE),
            "array_of_commands[0]");

    /* Refused before too. */
    MPI_Info info;
    char v[MPI_MAX_PORT_NAME];
    int flag, n = 8;
    OK(MPI_Info_create(&info));
    REFUSES_AS(MPI_Info_set(info, NULL, "v"), MPI_ERR_INFO_KEY, "key");
    REFUSES_AS(MPI_Info_set(info, "k", NULL), MPI_ERR_INFO_VALUE, "value");
    REFUSES_AS(MPI_Info_get(info, NULL, sizeof v - 1, v, &flag), MPI_ERR_INFO_KEY, "key");
    REFUSES_AS(MPI_Info_get_string(info, NULL, &n, v, &flag), MPI_ERR_INFO_KEY, "key");
    REFUSES_AS(MPI_Info_get_valuelen(info, NULL, &n, &flag), MPI_ERR_INFO_KEY, "key");
    REFUSES_AS(MPI_Info_delete(info, NULL), MPI_ERR_INFO_KEY, "key");
    OK(MPI_Info_free(&info));
    OK(MPI_Info_create_env(1, NULL, &info)); /* argv may be NULL */
    OK(MPI_Info_free(&info));
    REFUSES(MPI_Type_set_name(MPI_INT, NULL), "type_name");
    REFUSES(MPI_Publish_name(NULL, MPI_INFO_NULL, "port"), "service_name");
    REFUSES(MPI_Publish_name("svc", MPI_INFO_NULL, NULL), "port_name");
    REFUSES(MPI_Unpublish_name(NULL, MPI_INFO_NULL, "port"), "service_name");
    REFUSES(MPI_Lookup_name(NULL, MPI_INFO_NULL, v), "service_name");
    REFUSES(MPI_Close_port(NULL), "port_name");
    REFUSES(MPI_Pack_external_size(NULL, 1, MPI_INT, &(MPI_Aint){0}), "datarep");
}

/* Input arrays refused before: datatypes, groups, topologies. */
static void arrays(void) {
    MPI_Datatype t;
    MPI_Group world, g;
    MPI_Comm c;
    int dist[1] = {MPI_DISTRIBUTE_BLOCK}, darg[1] = {MPI_DISTRIBUTE_DFLT_DARG}, out[2];
    REFUSES(MPI_Type_indexed(2, NULL, idx, MPI_INT, &t), "array_of_blocklengths");
    REFUSES(MPI_Type_indexed(2, one, NULL, MPI_INT, &t), "array_of_displacements");
    REFUSES(MPI_Type_create_hindexed(2, one, NULL, MPI_INT, &t), "array_of_displacements");
    REFUSES(MPI_Type_create_indexed_block(2, 1, NULL, MPI_INT, &t), "array_of_displacements");
    REFUSES(MPI_Type_create_hindexed_block_c(2, 1, NULL, MPI_INT, &t), "array_of_displacements");
    REFUSES(MPI_Type_create_struct(2, one, adisp, NULL, &t), "array_of_types");
    REFUSES(MPI_Type_create_subarray(2, two, NULL, zero, MPI_ORDER_C, MPI_INT, &t), "array_of_subsizes");
    REFUSES(MPI_Type_create_darray(1, 0, 1, two, dist, darg, NULL, MPI_ORDER_C, MPI_INT, &t), "array_of_psizes");
    OK(MPI_Type_indexed(0, NULL, NULL, MPI_INT, &t)); /* no entries */
    OK(MPI_Type_free(&t));

    OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    REFUSES(MPI_Group_incl(world, 1, NULL, &g), "ranks");
    REFUSES(MPI_Group_excl(world, 1, NULL, &g), "ranks");
    REFUSES(MPI_Group_range_incl(world, 1, NULL, &g), "ranges");
    REFUSES(MPI_Group_range_excl(world, 1, NULL, &g), "ranges");
    REFUSES(MPI_Group_translate_ranks(world, 1, NULL, world, out), "ranks1");
    OK(MPI_Group_translate_ranks(world, 0, NULL, world, NULL));
    OK(MPI_Group_free(&world));

    REFUSES(MPI_Cart_create(MPI_COMM_WORLD, 1, NULL, one, 0, &c), "dims");
    REFUSES(MPI_Cart_create(MPI_COMM_WORLD, 1, two, NULL, 0, &c), "periods");
    REFUSES(MPI_Cart_map(MPI_COMM_SELF, 1, one, NULL, out), "periods");
    REFUSES(MPI_Dims_create(4, 2, NULL), "dims");
    REFUSES(MPI_Graph_create(MPI_COMM_SELF, 1, one, NULL, 0, &c), "edges");
    REFUSES(MPI_Dist_graph_create(MPI_COMM_SELF, 1, zero, one, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
            "destinations");
    REFUSES(MPI_Dist_graph_create_adjacent(MPI_COMM_SELF, 1, zero, NULL, 1, zero, one, MPI_INFO_NULL, 0, &c),
            "sourceweights");
    OK(MPI_Cart_create(MPI_COMM_SELF, 1, one, one, 0, &c)); /* MPI_COMM_SELF's handler */
    REFUSES(MPI_Cart_rank(c, NULL, out), "coords");
    OK(MPI_Comm_free(&c));
}

/* Pointers to handles, refused before. */
static void handles(MPI_Session session) {
    REFUSES(MPI_Type_free(NULL), "datatype");
    REFUSES(MPI_Type_commit(NULL), "datatype");
    REFUSES(MPI_Group_free(NULL), "group");
    REFUSES(MPI_Info_free(NULL), "info");
    REFUSES(MPI_Op_free(NULL), "op");
    REFUSES(MPI_Errhandler_free(NULL), "errhandler");
    REFUSES(MPI_Request_free(NULL), "request");
    REFUSES(MPI_Wait(NULL, MPI_STATUS_IGNORE), "request");
    REFUSES(MPI_Start(NULL), "request");
    REFUSES(MPI_Cancel(NULL), "request");
    REFUSES(MPI_Win_free(NULL), "win");
    REFUSES(MPI_Comm_free(NULL), "comm");
    REFUSES(MPI_Comm_disconnect(NULL), "comm");
    REFUSES(MPI_Session_finalize(NULL), "session");
    REFUSES(MPI_Comm_free_keyval(NULL), "comm_keyval");
    REFUSES(MPI_Type_free_keyval(NULL), "type_keyval");
    REFUSES(MPI_Group_from_session_pset(session, NULL, &(MPI_Group){0}), "pset_name");
    REFUSES(MPI_Session_get_pset_info(session, NULL, &(MPI_Info){0}), "pset_name");
    MPI_Group self;
    OK(MPI_Comm_group(MPI_COMM_SELF, &self));
    MPI_Errhandler eh; /* the handler the new communicator would have gets its errors */
    OK(MPI_Comm_create_errhandler(comm_handler, &eh));
    REFUSES(MPI_Comm_create_from_group(self, NULL, MPI_INFO_NULL, eh, &(MPI_Comm){0}), "stringtag");
    OK(MPI_Errhandler_free(&eh));
    OK(MPI_Group_free(&self));
}

/* A file's datarep (MPI_File_set_view on the file's handler), and its name. */
static void files(int rank) {
    MPI_File fh;
    char name[64];
    MPI_Errhandler eh;
    snprintf(name, sizeof name, "/tmp/mpigo-nullin-%d-%d", (int)getpid(), rank);
    OK(MPI_File_create_errhandler(file_handler, &eh));
    OK(MPI_File_set_errhandler(MPI_FILE_NULL, eh));
    REFUSES(MPI_File_open(MPI_COMM_SELF, NULL, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), "filename");
    REFUSES(MPI_File_delete(NULL, MPI_INFO_NULL), "filename");
    REFUSES(MPI_Register_datarep(NULL, MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, NULL, NULL), "datarep");
    OK(MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                     &fh));
    OK(MPI_File_set_errhandler(fh, eh));
    REFUSES(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, NULL, MPI_INFO_NULL), "datarep");
    OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    OK(MPI_File_close(&fh));
    REFUSES(MPI_File_close(NULL), "fh");
    OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    OK(MPI_Errhandler_free(&eh));
}

int main(int argc, char **argv) {
    int rank, size;
    MPI_Errhandler eh;
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_create_errhandler(comm_handler, &eh));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, eh));
    OK(MPI_Errhandler_free(&eh));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 2, "size %d: run on 2 ranks", size);
    MPI_Session session;
    OK(MPI_Session_create_errhandler(session_handler, &eh));
    OK(MPI_Session_init(MPI_INFO_NULL, eh, &session));
    OK(MPI_Errhandler_free(&eh));
    collectives(MPI_COMM_WORLD);
    collectives(MPI_COMM_SELF);
    rooted(rank);
    neighbours();
    partitions();
    strings();
    arrays();
    handles(session);
    files(rank);
    OK(MPI_Session_finalize(&session));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Finalize());
    if (rank == 0) printf("OK nullin\n");
    return 0;
}
