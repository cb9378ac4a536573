/* nullout.c - NULL where a procedure writes its answer: MPI_ERR_ARG through the error
 * handler, with an error string that names the argument, never a crash and never a
 * success that answers nothing. Covered: the environment's queries and error
 * classes, the status accessors (C, in the library's handles.c, which hand a NULL to
 * their Go halves), the detaches of buffers, queries of communicators, topologies,
 * datatypes, info objects, operations and requests, the calls on sets of requests,
 * MPI_Win_shared_query. A refused call has done nothing (a buffer stays attached, a
 * request as it was). The NULLs the standard allows stay allowed: an array that
 * would receive no entries, the weights of an unweighted graph, MPI_Info_get_string's
 * value with buflen 0. Argument "init_thread" calls MPI_Init_thread with a NULL
 * provided, which fails before MPI starts, through the initial (fatal) handler. Runs
 * on 2 ranks. */
#include <string.h>
#include "check.h"

/* REFUSES checks that call returns an error of class MPI_ERR_ARG whose string names
 * the argument arg as NULL. */
#define REFUSES(call, arg)                                                                        \
    do {                                                                                          \
        int rc_ = (call), class_ = MPI_SUCCESS;                                                   \
        if (rc_ != MPI_SUCCESS) MPI_Error_class(rc_, &class_);                                    \
        CHECK_AS(#call, class_ == MPI_ERR_ARG, "returned %d (class %d), want MPI_ERR_ARG", rc_, class_); \
        const char *s_ = check_err_(rc_);                                                         \
        CHECK_AS(#call, strstr(s_, arg " is NULL") != NULL, "error string \"%s\" does not say " arg " is NULL", s_); \
    } while (0)

static void environment(void) {
    int a, b, n;
    char s[MPI_MAX_LIBRARY_VERSION_STRING];
    REFUSES(MPI_Get_version(NULL, &b), "version");
    REFUSES(MPI_Get_version(&a, NULL), "subversion");
    REFUSES(MPI_Get_library_version(NULL, &n), "version");
    REFUSES(MPI_Get_library_version(s, NULL), "resultlen");
    REFUSES(MPI_Get_processor_name(NULL, &n), "name");
    REFUSES(MPI_Get_processor_name(s, NULL), "resultlen");
    REFUSES(MPI_Initialized(NULL), "flag");
    REFUSES(MPI_Finalized(NULL), "flag");
    REFUSES(MPI_Is_thread_main(NULL), "flag");
    REFUSES(MPI_Add_error_class(NULL), "errorclass");
    int cls;
    OK(MPI_Add_error_class(&cls));
    REFUSES(MPI_Add_error_code(cls, NULL), "errorcode");
}

/* The accessors of MPI 5.0, in C: a NULL status is MPI_STATUS_IGNORE, which holds
 * nothing to read or set. */
static void statuses(void) {
    MPI_Status st;
    int v = -1, flag;
    OK(MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    REFUSES(MPI_Status_get_source(NULL, &v), "status");
    REFUSES(MPI_Status_get_source(&st, NULL), "source");
    REFUSES(MPI_Status_get_tag(NULL, &v), "status");
    REFUSES(MPI_Status_get_tag(&st, NULL), "tag");
    REFUSES(MPI_Status_get_error(NULL, &v), "status");
    REFUSES(MPI_Status_get_error(&st, NULL), "error");
    REFUSES(MPI_Status_set_source(NULL, 1), "status");
    REFUSES(MPI_Status_set_tag(NULL, 1), "status");
    REFUSES(MPI_Status_set_error(NULL, 1), "status");
    REFUSES(MPI_Test_cancelled(&st, NULL), "flag");
    /* The C way still answers. */
    OK(MPI_Status_set_source(&st, 3));
    OK(MPI_Status_set_tag(&st, 4));
    OK(MPI_Status_set_error(&st, MPI_ERR_OTHER));
    int src, tag, err;
    OK(MPI_Status_get_source(&st, &src));
    OK(MPI_Status_get_tag(&st, &tag));
    OK(MPI_Status_get_error(&st, &err));
    OK(MPI_Test_cancelled(&st, &flag));
    CHECK(src == 3 && tag == 4 && err == MPI_ERR_OTHER && flag == 0, "status: source %d tag %d error %d cancelled %d",
          src, tag, err, flag);
}

/* A detach refused leaves the buffer attached: the next detach returns it. */
static void buffers(MPI_Session session) {
    static char b[1024];
    void *p;
    int n;
    OK(MPI_Buffer_attach(b, sizeof b));
    REFUSES(MPI_Buffer_detach(&p, NULL), "size");
    OK(MPI_Buffer_detach(&p, &n));
    CHECK(p == b && n == (int)sizeof b, "Buffer_detach: %p %d", p, n);
    OK(MPI_Comm_attach_buffer(MPI_COMM_SELF, b, sizeof b));
    REFUSES(MPI_Comm_detach_buffer(MPI_COMM_SELF, &p, NULL), "size");
    OK(MPI_Comm_detach_buffer(MPI_COMM_SELF, &p, &n));
    CHECK(p == b && n == (int)sizeof b, "Comm_detach_buffer: %p %d", p, n);
    OK(MPI_Session_attach_buffer(session, b, sizeof b));
    REFUSES(MPI_Session_detach_buffer(session, &p, NULL), "size");
    OK(MPI_Session_detach_buffer(session, &p, &n));
    CHECK(p == b && n == (int)sizeof b, "Session_detach_buffer: %p %d", p, n);
}

static void communicators(int rank) {
    MPI_Comm dup, half, inter;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    REFUSES(MPI_Comm_test_inter(MPI_COMM_WORLD, NULL), "flag");
    REFUSES(MPI_Comm_test_inter(dup, NULL), "flag");
    OK(MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &half));
    OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - rank, 7, &inter));
    REFUSES(MPI_Comm_remote_size(inter, NULL), "size");
    REFUSES(MPI_Intercomm_merge(inter, rank, NULL), "newintracomm"); /* both ranks: it is collective */
    REFUSES(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, NULL), "newcomm");
    OK(MPI_Comm_free(&inter));
    OK(MPI_Comm_free(&half));
    OK(MPI_Comm_free(&dup));
    REFUSES(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, NULL, NULL), "comm_keyval");
    REFUSES(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, NULL, NULL), "type_keyval");
    REFUSES(MPI_Win_free_keyval(NULL), "win_keyval");
}

static void topologies(void) {
    int one[1] = {1}, zero[1] = {0}, w[1] = {5}, a[1], b[1], c[1], x, y, z;
    MPI_Comm cart, graph, dist, unweighted;
    OK(MPI_Cart_create(MPI_COMM_SELF, 1, one, one, 0, &cart));
    REFUSES(MPI_Cart_get(cart, 1, NULL, b, c), "dims");
    REFUSES(MPI_Cart_get(cart, 1, a, NULL, c), "periods");
    REFUSES(MPI_Cart_get(cart, 1, a, b, NULL), "coords");
    OK(MPI_Cart_get(cart, 0, NULL, NULL, NULL)); /* room for none */
    REFUSES(MPI_Cart_map(MPI_COMM_SELF, 1, one, one, NULL), "newrank");
    REFUSES(MPI_Cart_rank(cart, zero, NULL), "rank");
    REFUSES(MPI_Cart_shift(cart, 0, 1, NULL, &y), "rank_source");
    REFUSES(MPI_Cart_shift(cart, 0, 1, &x, NULL), "rank_dest");
    REFUSES(MPI_Cartdim_get(cart, NULL), "ndims");
    REFUSES(MPI_Topo_test(cart, NULL), "status");

    OK(MPI_Graph_create(MPI_COMM_SELF, 1, one, zero, 0, &graph)); /* one node, its own neighbour */
    REFUSES(MPI_Graph_get(graph, 1, 1, NULL, b), "index");
    REFUSES(MPI_Graph_get(graph, 1, 1, a, NULL), "edges");
    REFUSES(MPI_Graph_map(MPI_COMM_SELF, 1, one, zero, NULL), "newrank");
    REFUSES(MPI_Graph_neighbors(graph, 0, 1, NULL), "neighbors");
    REFUSES(MPI_Graph_neighbors_count(graph, 0, NULL), "nneighbors");
    REFUSES(MPI_Graphdims_get(graph, NULL, &y), "nnodes");
    REFUSES(MPI_Graphdims_get(graph, &x, NULL), "nedges");

    OK(MPI_Dist_graph_create_adjacent(MPI_COMM_SELF, 1, zero, w, 1, zero, w, MPI_INFO_NULL, 0, &dist));
    REFUSES(MPI_Dist_graph_neighbors(dist, 1, NULL, a, 1, b, c), "sources");
    REFUSES(MPI_Dist_graph_neighbors(dist, 1, a, NULL, 1, b, c), "sourceweights");
    REFUSES(MPI_Dist_graph_neighbors(dist, 1, a, b, 1, NULL, c), "destinations");
    REFUSES(MPI_Dist_graph_neighbors(dist, 1, a, b, 1, c, NULL), "destweights");
    OK(MPI_Dist_graph_neighbors(dist, 1, a, MPI_UNWEIGHTED, 1, c, MPI_UNWEIGHTED));
    OK(MPI_Dist_graph_neighbors(dist, 0, NULL, NULL, 0, NULL, NULL));
    REFUSES(MPI_Dist_graph_neighbors_count(dist, NULL, &y, &z), "indegree");
    REFUSES(MPI_Dist_graph_neighbors_count(dist, &x, NULL, &z), "outdegree");
    REFUSES(MPI_Dist_graph_neighbors_count(dist, &x, &y, NULL), "weighted");
    OK(MPI_Dist_graph_create_adjacent(MPI_COMM_SELF, 1, zero, MPI_UNWEIGHTED, 1, zero, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                      0, &unweighted));
    OK(MPI_Dist_graph_neighbors(unweighted, 1, a, NULL, 1, c, NULL)); /* no weights to write */
    CHECK(a[0] == 0 && c[0] == 0, "unweighted neighbours %d %d", a[0], c[0]);
    OK(MPI_Comm_free(&unweighted));
    OK(MPI_Comm_free(&dist));
    OK(MPI_Comm_free(&graph));
    OK(MPI_Comm_free(&cart));
}

static void types(void) {
    int ni, na, nt, comb, n;
    MPI_Count ci, ca, cc, ct;
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Datatype vec;
    OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    REFUSES(MPI_Type_get_envelope(vec, NULL, &na, &nt, &comb), "num_integers");
    REFUSES(MPI_Type_get_envelope(vec, &ni, NULL, &nt, &comb), "num_addresses");
    REFUSES(MPI_Type_get_envelope(vec, &ni, &na, NULL, &comb), "num_datatypes");
    REFUSES(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nt, NULL), "combiner");
    REFUSES(MPI_Type_get_envelope_c(vec, NULL, &ca, &cc, &ct, &comb), "num_integers");
    REFUSES(MPI_Type_get_envelope_c(vec, &ci, NULL, &cc, &ct, &comb), "num_addresses");
    REFUSES(MPI_Type_get_envelope_c(vec, &ci, &ca, NULL, &ct, &comb), "num_large_counts");
    REFUSES(MPI_Type_get_envelope_c(vec, &ci, &ca, &cc, NULL, &comb), "num_datatypes");
    REFUSES(MPI_Type_get_envelope_c(vec, &ci, &ca, &cc, &ct, NULL), "combiner");
    REFUSES(MPI_Type_get_name(MPI_INT, NULL, &n), "type_name");
    REFUSES(MPI_Type_get_name(vec, name, NULL), "resultlen");
    /* The other objects' names, refused before too. */
    REFUSES(MPI_Comm_get_name(MPI_COMM_WORLD, name, NULL), "resultlen");
    REFUSES(MPI_Comm_get_name(MPI_COMM_WORLD, NULL, &n), "comm_name");
    OK(MPI_Type_free(&vec));
}

static void infos(void) {
    MPI_Info info;
    char v[16];
    int flag, n, len = sizeof v;
    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, "k", "v"));
    REFUSES(MPI_Info_get(info, "k", sizeof v - 1, NULL, &flag), "value");
    REFUSES(MPI_Info_get(info, "k", sizeof v - 1, v, NULL), "flag");
    REFUSES(MPI_Info_get_nkeys(info, NULL), "nkeys");
    REFUSES(MPI_Info_get_nthkey(info, 0, NULL), "key");
    REFUSES(MPI_Info_get_string(info, "k", &len, NULL, &flag), "value");
    REFUSES(MPI_Info_get_string(info, "k", &len, v, NULL), "flag");
    REFUSES(MPI_Info_get_string(info, "k", NULL, v, &flag), "buflen");
    len = 0; /* the length only: value is not written */
    OK(MPI_Info_get_string(info, "k", &len, NULL, &flag));
    CHECK(flag == 1 && len == 2, "Info_get_string of buflen 0: flag %d buflen %d", flag, len);
    REFUSES(MPI_Info_get_valuelen(info, "k", NULL, &flag), "valuelen");
    REFUSES(MPI_Info_get_valuelen(info, "k", &n, NULL), "flag");
    OK(MPI_Info_free(&info));
}

static void requests(void) {
    int x = 1, flag, idx, n, ids[1];
    MPI_Request r, p, part;
    REFUSES(MPI_Op_commutative(MPI_SUM, NULL), "commute");
    REFUSES(MPI_Request_get_status(MPI_REQUEST_NULL, NULL, MPI_STATUS_IGNORE), "flag");
    OK(MPI_Isend(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_SELF, &r));
    REFUSES(MPI_Request_get_status(r, NULL, MPI_STATUS_IGNORE), "flag");

    /* A set of one request given as NULL: nothing done to r. */
    REFUSES(MPI_Waitall(1, NULL, MPI_STATUSES_IGNORE), "array_of_requests");
    REFUSES(MPI_Testall(1, NULL, &flag, MPI_STATUSES_IGNORE), "array_of_requests");
    REFUSES(MPI_Waitany(1, NULL, &idx, MPI_STATUS_IGNORE), "array_of_requests");
    REFUSES(MPI_Testany(1, NULL, &idx, &flag, MPI_STATUS_IGNORE), "array_of_requests");
    REFUSES(MPI_Waitsome(1, NULL, &n, ids, MPI_STATUSES_IGNORE), "array_of_requests");
    REFUSES(MPI_Testsome(1, NULL, &n, ids, MPI_STATUSES_IGNORE), "array_of_requests");
    REFUSES(MPI_Request_get_status_all(1, NULL, &flag, MPI_STATUSES_IGNORE), "array_of_requests");
    REFUSES(MPI_Request_get_status_any(1, NULL, &idx, &flag, MPI_STATUS_IGNORE), "array_of_requests");
    REFUSES(MPI_Request_get_status_some(1, NULL, &n, ids, MPI_STATUSES_IGNORE), "array_of_requests");
    FAILS(MPI_Waitall(-1, &r, MPI_STATUSES_IGNORE), MPI_ERR_COUNT);
    OK(MPI_Waitall(0, NULL, MPI_STATUSES_IGNORE)); /* no requests */
    OK(MPI_Testany(0, NULL, &idx, &flag, MPI_STATUS_IGNORE));
    CHECK(idx == MPI_UNDEFINED && flag == 1, "Testany of none: index %d flag %d", idx, flag);
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));

    OK(MPI_Send_init(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_SELF, &p));
    REFUSES(MPI_Startall(1, NULL), "array_of_requests");
    OK(MPI_Startall(1, &p));
    OK(MPI_Wait(&p, MPI_STATUS_IGNORE));
    OK(MPI_Request_free(&p));

    OK(MPI_Precv_init(&x, 1, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_SELF, MPI_INFO_NULL, &part));
    OK(MPI_Start(&part));
    REFUSES(MPI_Parrived(part, 0, NULL), "flag");
    OK(MPI_Wait(&part, MPI_STATUS_IGNORE));
    OK(MPI_Request_free(&part));
}

static void windows(void) {
    MPI_Win win;
    void *base, *got;
    MPI_Aint size;
    int unit = -1;
    OK(MPI_Win_allocate_shared(64, 4, MPI_INFO_NULL, MPI_COMM_SELF, &base, &win));
    OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    REFUSES(MPI_Win_shared_query(win, 0, &size, NULL, &got), "disp_unit");
    REFUSES(MPI_Win_shared_query(win, 0, NULL, &unit, &got), "size");
    OK(MPI_Win_shared_query(win, 0, &size, &unit, &got));
    CHECK(size == 64 && unit == 4 && got == base, "Win_shared_query: size %ld unit %d", (long)size, unit);
    OK(MPI_Win_free(&win));
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "init_thread") == 0) {
        MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, NULL);
        printf("MPI_Init_thread returned\n");
        return 0;
    }
    int rank, size;
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 2, "size %d: run on 2 ranks", size);
    MPI_Session session;
    OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session));
    environment();
    statuses();
    buffers(session);
    communicators(rank);
    topologies();
    types();
    infos();
    requests();
    windows();
    OK(MPI_Session_finalize(&session));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Finalize());
    if (rank == 0) printf("OK nullout\n");
    return 0;
}
