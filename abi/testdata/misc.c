/* misc.c - on 2 ranks: info objects (MPI_INFO_ENV, ordering, errors), communicator
 * hints, Comm_split_type of every kind, Comm_idup, Isendrecv(_replace), Imrecv, the
 * decoding of datatypes, their attributes, Type_create_darray, Type_match_size. */
#include "check.h"
#include <string.h>

static int deleted = 0;

/* A user reduction on items of two ints at offsets 0 and 2 of an extent of four: it
 * reads the items where the datatype puts them (a wrong layout gives wrong sums). */
static int op_calls = 0;
static void sum_strided(void *in, void *inout, int *len, MPI_Datatype *dt) {
    int *a = in, *b = inout;
    MPI_Aint lb, ext;
    MPI_Type_get_extent(*dt, &lb, &ext);
    if (ext != 4 * (MPI_Aint)sizeof(int)) abort();
    for (int i = 0; i < *len; i++) {
        b[4 * i] += a[4 * i];
        b[4 * i + 2] += a[4 * i + 2];
    }
    op_calls++;
}
static int del_fn(MPI_Datatype t, int key, void *val, void *extra) {
    (void)t, (void)key, (void)extra;
    deleted += *(int *)val;
    return MPI_SUCCESS;
}

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    /* info */
    MPI_Info in, d;
    char v[64], k[MPI_MAX_INFO_KEY];
    int flag, nk, len;
    OK(MPI_Info_create(&in));
    OK(MPI_Info_set(in, "zeta", "1"));
    OK(MPI_Info_set(in, "alpha", "two"));
    OK(MPI_Info_set(in, "zeta", "3"));
    OK(MPI_Info_get_nkeys(in, &nk));
    CHECK(nk == 2, "nkeys %d", nk);
    OK(MPI_Info_get_nthkey(in, 0, k));
    CHECK(strcmp(k, "zeta") == 0, "nthkey keeps the order of first set: %s", k);
    OK(MPI_Info_get(in, "zeta", 63, v, &flag));
    CHECK(flag && strcmp(v, "3") == 0, "Info_get %s", v);
    OK(MPI_Info_get_valuelen(in, "alpha", &len, &flag));
    CHECK(flag && len == 3, "valuelen");
    len = 2;
    OK(MPI_Info_get_string(in, "alpha", &len, v, &flag));
    CHECK(flag && len == 4 && strcmp(v, "t") == 0, "get_string truncates and says the size: %d %s", len, v);
    OK(MPI_Info_dup(in, &d));
    OK(MPI_Info_delete(d, "zeta"));
    int rc = MPI_Info_delete(d, "zeta"), cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_INFO_NOKEY, "deleting a missing key: class %d", cls);
    OK(MPI_Info_get(in, "zeta", 63, v, &flag));
    CHECK(flag, "a dup is a copy");
    OK(MPI_Info_get(MPI_INFO_ENV, "command", 63, v, &flag));
    CHECK(flag && strstr(v, "misc") != NULL, "MPI_INFO_ENV command %s", v);
    OK(MPI_Info_get(MPI_INFO_ENV, "maxprocs", 63, v, &flag));
    CHECK(flag && atoi(v) == n, "MPI_INFO_ENV maxprocs %s", v);
    rc = MPI_Info_set(MPI_INFO_ENV, "x", "y");
    CHECK(rc != MPI_SUCCESS, "MPI_INFO_ENV is read-only");
    /* hints on communicators: the ones mpigo takes are reported, a key it ignores
     * is not (MPI 4.1 7.4.4) */
    MPI_Comm c2;
    OK(MPI_Info_set(in, "mpi_assert_no_any_tag", "true"));
    OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, in, &c2));
    MPI_Info used;
    OK(MPI_Comm_get_info(c2, &used));
    OK(MPI_Info_get(used, "mpi_assert_no_any_tag", 63, v, &flag));
    CHECK(flag && strcmp(v, "true") == 0, "Comm_get_info: mpi_assert_no_any_tag %s", flag ? v : "not set");
    OK(MPI_Info_get(used, "alpha", 63, v, &flag));
    CHECK(!flag, "Comm_get_info reports the ignored key alpha");
    OK(MPI_Info_free(&used));
    OK(MPI_Comm_free(&c2));
    OK(MPI_Info_free(&d));
    CHECK(d == MPI_INFO_NULL, "Info_free sets MPI_INFO_NULL");

    /* split types */
    MPI_Comm s;
    int sz;
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &s));
    MPI_Comm_size(s, &sz);
    CHECK(sz == n, "SHARED: one node, %d", sz);
    OK(MPI_Comm_free(&s));
    MPI_Info hw;
    OK(MPI_Info_create(&hw));
    OK(MPI_Info_set(hw, "mpi_hw_resource_type", "mpi_shared_memory"));
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, hw, &s));
    CHECK(s != MPI_COMM_NULL, "HW_GUIDED mpi_shared_memory");
    OK(MPI_Comm_free(&s));
    OK(MPI_Info_set(hw, "mpi_hw_resource_type", "mpi://no_such"));
    OK(MPI_Info_free(&hw));
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, rank, MPI_INFO_NULL, &s));
    if (s != MPI_COMM_NULL) OK(MPI_Comm_free(&s));
    OK(MPI_Info_create(&hw));
    OK(MPI_Info_set(hw, "mpi_pset_name", "mpi://SELF"));
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, rank, hw, &s));
    MPI_Comm_size(s, &sz);
    CHECK(sz == 1, "RESOURCE_GUIDED mpi://SELF: %d", sz);
    OK(MPI_Comm_free(&s));
    OK(MPI_Info_free(&hw));
    MPI_Info hwi;
    OK(MPI_Get_hw_resource_info(&hwi));
    OK(MPI_Info_get_nkeys(hwi, &nk));
    CHECK(nk >= 1, "Get_hw_resource_info has keys");
    OK(MPI_Info_free(&hwi));

    /* Comm_idup, Isendrecv, Isendrecv_replace, Imrecv */
    MPI_Comm dup;
    MPI_Request q;
    OK(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    int peer = 1 - rank, x = rank + 40, y = -1;
    MPI_Status st;
    OK(MPI_Isendrecv(&x, 1, MPI_INT, peer, 3, &y, 1, MPI_INT, peer, 3, dup, &q));
    OK(MPI_Wait(&q, &st));
    CHECK(y == peer + 40 && st.MPI_SOURCE == peer && st.MPI_TAG == 3, "Isendrecv on an idup'd comm");
    int rep[2] = {rank, rank * 10};
    OK(MPI_Isendrecv_replace(rep, 2, MPI_INT, peer, 4, peer, 4, dup, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK(rep[0] == peer && rep[1] == peer * 10, "Isendrecv_replace");
    OK(MPI_Send(&x, 1, MPI_INT, peer, 5, dup));
    MPI_Message m;
    OK(MPI_Mprobe(peer, 5, dup, &m, MPI_STATUS_IGNORE));
    OK(MPI_Imrecv(&y, 1, MPI_INT, &m, &q));
    CHECK(m == MPI_MESSAGE_NULL, "Imrecv takes the message");
    OK(MPI_Wait(&q, &st));
    CHECK(y == peer + 40 && st.MPI_SOURCE == peer, "Imrecv");
    OK(MPI_Comm_free(&dup));

    /* decoding */
    MPI_Datatype vec, st2, back[2];
    OK(MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &vec));
    int ni, na, nt, comb;
    OK(MPI_Type_get_envelope(vec, &ni, &na, &nt, &comb));
    CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nt == 1, "vector envelope");
    int is[16];
    MPI_Aint as[8];
    OK(MPI_Type_get_contents(vec, 16, 8, 2, is, as, back));
    CHECK(is[0] == 3 && is[1] == 2 && is[2] == 5 && back[0] == MPI_DOUBLE, "vector contents");
    OK(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nt, &comb));
    CHECK(comb == MPI_COMBINER_NAMED, "named");
    int bl[2] = {1, 1};
    MPI_Aint dp[2] = {0, 64};
    MPI_Datatype ts[2] = {MPI_INT, vec};
    OK(MPI_Type_create_struct(2, bl, dp, ts, &st2));
    OK(MPI_Type_get_envelope(st2, &ni, &na, &nt, &comb));
    CHECK(comb == MPI_COMBINER_STRUCT && ni == 3 && na == 2 && nt == 2, "struct envelope");
    OK(MPI_Type_get_contents(st2, 16, 8, 2, is, as, back));
    CHECK(back[0] == MPI_INT && as[1] == 64, "struct contents");
    OK(MPI_Type_get_envelope(back[1], &ni, &na, &nt, &comb));
    CHECK(comb == MPI_COMBINER_VECTOR, "a derived part comes back as a new handle");
    OK(MPI_Type_free(&back[1]));
    MPI_Datatype sub;
    int sizes[2] = {4, 6}, subs[2] = {2, 3}, starts[2] = {1, 2};
    OK(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INT, &sub));
    OK(MPI_Type_get_contents(sub, 16, 8, 2, is, as, back));
    CHECK(is[0] == 2 && is[7] == MPI_ORDER_FORTRAN, "subarray contents: order %d", is[7]);
    OK(MPI_Type_free(&sub));

    /* attributes on a datatype: copied by Type_dup, deleted by Type_free */
    int key, one = 1;
    OK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, del_fn, &key, NULL));
    OK(MPI_Type_set_attr(vec, key, &one));
    MPI_Datatype vd;
    OK(MPI_Type_dup(vec, &vd));
    int *got;
    OK(MPI_Type_get_attr(vd, key, &got, &flag));
    CHECK(flag && got == &one, "Type_dup copies the attribute");
    OK(MPI_Type_free(&vd));
    CHECK(deleted == 1, "Type_free runs the delete callback");
    OK(MPI_Type_delete_attr(vec, key));
    CHECK(deleted == 2, "Type_delete_attr");
    OK(MPI_Type_free_keyval(&key));
    CHECK(key == MPI_KEYVAL_INVALID, "Type_free_keyval");
    OK(MPI_Type_set_name(vec, "my vector"));
    char name[MPI_MAX_OBJECT_NAME];
    OK(MPI_Type_get_name(vec, name, &len));
    CHECK(strcmp(name, "my vector") == 0, "type name");
    OK(MPI_Type_free(&vec));
    OK(MPI_Type_free(&st2));

    /* darray: a 4x4 block distribution over 2x1 processes */
    MPI_Datatype da;
    int gs[2] = {4, 4}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE}, dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, ps[2] = {2, 1};
    OK(MPI_Type_create_darray(2, rank, 2, gs, dist, dargs, ps, MPI_ORDER_C, MPI_INT, &da));
    OK(MPI_Type_commit(&da));
    int dsz;
    MPI_Aint lb, ext;
    OK(MPI_Type_size(da, &dsz));
    OK(MPI_Type_get_extent(da, &lb, &ext));
    CHECK(dsz == 8 * 4 && ext == 16 * 4, "darray size %d extent %ld", dsz, (long)ext);
    OK(MPI_Type_get_envelope(da, &ni, &na, &nt, &comb));
    CHECK(comb == MPI_COMBINER_DARRAY, "darray combiner");
    OK(MPI_Type_get_contents(da, 16, 8, 2, is, as, back));
    CHECK(is[5] == MPI_DISTRIBUTE_BLOCK && is[7] == MPI_DISTRIBUTE_DFLT_DARG && is[11] == MPI_ORDER_C, "darray contents %d %d %d", is[5], is[7], is[11]);
    OK(MPI_Type_free(&da));
    MPI_Datatype ms;
    OK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &ms));
    CHECK(ms == MPI_REAL8, "match_size REAL 8");
    OK(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &ms));
    CHECK(ms == MPI_DOUBLE_INT, "Type_get_value_index");
    OK(MPI_Type_get_value_index(MPI_DOUBLE, MPI_LONG, &ms));
    CHECK(ms == MPI_DATATYPE_NULL, "Type_get_value_index without a pair type");
    OK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &ms));
    CHECK(ms == MPI_INTEGER4, "match_size INTEGER 4");

    /* user op on a type with gaps, in Allreduce and Reduce_local */
    MPI_Datatype v2, item;
    OK(MPI_Type_vector(2, 1, 2, MPI_INT, &v2));
    OK(MPI_Type_create_resized(v2, 0, 4 * sizeof(int), &item));
    OK(MPI_Type_commit(&item));
    MPI_Op uop;
    OK(MPI_Op_create(sum_strided, 1, &uop));
    int src[8], dst[8];
    for (int i = 0; i < 8; i++) src[i] = (i % 4 == 0 || i % 4 == 2) ? rank + i : -7, dst[i] = -7;
    rc = MPI_Allreduce(src, dst, 2, item, uop, MPI_COMM_WORLD);
    if (rc) { char es[MPI_MAX_ERROR_STRING]; int el; MPI_Error_string(rc, es, &el); CHECK(0, "%s", es); }
    for (int i = 0; i < 8; i += 4) {
        CHECK(dst[i] == n * i + n * (n - 1) / 2 && dst[i + 2] == n * (i + 2) + n * (n - 1) / 2, "user op on a strided type: %d %d", dst[i], dst[i + 2]);
        CHECK(dst[i + 1] == -7 && dst[i + 3] == -7, "the gaps are left alone");
    }
    /* a predefined op on the strided type, nonblocking, in place */
    int ip[8];
    for (int i = 0; i < 8; i++) ip[i] = (i % 2 == 0) ? rank + 1 : -5;
    MPI_Request rq;
    OK(MPI_Iallreduce(MPI_IN_PLACE, ip, 2, item, MPI_SUM, MPI_COMM_WORLD, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int i = 0; i < 8; i++) CHECK(ip[i] == (i % 2 == 0 ? n * (n + 1) / 2 : -5), "Iallreduce MPI_SUM in place on a strided type [%d] %d", i, ip[i]);
    OK(MPI_Reduce_local(src, dst, 2, item, uop));
    CHECK(dst[0] == n * (n - 1) / 2 + rank, "Reduce_local with a user op: %d", dst[0]);
    int pa[8] = {1, -7, 2, -7, 3, -7, 4, -7}, pb[8] = {10, -9, 20, -9, 30, -9, 40, -9};
    OK(MPI_Reduce_local(pa, pb, 2, item, MPI_SUM));
    CHECK(pb[0] == 11 && pb[2] == 22 && pb[4] == 33 && pb[6] == 44 && pb[1] == -9, "Reduce_local MPI_SUM on a strided type");
    CHECK(op_calls >= 2, "the user op ran");
    OK(MPI_Op_free(&uop));
    OK(MPI_Type_free(&v2));
    OK(MPI_Type_free(&item));

    /* partitioned point-to-point, two rounds */
    double pbuf[8];
    MPI_Request pr;
    if (rank == 0) OK(MPI_Psend_init(pbuf, 4, 2, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &pr));
    else OK(MPI_Precv_init(pbuf, 4, 2, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &pr));
    for (int round = 1; round <= 2; round++) {
        for (int i = 0; i < 8; i++) pbuf[i] = rank == 0 ? round * 100 + i : -1;
        OK(MPI_Start(&pr));
        if (rank == 0) {
            int rest[2] = {3, 2};
            OK(MPI_Pready_range(0, 1, pr));
            OK(MPI_Pready_list(2, rest, pr));
        } else {
            int arrived = 0;
            while (!arrived) OK(MPI_Parrived(pr, 3, &arrived));
        }
        OK(MPI_Wait(&pr, MPI_STATUS_IGNORE));
        if (rank == 1)
            for (int i = 0; i < 8; i++) CHECK(pbuf[i] == round * 100 + i, "partitioned round %d [%d] %g", round, i, pbuf[i]);
    }
    OK(MPI_Request_free(&pr));

    OK(MPI_Info_free(&in));
    OK(MPI_Finalize());
    if (rank == 0) printf("OK misc\n");
    return 0;
}
