/* topo.c - process topologies and the neighbourhood collectives on 4 ranks: a
 * periodic 2x2 grid (where the -1 and +1 neighbours are one rank), Cart_sub, a graph,
 * a distributed graph (adjacent and not), every neighbourhood form, blocking,
 * nonblocking and persistent, and the queries. */
#include "check.h"
#include <string.h>

static int rank, n;

static void cart(void) {
    int dims[2] = {0, 0}, periods[2] = {1, 0};
    OK(MPI_Dims_create(n, 2, dims));
    CHECK(dims[0] * dims[1] == n && dims[0] >= dims[1], "Dims_create %dx%d", dims[0], dims[1]);
    int d3[3] = {0, 0, 0};
    OK(MPI_Dims_create(16, 3, d3));
    CHECK(d3[0] == 4 && d3[1] == 2 && d3[2] == 2, "Dims_create(16,3) %d %d %d", d3[0], d3[1], d3[2]);
    MPI_Comm c;
    OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c));
    int st, nd;
    OK(MPI_Topo_test(c, &st));
    CHECK(st == MPI_CART, "Topo_test %d", st);
    OK(MPI_Cartdim_get(c, &nd));
    CHECK(nd == 2, "Cartdim_get");
    int gd[2], gp[2], co[2], r;
    OK(MPI_Cart_get(c, 2, gd, gp, co));
    CHECK(gd[0] == dims[0] && gp[0] == 1 && gp[1] == 0, "Cart_get");
    OK(MPI_Cart_rank(c, co, &r));
    CHECK(r == rank, "Cart_rank %d", r);
    int co2[2];
    OK(MPI_Cart_coords(c, rank, 2, co2));
    CHECK(co2[0] == co[0] && co2[1] == co[1], "Cart_coords");
    int src, dst;
    OK(MPI_Cart_shift(c, 1, 1, &src, &dst)); /* non-periodic */
    CHECK((co[1] == 0 ? src == MPI_PROC_NULL : src >= 0) && (co[1] == dims[1] - 1 ? dst == MPI_PROC_NULL : dst >= 0),
          "Cart_shift %d %d", src, dst);

    /* Neighbor_allgather: 4 neighbours (-x, +x, -y, +y), each sends its rank. */
    int got[4] = {-9, -9, -9, -9};
    OK(MPI_Neighbor_allgather(&rank, 1, MPI_INT, got, 1, MPI_INT, c));
    for (int d = 0; d < 2; d++) {
        int s, t;
        OK(MPI_Cart_shift(c, d, 1, &s, &t));
        CHECK(got[2 * d] == (s == MPI_PROC_NULL ? -9 : s) && got[2 * d + 1] == (t == MPI_PROC_NULL ? -9 : t),
              "Neighbor_allgather dim %d: %d %d want %d %d", d, got[2 * d], got[2 * d + 1], s, t);
    }
    /* Neighbor_alltoall, nonblocking: block j says (rank, j); the -1 neighbour's
     * block for us is its +1 block. */
    int sb[8], rb[8];
    for (int j = 0; j < 4; j++) sb[2 * j] = rank, sb[2 * j + 1] = j;
    for (int j = 0; j < 8; j++) rb[j] = -1;
    MPI_Request q;
    OK(MPI_Ineighbor_alltoall(sb, 2, MPI_INT, rb, 2, MPI_INT, c, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int d = 0; d < 2; d++) {
        int s, t;
        OK(MPI_Cart_shift(c, d, 1, &s, &t));
        if (s != MPI_PROC_NULL) CHECK(rb[4 * d] == s && rb[4 * d + 1] == 2 * d + 1, "Ineighbor_alltoall from -1 of dim %d: %d %d", d, rb[4 * d], rb[4 * d + 1]);
        if (t != MPI_PROC_NULL) CHECK(rb[4 * d + 2] == t && rb[4 * d + 3] == 2 * d, "Ineighbor_alltoall from +1 of dim %d", d);
    }
    /* persistent Neighbor_allgather, started twice */
    int val = 0, pg[4];
    OK(MPI_Neighbor_allgather_init(&val, 1, MPI_INT, pg, 1, MPI_INT, c, MPI_INFO_NULL, &q));
    for (int it = 1; it <= 2; it++) {
        val = 10 * it + rank;
        for (int j = 0; j < 4; j++) pg[j] = -9;
        OK(MPI_Start(&q));
        OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        CHECK(q != MPI_REQUEST_NULL, "a persistent request stays");
        int s, t;
        OK(MPI_Cart_shift(c, 0, 1, &s, &t));
        CHECK(pg[0] == 10 * it + s && pg[1] == 10 * it + t, "Neighbor_allgather_init round %d: %d %d", it, pg[0], pg[1]);
    }
    OK(MPI_Request_free(&q));

    /* Cart_sub: the rows. */
    int remain[2] = {0, 1};
    MPI_Comm row;
    OK(MPI_Cart_sub(c, remain, &row));
    int rs;
    MPI_Comm_size(row, &rs);
    CHECK(rs == dims[1], "Cart_sub size %d", rs);
    OK(MPI_Cartdim_get(row, &nd));
    CHECK(nd == 1, "Cart_sub dims");
    MPI_Comm dup;
    OK(MPI_Comm_dup(c, &dup));
    OK(MPI_Topo_test(dup, &st));
    CHECK(st == MPI_CART, "a duplicate keeps the topology");
    OK(MPI_Comm_free(&dup));
    OK(MPI_Comm_free(&row));
    OK(MPI_Comm_free(&c));
}

static void graph(void) {
    /* a ring as a graph: node i's neighbours are i-1 and i+1 */
    int index[16], edges[32];
    for (int i = 0; i < n; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i + n - 1) % n;
        edges[2 * i + 1] = (i + 1) % n;
    }
    MPI_Comm g;
    OK(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &g));
    int st, nn, ne, k, nb[2];
    OK(MPI_Topo_test(g, &st));
    CHECK(st == MPI_GRAPH, "graph Topo_test");
    OK(MPI_Graphdims_get(g, &nn, &ne));
    CHECK(nn == n && ne == 2 * n, "Graphdims_get");
    OK(MPI_Graph_neighbors_count(g, rank, &k));
    CHECK(k == 2, "Graph_neighbors_count");
    OK(MPI_Graph_neighbors(g, rank, 2, nb));
    CHECK(nb[0] == (rank + n - 1) % n && nb[1] == (rank + 1) % n, "Graph_neighbors");
    int gi[16], ge[32];
    OK(MPI_Graph_get(g, n, 2 * n, gi, ge));
    CHECK(gi[n - 1] == 2 * n && ge[1] == 1 % n, "Graph_get");
    /* Neighbor_allgatherv: from each neighbour rank+1 ints, at displacements 0 and 8 */
    int send[8], recv[16], counts[2], displs[2] = {0, 8};
    for (int i = 0; i < 8; i++) send[i] = rank;
    counts[0] = nb[0] + 1, counts[1] = nb[1] + 1;
    for (int i = 0; i < 16; i++) recv[i] = -1;
    /* each rank sends rank+1 ints: the receiver's counts are its neighbours' ranks + 1 */
    OK(MPI_Neighbor_allgatherv(send, rank + 1, MPI_INT, recv, counts, displs, MPI_INT, g));
    for (int i = 0; i < counts[0]; i++) CHECK(recv[i] == nb[0], "Neighbor_allgatherv block 0");
    for (int i = 0; i < counts[1]; i++) CHECK(recv[8 + i] == nb[1], "Neighbor_allgatherv block 1");
    /* The distributed graph queries are for distributed graphs only (MPI 4.1
     * section 8.5.5): on a graph they fail, as in the Go library and MPICH. */
    int dic, doc, w, cls;
    int rc = MPI_Dist_graph_neighbors_count(g, &dic, &doc, &w);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TOPOLOGY, "Dist_graph_neighbors_count on a graph: class %d", cls);
    rc = MPI_Dist_graph_neighbors(g, 2, nb, MPI_UNWEIGHTED, 2, nb, MPI_UNWEIGHTED);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TOPOLOGY, "Dist_graph_neighbors on a graph: class %d", cls);
    OK(MPI_Comm_free(&g));
}

static void distgraph(void) {
    /* a directed ring: each rank sends to rank+1 with weight rank */
    int to = (rank + 1) % n, from = (rank + n - 1) % n, wt = rank, fw = from;
    MPI_Comm d;
    OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &from, &fw, 1, &to, &wt, MPI_INFO_NULL, 0, &d));
    int st, in, out, weighted;
    OK(MPI_Topo_test(d, &st));
    CHECK(st == MPI_DIST_GRAPH, "dist graph Topo_test");
    OK(MPI_Dist_graph_neighbors_count(d, &in, &out, &weighted));
    CHECK(in == 1 && out == 1 && weighted, "Dist_graph_neighbors_count");
    int s, sw, t, tw;
    OK(MPI_Dist_graph_neighbors(d, 1, &s, &sw, 1, &t, &tw));
    CHECK(s == from && sw == from && t == to && tw == rank, "Dist_graph_neighbors");
    /* Neighbor_alltoallv, and Neighbor_alltoallw with a strided type */
    double x[3] = {rank, rank + 0.5, rank + 0.25}, y[3] = {0};
    int sc = 3, sd = 0, rc = 3, rd = 0;
    OK(MPI_Neighbor_alltoallv(x, &sc, &sd, MPI_DOUBLE, y, &rc, &rd, MPI_DOUBLE, d));
    CHECK(y[0] == from && y[1] == from + 0.5 && y[2] == from + 0.25, "Neighbor_alltoallv");
    MPI_Datatype every2;
    OK(MPI_Type_vector(2, 1, 2, MPI_INT, &every2));
    OK(MPI_Type_commit(&every2));
    int a[3] = {rank, -5, rank * 7}, b[2] = {-1, -1};
    MPI_Aint sdp = 0, rdp = 0;
    int one = 1, two = 2;
    MPI_Request q;
    OK(MPI_Ineighbor_alltoallw(a, &one, &sdp, &every2, b, &two, &rdp, (MPI_Datatype[]){MPI_INT}, d, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK(b[0] == from && b[1] == from * 7, "Ineighbor_alltoallw: %d %d", b[0], b[1]);
    /* a NULL recvbuf whose blocks span bytes: MPI_ERR_BUFFER, not a crash */
    OK(MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN));
    int cls = -1;
    MPI_Error_class(MPI_Neighbor_alltoallw(a, &one, &sdp, &every2, NULL, &two, &rdp, (MPI_Datatype[]){MPI_INT}, d), &cls);
    CHECK(cls == MPI_ERR_BUFFER, "Neighbor_alltoallw into a NULL recvbuf: class %d, want MPI_ERR_BUFFER", cls);
    OK(MPI_Barrier(d));
    OK(MPI_Type_free(&every2));
    OK(MPI_Comm_free(&d));

    /* Dist_graph_create: rank 0 names every edge of the ring, unweighted */
    int srcs[16], degs[16], dsts[16];
    int k = rank == 0 ? n : 0;
    for (int i = 0; i < k; i++) srcs[i] = i, degs[i] = 1, dsts[i] = (i + 1) % n;
    OK(MPI_Dist_graph_create(MPI_COMM_WORLD, k, srcs, degs, dsts, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &d));
    OK(MPI_Dist_graph_neighbors_count(d, &in, &out, &weighted));
    CHECK(in == 1 && out == 1 && !weighted, "Dist_graph_create counts %d %d %d", in, out, weighted);
    OK(MPI_Dist_graph_neighbors(d, 1, &s, &sw, 1, &t, &tw));
    CHECK(s == from && t == to, "Dist_graph_create neighbours");
    s = t = -1;
    OK(MPI_Dist_graph_neighbors(d, 1, &s, MPI_UNWEIGHTED, 1, &t, MPI_UNWEIGHTED));
    CHECK(s == from && t == to, "Dist_graph_neighbors with MPI_UNWEIGHTED");
    int v = rank * 3, g = -1;
    OK(MPI_Neighbor_alltoall_c(&v, 1, MPI_INT, &g, 1, MPI_INT, d));
    CHECK(g == from * 3, "Neighbor_alltoall_c");
    OK(MPI_Comm_free(&d));

    /* weighted with no edges: MPI_WEIGHTS_EMPTY */
    OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, 0, NULL,
                                      MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &d));
    OK(MPI_Dist_graph_neighbors_count(d, &in, &out, &weighted));
    CHECK(in == 0 && out == 0 && weighted, "MPI_WEIGHTS_EMPTY graph counts %d %d %d", in, out, weighted);
    OK(MPI_Comm_free(&d));
}

/* class is the error class of the return code rc. */
static int class(int rc) {
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

/* has says whether the message of error code rc contains what. */
static int has(int rc, const char *what) {
    char s[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, s, &len);
    return strstr(s, what) != NULL;
}

/* standard checks where the C library and the Go one used to answer differently;
 * both now give the standard's answer (mpi/topology*_test.go checks Go's). */
static void standard(void) {
    /* Dims_create: of the grids with the smallest spread, the one whose smallest
     * dimension is largest (MPICH's answer), not 20x18x14. */
    int d3[3] = {0, 0, 0};
    OK(MPI_Dims_create(5040, 3, d3));
    CHECK(d3[0] == 21 && d3[1] == 16 && d3[2] == 15, "Dims_create(5040,3) %d %d %d", d3[0], d3[1], d3[2]);
    OK(MPI_Dims_create(1, 0, NULL));

    /* Valid but different dims: every rank must pass the same ones. */
    int dims[2] = {2, 2}, periods[2] = {0, 0};
    if (rank == 2) dims[0] = 4, dims[1] = 1;
    MPI_Comm c = MPI_COMM_WORLD;
    int rc = MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c);
    CHECK(class(rc) == MPI_ERR_ARG && has(rc, "different arguments") && c == MPI_COMM_WORLD,
          "Cart_create with different dims: class %d", class(rc));

    /* A NULL array on one rank fails every rank; none waits for it. */
    dims[0] = 2, dims[1] = 2;
    rc = MPI_Cart_create(MPI_COMM_WORLD, 2, rank == 3 ? NULL : dims, periods, 0, &c);
    CHECK(class(rc) == MPI_ERR_ARG && has(rc, rank == 3 ? "dims is NULL" : "rank 3"), "Cart_create with NULL dims on rank 3: class %d",
          class(rc));

    /* Cart_sub agrees too: ranks passing different remain_dims all fail. */
    OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c));
    int remain[2] = {rank == 0, 1};
    MPI_Comm sub = MPI_COMM_NULL;
    rc = MPI_Cart_sub(c, remain, &sub);
    CHECK(class(rc) == MPI_ERR_ARG && sub == MPI_COMM_NULL, "Cart_sub with different remain_dims: class %d", class(rc));
    OK(MPI_Comm_free(&c));

    /* Graph_map checks the graph as Graph_create does, and a graph of no nodes
     * leaves every rank out. */
    int index[2] = {1, 2}, edges[2] = {1, 0}, newrank = 0;
    OK(MPI_Graph_map(MPI_COMM_WORLD, 0, index, edges, &newrank));
    CHECK(newrank == MPI_UNDEFINED, "Graph_map of no nodes: %d", newrank);
    OK(MPI_Graph_map(MPI_COMM_WORLD, 2, index, edges, &newrank));
    CHECK(newrank == (rank < 2 ? rank : MPI_UNDEFINED), "Graph_map: %d", newrank);
    edges[1] = 5;
    rc = MPI_Graph_map(MPI_COMM_WORLD, 2, index, edges, &newrank);
    CHECK(class(rc) == MPI_ERR_RANK && has(rc, "edges[1] = 5"), "Graph_map with edge 5: class %d", class(rc));
    index[1] = 0;
    rc = MPI_Graph_map(MPI_COMM_WORLD, 2, index, edges, &newrank);
    CHECK(class(rc) == MPI_ERR_ARG && has(rc, "index[1] = 0"), "Graph_map with a decreasing index: class %d", class(rc));

    /* Weights are non-negative: rank 2's negative one fails every rank. */
    int to = (rank + 1) % n, from = (rank + n - 1) % n, one = 1, wt = rank == 2 ? -5 : 1;
    MPI_Comm d = MPI_COMM_WORLD;
    rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &from, &one, 1, &to, &wt, MPI_INFO_NULL, 0, &d);
    CHECK(class(rc) == MPI_ERR_ARG && d == MPI_COMM_WORLD && has(rc, rank == 2 ? "destweights[0] = -5" : "rank 2"),
          "a negative weight on rank 2: class %d", class(rc));
    /* MPI_WEIGHTS_EMPTY is for no edges. */
    rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &from, MPI_WEIGHTS_EMPTY, 1, &to, &one, MPI_INFO_NULL, 0, &d);
    CHECK(class(rc) == MPI_ERR_ARG, "MPI_WEIGHTS_EMPTY for an edge: class %d", class(rc));

    /* Whether the graph is weighted is one answer for all ranks: rank 0, with no
     * edges, gives MPI_UNWEIGHTED while the others give weights. */
    int in = rank == 0 || rank == 1 ? 0 : 1, out = rank == 0 || rank == n - 1 ? 0 : 1, weighted = 0, ni, no;
    int *sw = rank == 0 ? MPI_UNWEIGHTED : in ? &one : MPI_WEIGHTS_EMPTY;
    int *dw = rank == 0 ? MPI_UNWEIGHTED : out ? &one : MPI_WEIGHTS_EMPTY;
    OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, in, &from, sw, out, &to, dw, MPI_INFO_NULL, 0, &d));
    OK(MPI_Dist_graph_neighbors_count(d, &ni, &no, &weighted));
    CHECK(ni == in && no == out && weighted, "rank %d: %d %d weighted %d, want weighted everywhere", rank, ni, no, weighted);
    OK(MPI_Comm_free(&d));
}

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    cart();
    graph();
    distgraph();
    standard();
    /* one rank's bad dims fail every rank, none waits */
    int bad[2] = {rank == 1 ? 0 : 2, 2}, per[2] = {0, 0}, cls2;
    MPI_Comm never = MPI_COMM_WORLD;
    int rc2 = MPI_Cart_create(MPI_COMM_WORLD, 2, bad, per, 0, &never);
    MPI_Error_class(rc2, &cls2);
    CHECK(rc2 != MPI_SUCCESS && never == MPI_COMM_WORLD, "Cart_create with rank 1's dims bad succeeded here");
    CHECK(cls2 == MPI_ERR_DIMS, "Cart_create bad dims: class %d", cls2);
    char es[MPI_MAX_ERROR_STRING];
    int el;
    OK(MPI_Error_string(rc2, es, &el));
    CHECK(rank == 1 ? strstr(es, "dims[0] = 0") != NULL : strstr(es, "rank 1") != NULL, "the error names the cause: %s", es);
    /* no topology: a neighbourhood collective says so */
    int x = 0;
    int rc = MPI_Neighbor_allgather(&x, 1, MPI_INT, &x, 1, MPI_INT, MPI_COMM_WORLD);
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TOPOLOGY, "no topology: class %d", cls);
    OK(MPI_Finalize());
    if (rank == 0) printf("OK topo\n");
    return 0;
}
