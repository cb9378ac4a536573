/* found.c - behaviours MPICH's test suite (abi/suite) found wrong in mpigo's C ABI,
 * each checked here on its own so that CI, which has no MPICH sources, keeps them
 * fixed. Run on 2 ranks. */
#include "check.h"
#include <string.h>
#include <stdint.h>

/* MPI_Type_free while a receive uses the type: the receive completes normally
 * (MPICH datatype/tfree). */
static void freed_type_pending_recv(int rank) {
    int buf[64], i;
    MPI_Datatype vec;
    MPI_Request req;
    OK(MPI_Type_vector(16, 1, 4, MPI_INT, &vec));
    OK(MPI_Type_commit(&vec));
    if (rank == 1) {
        for (i = 0; i < 64; i++) buf[i] = -1;
        OK(MPI_Irecv(buf, 1, vec, 0, 7, MPI_COMM_WORLD, &req));
        OK(MPI_Type_free(&vec));
        OK(MPI_Sendrecv(NULL, 0, MPI_INT, 0, 8, NULL, 0, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (i = 0; i < 64; i++)
            CHECK(buf[i] == (i % 4 ? -1 : i / 4), "buf[%d] = %d after a receive with a freed type", i, buf[i]);
    } else if (rank == 0) {
        OK(MPI_Type_free(&vec));
        for (i = 0; i < 16; i++) buf[i] = i;
        OK(MPI_Sendrecv(NULL, 0, MPI_INT, 1, 8, NULL, 0, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        OK(MPI_Send(buf, 16, MPI_INT, 1, 7, MPI_COMM_WORLD));
    }
}

/* An attribute whose delete callback fails stays (MPI_Comm_delete_attr fails and
 * changes nothing); a copy callback that fails fails MPI_Comm_dup, which gives
 * MPI_COMM_NULL and leaves no communicator behind (MPICH attr/attrerr). */
static int refuse_delete = 1, deletes = 0;
static int copy_fails(MPI_Comm c, int k, void *x, void *in, void *out, int *flag) {
    (void)c; (void)k; (void)x; (void)in; (void)out;
    *flag = 1;
    return MPI_ERR_OTHER;
}
static int delete_refuses(MPI_Comm c, int k, void *v, void *x) {
    (void)c; (void)k; (void)v; (void)x;
    deletes++;
    return refuse_delete ? MPI_ERR_OTHER : MPI_SUCCESS;
}
static void failing_attr_callbacks(void) {
    MPI_Comm dup, d2 = MPI_COMM_WORLD;
    int key, flag = 0;
    void *val;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    OK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    OK(MPI_Comm_create_keyval(copy_fails, delete_refuses, &key, NULL));
    OK(MPI_Comm_set_attr(dup, key, (void *)(MPI_Aint)42));
    CHECK(MPI_Comm_delete_attr(dup, key) != MPI_SUCCESS, "delete_attr succeeded though the callback failed");
    OK(MPI_Comm_get_attr(dup, key, &val, &flag));
    CHECK(flag && val == (void *)(MPI_Aint)42, "the attribute whose delete failed is gone (flag %d)", flag);
    CHECK(MPI_Comm_dup(dup, &d2) != MPI_SUCCESS, "Comm_dup succeeded though the copy callback failed");
    CHECK(d2 == MPI_COMM_NULL, "Comm_dup failed but newcomm is not MPI_COMM_NULL");
    refuse_delete = 0;
    OK(MPI_Comm_delete_attr(dup, key));
    OK(MPI_Comm_get_attr(dup, key, &val, &flag));
    CHECK(!flag, "the attribute is still there after a delete that succeeded");
    OK(MPI_Comm_free_keyval(&key));
    OK(MPI_Comm_free(&dup));
}

/* MPI_Group_translate_ranks maps MPI_PROC_NULL to MPI_PROC_NULL (MPI-2.2 errata;
 * MPICH group/gtranks); MPI_ANY_SOURCE is no rank. */
static void translate_proc_null(int rank) {
    MPI_Group world, self;
    int in[3] = {MPI_PROC_NULL, rank, MPI_PROC_NULL}, out[3] = {0, -1, 0};
    OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    OK(MPI_Comm_group(MPI_COMM_SELF, &self));
    OK(MPI_Group_translate_ranks(world, 3, in, self, out));
    CHECK(out[0] == MPI_PROC_NULL && out[1] == 0 && out[2] == MPI_PROC_NULL,
          "translated {PROC_NULL, %d, PROC_NULL} to {%d, %d, %d}", rank, out[0], out[1], out[2]);
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    in[0] = MPI_ANY_SOURCE;
    CHECK(MPI_Group_translate_ranks(world, 1, in, self, out) != MPI_SUCCESS,
          "MPI_ANY_SOURCE was translated as a rank");
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    OK(MPI_Group_free(&world));
    OK(MPI_Group_free(&self));
}

/* The attributes of MPI_COMM_SELF are deleted at MPI_Finalize last set, first
 * deleted (MPI-2.2; MPICH init/attrself). */
static int self_keys[4], self_deleted = 0, self_order_ok = 1;
static int self_delete(MPI_Comm c, int k, void *v, void *x) {
    (void)c; (void)v; (void)x;
    /* set in the order 2, 0, 3, 1: deleted 1, 3, 0, 2 */
    static const int want[4] = {1, 3, 0, 2};
    if (self_deleted >= 4 || k != self_keys[want[self_deleted]]) self_order_ok = 0;
    self_deleted++;
    return MPI_SUCCESS;
}
static void self_attrs_lifo(void) {
    int i;
    for (i = 0; i < 4; i++) OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &self_keys[i], NULL));
    OK(MPI_Comm_set_attr(MPI_COMM_SELF, self_keys[2], NULL));
    OK(MPI_Comm_set_attr(MPI_COMM_SELF, self_keys[0], NULL));
    OK(MPI_Comm_set_attr(MPI_COMM_SELF, self_keys[3], NULL));
    OK(MPI_Comm_set_attr(MPI_COMM_SELF, self_keys[1], NULL));
    for (i = 0; i < 4; i++) {
        int k = self_keys[i];
        OK(MPI_Comm_free_keyval(&k));
    }
}

/* MAXLOC and MINLOC on several pairs of the padded pair types (C pads {double; int},
 * {long; int}, {short; int}): ties go to the lower rank in every element, not only
 * the first (MPICH coll/opmaxloc). */
#define PAIRS(T, DT, name)                                                         \
    do {                                                                           \
        struct { T val; int loc; } in[3], out[3];                                  \
        for (i = 0; i < 3; i++) {                                                  \
            in[i].val = (T)(i == 2 ? rank : 0);                                    \
            in[i].loc = rank;                                                      \
            out[i].val = (T)-7;                                                    \
            out[i].loc = -1;                                                       \
        }                                                                          \
        OK(MPI_Allreduce(in, out, 3, DT, MPI_MAXLOC, MPI_COMM_WORLD));             \
        CHECK(out[0].loc == 0 && out[1].loc == 0 && out[1].val == 0 &&             \
              out[2].val == (T)(size - 1) && out[2].loc == size - 1,               \
              "%s MAXLOC: locs %d %d %d", name, out[0].loc, out[1].loc, out[2].loc); \
        OK(MPI_Allreduce(in, out, 3, DT, MPI_MINLOC, MPI_COMM_WORLD));             \
        CHECK(out[0].loc == 0 && out[1].loc == 0 && out[2].val == 0 && out[2].loc == 0, \
              "%s MINLOC: locs %d %d %d", name, out[0].loc, out[1].loc, out[2].loc); \
        for (i = 0; i < 3; i++) out[i] = in[i], out[i].loc = 9;                   \
        OK(MPI_Reduce_local(in, out, 3, DT, MPI_MAXLOC));                          \
        CHECK(out[0].loc == rank && out[1].loc == rank && out[2].loc == rank,      \
              "%s Reduce_local MAXLOC: locs %d %d %d", name, out[0].loc, out[1].loc, out[2].loc); \
    } while (0)

static void maxloc_pairs(int rank) {
    int i, size;
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    PAIRS(double, MPI_DOUBLE_INT, "MPI_DOUBLE_INT");
    PAIRS(long, MPI_LONG_INT, "MPI_LONG_INT");
    PAIRS(short, MPI_SHORT_INT, "MPI_SHORT_INT");
    PAIRS(float, MPI_FLOAT_INT, "MPI_FLOAT_INT");
    PAIRS(int, MPI_2INT, "MPI_2INT");
}

/* In place, MPI_Reduce_scatter(_block)'s recvbuf holds every rank's blocks on the way
 * in (MPICH coll/red_scat_block). */
static void reduce_scatter_in_place(int rank) {
    int size, i, buf[8], counts[4];
    MPI_Request req;
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    for (i = 0; i < size; i++) buf[i] = rank + i;
    OK(MPI_Reduce_scatter_block(MPI_IN_PLACE, buf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(buf[0] == size * rank + size * (size - 1) / 2, "Reduce_scatter_block in place: %d", buf[0]);
    for (i = 0; i < 2 * size; i++) buf[i] = rank + i;
    for (i = 0; i < size; i++) counts[i] = 2;
    OK(MPI_Ireduce_scatter(MPI_IN_PLACE, buf, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (i = 0; i < 2; i++)
        CHECK(buf[i] == size * (2 * rank + i) + size * (size - 1) / 2, "Ireduce_scatter in place: buf[%d] = %d", i, buf[i]);
}

/* The v forms with a zero-sized datatype and nonzero counts, matched by zero counts
 * of MPI_INT: nothing moves, nothing fails (MPICH coll/alltoallw_zeros). */
static void zero_size_v_forms(int rank) {
    int size, i, sb = 7, rb = 9, ones[4], zeros[4], disp[4];
    MPI_Datatype empty;
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    OK(MPI_Type_contiguous(0, MPI_INT, &empty));
    OK(MPI_Type_commit(&empty));
    for (i = 0; i < size; i++) ones[i] = 1, zeros[i] = 0, disp[i] = 0;
    OK(MPI_Alltoallv(&sb, ones, disp, empty, &rb, zeros, disp, MPI_INT, MPI_COMM_WORLD));
    OK(MPI_Alltoallv(&sb, zeros, disp, MPI_INT, &rb, ones, disp, empty, MPI_COMM_WORLD));
    OK(MPI_Allgatherv(&sb, 1, empty, &rb, ones, disp, empty, MPI_COMM_WORLD));
    OK(MPI_Gatherv(&sb, 0, MPI_INT, &rb, ones, disp, empty, 0, MPI_COMM_WORLD));
    OK(MPI_Scatterv(&sb, ones, disp, empty, &rb, 0, MPI_INT, 0, MPI_COMM_WORLD));
    CHECK(sb == 7 && rb == 9, "a zero-sized type moved data: %d %d", sb, rb);
    OK(MPI_Type_free(&empty));
    (void)rank;
}

/* The info hint mpi_minimum_memory_alignment is honoured by MPI_Alloc_mem (MPI 4.1
 * §12.2); a value that is not a power of two is MPI_ERR_INFO_VALUE. (An MPICH test,
 * rma/allocmem in newer versions, asks for 4096.) */
static void alloc_mem_alignment(void) {
    MPI_Info in;
    void *p;
    int n, cls;
    OK(MPI_Info_create(&in));
    OK(MPI_Info_set(in, "mpi_minimum_memory_alignment", "4096"));
    for (n = 1; n < 100000; n *= 7) {
        OK(MPI_Alloc_mem(n, in, &p));
        CHECK((uintptr_t)p % 4096 == 0, "MPI_Alloc_mem(%d) with 4096 alignment gave %p", n, p);
        OK(MPI_Free_mem(p));
    }
    OK(MPI_Info_set(in, "mpi_minimum_memory_alignment", "3000"));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    n = MPI_Alloc_mem(10, in, &p);
    OK(MPI_Error_class(n, &cls));
    CHECK(cls == MPI_ERR_INFO_VALUE, "alignment 3000: class %d", cls);
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    OK(MPI_Info_free(&in));
}

/* Sizes and counts an int cannot hold come back as MPI_UNDEFINED from the int forms
 * that define it (MPI_ERR_VALUE_TOO_LARGE from MPI_Pack_size), whole from the _c
 * forms (MPICH datatype/large-count). */
static void int_overflow_undefined(void) {
    MPI_Datatype four, big;
    MPI_Status st;
    MPI_Count size_c, n_c;
    int size, n;
    OK(MPI_Type_contiguous(4, MPI_INT, &four));
    OK(MPI_Type_vector(1 << 30, 1, 3, four, &big)); /* 2^34 bytes of data */
    OK(MPI_Type_commit(&big));
    OK(MPI_Type_size(big, &size));
    CHECK(size == MPI_UNDEFINED, "MPI_Type_size of 2^34 bytes gave %d", size);
    OK(MPI_Type_size_c(big, &size_c));
    CHECK(size_c == (MPI_Count)1 << 34, "MPI_Type_size_c gave %lld", (long long)size_c);
    OK(MPI_Status_set_elements_c(&st, MPI_BYTE, (MPI_Count)1 << 33));
    OK(MPI_Get_count(&st, MPI_BYTE, &n));
    CHECK(n == MPI_UNDEFINED, "MPI_Get_count of 2^33 bytes gave %d", n);
    OK(MPI_Get_elements(&st, MPI_BYTE, &n));
    CHECK(n == MPI_UNDEFINED, "MPI_Get_elements of 2^33 bytes gave %d", n);
    OK(MPI_Get_count_c(&st, MPI_BYTE, &n_c));
    CHECK(n_c == (MPI_Count)1 << 33, "MPI_Get_count_c gave %lld", (long long)n_c);
    /* MPI_Pack_size has no MPI_UNDEFINED answer: the int form raises
     * MPI_ERR_VALUE_TOO_LARGE (MPI 4.1 errata), the _c form answers whole */
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int cls = -1;
    size = -7;
    n = MPI_Pack_size(1, big, MPI_COMM_SELF, &size);
    OK(MPI_Error_class(n, &cls));
    CHECK(cls == MPI_ERR_VALUE_TOO_LARGE && size == -7, "MPI_Pack_size of 2^34 bytes: class %d, size %d", cls, size);
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    OK(MPI_Pack_size_c(1, big, MPI_COMM_SELF, &size_c));
    CHECK(size_c >= (MPI_Count)1 << 34, "MPI_Pack_size_c gave %lld", (long long)size_c);
    OK(MPI_Type_free(&big));
    OK(MPI_Type_free(&four));
}

/* A negative extent is legal (MPI 4.1 §5.1.7): MPI_Type_create_resized takes it, the
 * queries return it, and items of a count step backwards through memory in sends,
 * receives, packing and unpacking (MPICH datatype/large-count). */
static void negative_extent(int rank) {
    enum { N = 100 };
    double a[N], b[N];
    MPI_Datatype last, rev, two, big;
    MPI_Aint lb, ext, tlb, text;
    MPI_Count lb_c, ext_c;
    int i, pos = 0;
    char packed[8 * N];
    OK(MPI_Type_create_resized(MPI_INT, INT32_MAX, -1024, &big));
    OK(MPI_Type_get_extent(big, &lb, &ext));
    CHECK(lb == INT32_MAX && ext == -1024, "resized(INT_MAX, -1024): lb %ld extent %ld", (long)lb, (long)ext);
    OK(MPI_Type_get_extent_c(big, &lb_c, &ext_c));
    CHECK(lb_c == INT32_MAX && ext_c == -1024, "_c: lb %lld extent %lld", (long long)lb_c, (long long)ext_c);
    OK(MPI_Type_free(&big));
    /* one double at the end of a[], resized to extent -8: a[] backwards */
    MPI_Aint d = 8 * (N - 1);
    int one = 1;
    OK(MPI_Type_create_hindexed(1, &one, &d, MPI_DOUBLE, &last));
    OK(MPI_Type_create_resized(last, d, -8, &rev));
    OK(MPI_Type_commit(&rev));
    OK(MPI_Type_get_true_extent(rev, &tlb, &text));
    CHECK(tlb == d && text == 8, "true extent of the reversed type: %ld %ld", (long)tlb, (long)text);
    /* two copies: markers at d, d-8 (lb) and d-8, d-16 (ub): lb d-8, extent -8 */
    OK(MPI_Type_contiguous(2, rev, &two));
    OK(MPI_Type_get_extent(two, &lb, &ext));
    CHECK(lb == d - 8 && ext == 0, "contiguous(2) of extent -8: lb %ld extent %ld", (long)lb, (long)ext);
    OK(MPI_Type_free(&two));
    for (i = 0; i < N; i++) a[i] = i, b[i] = -1;
    if (rank == 0) {
        OK(MPI_Send(a, N, rev, 1, 11, MPI_COMM_WORLD));
        OK(MPI_Send(a, N, MPI_DOUBLE, 1, 12, MPI_COMM_WORLD));
    } else if (rank == 1) {
        MPI_Status st;
        int n;
        OK(MPI_Recv(b, N, MPI_DOUBLE, 0, 11, MPI_COMM_WORLD, &st));
        for (i = 0; i < N; i++) CHECK(b[i] == N - 1 - i, "plain receive of reversed items: b[%d] = %g", i, b[i]);
        OK(MPI_Recv(b, N, rev, 0, 12, MPI_COMM_WORLD, &st));
        for (i = 0; i < N; i++) CHECK(b[i] == N - 1 - i, "reversed receive: b[%d] = %g", i, b[i]);
        OK(MPI_Get_count(&st, rev, &n));
        CHECK(n == N, "MPI_Get_count of the reversed type: %d", n);
    }
    OK(MPI_Pack(a, N, rev, packed, sizeof packed, &pos, MPI_COMM_SELF));
    CHECK(pos == 8 * N, "MPI_Pack of %d reversed items: position %d", N, pos);
    pos = 0;
    OK(MPI_Unpack(packed, sizeof packed, &pos, b, N, MPI_DOUBLE, MPI_COMM_SELF));
    for (i = 0; i < N; i++) CHECK(b[i] == N - 1 - i, "packed reversed: b[%d] = %g", i, b[i]);
    pos = 0;
    OK(MPI_Unpack(packed, sizeof packed, &pos, b, N, rev, MPI_COMM_SELF));
    for (i = 0; i < N; i++) CHECK(b[i] == i, "unpacked reversed twice: b[%d] = %g", i, b[i]);
    OK(MPI_Type_free(&rev));
    OK(MPI_Type_free(&last));
}

/* MPI_Get and MPI_Rget of more than 16 KB into a noncontiguous origin type: the
 * data arrived apart from the reply's header and was never unpacked, leaving the
 * origin untouched (MPICH rma/getfence1). */
static void large_get_noncontig_origin(int rank) {
    enum { N = 8192 };
    int *win_mem = malloc(N * sizeof(int)), *dst = malloc(2 * N * sizeof(int)), i, pass;
    MPI_Datatype every_other;
    MPI_Win win;
    MPI_Request req;
    for (i = 0; i < N; i++) win_mem[i] = rank == 0 ? i + 1 : -7;
    OK(MPI_Type_vector(N, 1, 2, MPI_INT, &every_other));
    OK(MPI_Type_commit(&every_other));
    OK(MPI_Win_create(win_mem, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    for (pass = 0; pass < 2; pass++) {
        for (i = 0; i < 2 * N; i++) dst[i] = -1;
        if (pass == 0) {
            OK(MPI_Win_fence(0, win));
            if (rank == 1) OK(MPI_Get(dst, 1, every_other, 0, 0, N, MPI_INT, win));
            OK(MPI_Win_fence(0, win));
        } else if (rank == 1) {
            OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
            OK(MPI_Rget(dst, 1, every_other, 0, 0, N, MPI_INT, win, &req));
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            OK(MPI_Win_unlock(0, win));
        }
        if (rank == 1)
            for (i = 0; i < 2 * N; i++)
                CHECK(dst[i] == (i % 2 ? -1 : i / 2 + 1), "%s into a vector: dst[%d] = %d", pass ? "Rget" : "Get", i, dst[i]);
    }
    OK(MPI_Win_free(&win));
    OK(MPI_Type_free(&every_other));
    free(win_mem);
    free(dst);
}

/* MPI_Get_accumulate with MPI_NO_OP ignores origin_addr, origin_count and
 * origin_datatype (MPI 4.1 sec. 12.3.4): a NULL origin with a nonzero count was
 * refused as MPI_ERR_BUFFER (MPICH rma/get_accumulate). */
static void no_op_ignores_origin(int rank) {
    int mem[5], res[5], i, peer = 1 - rank;
    MPI_Win win;
    MPI_Request req;
    for (i = 0; i < 5; i++) mem[i] = 100 * rank + i;
    OK(MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
    for (i = 0; i < 5; i++) res[i] = -1;
    OK(MPI_Get_accumulate(NULL, 5, MPI_INT, res, 5, MPI_INT, peer, 0, 5, MPI_INT, MPI_NO_OP, win));
    OK(MPI_Win_flush(peer, win));
    for (i = 0; i < 5; i++) CHECK(res[i] == 100 * peer + i, "NO_OP with a NULL origin: res[%d] = %d", i, res[i]);
    for (i = 0; i < 5; i++) res[i] = -1;
    OK(MPI_Rget_accumulate(NULL, 3, MPI_DATATYPE_NULL, res, 5, MPI_INT, peer, 0, 5, MPI_INT, MPI_NO_OP, win, &req));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (i = 0; i < 5; i++) CHECK(res[i] == 100 * peer + i, "Rget_accumulate NO_OP: res[%d] = %d", i, res[i]);
    OK(MPI_Win_unlock(peer, win));
    OK(MPI_Win_free(&win));
}

/* Calls that return one status leave its MPI_ERROR alone (MPI 4.1 sec. 3.2.5: only
 * the calls returning several statuses may set it, with MPI_ERR_IN_STATUS); mpigo
 * wrote MPI_SUCCESS there (MPICH pt2pt/mprobe). */
static void status_error_untouched(int rank) {
    int v = 7, r = 0, flag = 0;
    MPI_Status st;
    MPI_Message msg;
    MPI_Request req;
#define MARK() (st.MPI_ERROR = MPI_ERR_DIMS)
#define KEPT(what) CHECK(st.MPI_ERROR == MPI_ERR_DIMS, "%s set MPI_ERROR to %d", what, st.MPI_ERROR)
    if (rank == 0) {
        int i;
        for (i = 0; i < 6; i++) OK(MPI_Send(&v, 1, MPI_INT, 1, 40 + i, MPI_COMM_WORLD));
    } else {
        MARK(); OK(MPI_Recv(&r, 1, MPI_INT, 0, 40, MPI_COMM_WORLD, &st)); KEPT("MPI_Recv");
        MARK(); OK(MPI_Probe(0, 41, MPI_COMM_WORLD, &st)); KEPT("MPI_Probe");
        do { MARK(); OK(MPI_Iprobe(0, 41, MPI_COMM_WORLD, &flag, &st)); } while (!flag);
        KEPT("MPI_Iprobe");
        MARK(); OK(MPI_Recv(&r, 1, MPI_INT, 0, 41, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MARK(); OK(MPI_Mprobe(0, 42, MPI_COMM_WORLD, &msg, &st)); KEPT("MPI_Mprobe");
        MARK(); OK(MPI_Mrecv(&r, 1, MPI_INT, &msg, &st)); KEPT("MPI_Mrecv");
        MARK(); OK(MPI_Irecv(&r, 1, MPI_INT, 0, 43, MPI_COMM_WORLD, &req));
        OK(MPI_Wait(&req, &st)); KEPT("MPI_Wait");
        OK(MPI_Irecv(&r, 1, MPI_INT, 0, 44, MPI_COMM_WORLD, &req));
        do { MARK(); OK(MPI_Test(&req, &flag, &st)); } while (!flag);
        KEPT("MPI_Test");
        MARK(); OK(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st)); KEPT("MPI_Mprobe of MPI_PROC_NULL");
        MARK(); OK(MPI_Mrecv(&r, 0, MPI_INT, &msg, &st)); KEPT("MPI_Mrecv of MPI_MESSAGE_NO_PROC");
        MARK(); OK(MPI_Recv(&r, 1, MPI_INT, 0, 45, MPI_COMM_WORLD, &st)); KEPT("MPI_Recv");
    }
#undef MARK
#undef KEPT
}

/* A user's error handler may change the code the call returns: its second argument
 * is "the error code to be returned by the MPI routine that raised the error" (MPI 4.1
 * sec. 9.3), in and out as MPICH and Open MPI read it; mpigo returned the code it
 * passed (MPICH errors/io/fileerrret). */
static int to_success_calls = 0;
static void file_to_success(MPI_File *fh, int *code, ...) {
    (void)fh;
    to_success_calls++;
    *code = MPI_SUCCESS;
}
static void comm_to_other(MPI_Comm *c, int *code, ...) {
    (void)c;
    *code = MPI_ERR_OTHER;
}
static void handler_sets_code(int rank) {
    MPI_Errhandler eh, old;
    MPI_File fh = MPI_FILE_NULL;
    int rc, cls;
    OK(MPI_File_create_errhandler(file_to_success, &eh));
    OK(MPI_File_set_errhandler(MPI_FILE_NULL, eh));
    OK(MPI_Errhandler_free(&eh));
    rc = MPI_File_open(MPI_COMM_WORLD, "/nonexistent-mpigo-dir/f", MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    CHECK(rc == MPI_SUCCESS && to_success_calls == 1 && fh == MPI_FILE_NULL,
          "open of a missing file, the handler setting MPI_SUCCESS: returned %d, %d calls", rc, to_success_calls);
    OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    OK(MPI_Comm_create_errhandler(comm_to_other, &eh));
    OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &old));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    rc = MPI_Send(&rank, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OTHER, "a send to rank 99, the handler setting MPI_ERR_OTHER: class %d", cls);
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, old));
    OK(MPI_Errhandler_free(&old));
    OK(MPI_Errhandler_free(&eh));
}

int main(int argc, char **argv) {
    int rank;
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    freed_type_pending_recv(rank);
    failing_attr_callbacks();
    translate_proc_null(rank);
    maxloc_pairs(rank);
    reduce_scatter_in_place(rank);
    zero_size_v_forms(rank);
    alloc_mem_alignment();
    int_overflow_undefined();
    negative_extent(rank);
    self_attrs_lifo();
    large_get_noncontig_origin(rank);
    no_op_ignores_origin(rank);
    status_error_untouched(rank);
    handler_sets_code(rank);
    OK(MPI_Finalize());
    CHECK(self_deleted == 4 && self_order_ok, "MPI_COMM_SELF's attributes deleted %d, in order: %d", self_deleted, self_order_ok);
    if (rank == 0) printf("OK found\n");
    return 0;
}
