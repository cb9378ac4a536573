/* external.c - canonical packing (MPI_Pack_external and kin, MPI 4.1 §5.2.3) in the
 * external32 representation (§19.3.5), and the Fortran types of a precision and
 * range (MPI_Type_create_f90_*, MPI_Type_match_size, §19.1.9). Run on 2 ranks. */
#include "check.h"
#include <string.h>
#include <stdint.h>
#include <wchar.h>
#include <stddef.h>

struct rec {
    int i;
    long l;
    double d;
    long double ld;
    wchar_t w;
    unsigned long ul;
};

static MPI_Datatype rec_type(void) {
    int lens[6] = {1, 1, 1, 1, 1, 1};
    MPI_Aint disp[6] = {offsetof(struct rec, i), offsetof(struct rec, l), offsetof(struct rec, d),
                        offsetof(struct rec, ld), offsetof(struct rec, w), offsetof(struct rec, ul)};
    MPI_Datatype types[6] = {MPI_INT, MPI_LONG, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_WCHAR, MPI_UNSIGNED_LONG};
    MPI_Datatype st, rt;
    OK(MPI_Type_create_struct(6, lens, disp, types, &st));
    OK(MPI_Type_create_resized(st, 0, sizeof(struct rec), &rt));
    OK(MPI_Type_commit(&rt));
    OK(MPI_Type_free(&st));
    return rt;
}

/* big-endian integer of n bytes at p */
static uint64_t be(const unsigned char *p, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | p[i];
    return v;
}

static void external32(int rank) {
    enum { N = 3 };
    struct rec r[N], back[N];
    MPI_Datatype rt = rec_type();
    MPI_Aint size, pos = 0;
    MPI_Count size_c;
    unsigned char buf[N * 64];
    int i, cls;

    /* external32 sizes: int 4, long 4, double 8, long double 16, wchar 2, ulong 4 */
    OK(MPI_Pack_external_size("external32", N, rt, &size));
    CHECK(size == N * 38, "external32 size of %d records: %ld, want %d", N, (long)size, N * 38);
    OK(MPI_Pack_external_size_c("external32", N, rt, &size_c));
    CHECK(size_c == N * 38, "_c size: %lld", (long long)size_c);
    OK(MPI_Pack_external_size("external32", 1, MPI_LONG_INT, &size));
    CHECK(size == 8, "MPI_LONG_INT: external32 size %ld, want 8", (long)size);

    for (i = 0; i < N; i++) {
        memset(&r[i], 0, sizeof r[i]);
        r[i].i = -1 - i;
        r[i].l = -100000 * (i + 1);
        r[i].d = 1.5 * (i + 1);
        r[i].ld = -2.25L * (i + 1);
        r[i].w = L'\x20ac' + i;
        r[i].ul = 4000000000UL + i;
    }
    OK(MPI_Pack_external("external32", r, N, rt, buf, sizeof buf, &pos));
    CHECK(pos == N * 38, "position after packing: %ld", (long)pos);
    /* the first record, byte by byte */
    CHECK(be(buf, 4) == 0xffffffff, "int -1: %llx", (unsigned long long)be(buf, 4));
    CHECK(be(buf + 4, 4) == (uint32_t)-100000, "long -100000 in 4 bytes: %llx", (unsigned long long)be(buf + 4, 4));
    CHECK(be(buf + 8, 8) == 0x3ff8000000000000ULL, "double 1.5: %llx", (unsigned long long)be(buf + 8, 8));
    /* -2.25 as IEEE binary128: sign, exponent 0x4000, fraction .001 */
    CHECK(be(buf + 16, 8) == 0xc000200000000000ULL && be(buf + 24, 8) == 0,
          "long double -2.25 as binary128: %llx %llx", (unsigned long long)be(buf + 16, 8), (unsigned long long)be(buf + 24, 8));
    CHECK(be(buf + 32, 2) == 0x20ac, "wchar_t U+20AC in 2 bytes: %llx", (unsigned long long)be(buf + 32, 2));
    CHECK(be(buf + 34, 4) == 4000000000ULL, "unsigned long in 4 bytes: %llu", (unsigned long long)be(buf + 34, 4));

    /* the packed bytes travel as MPI_PACKED and unpack on the other rank */
    if (rank == 0) {
        OK(MPI_Send(buf, (int)pos, MPI_PACKED, 1, 5, MPI_COMM_WORLD));
    } else if (rank == 1) {
        unsigned char in[sizeof buf];
        MPI_Aint ipos = 0;
        OK(MPI_Recv(in, sizeof in, MPI_PACKED, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        memset(back, 0, sizeof back);
        OK(MPI_Unpack_external("external32", in, N * 38, &ipos, back, N, rt));
        CHECK(ipos == N * 38, "position after unpacking: %ld", (long)ipos);
        for (i = 0; i < N; i++)
            CHECK(back[i].i == r[i].i && back[i].l == r[i].l && back[i].d == r[i].d && back[i].ld == r[i].ld &&
                      back[i].w == r[i].w && back[i].ul == r[i].ul,
                  "record %d after the round trip: %d %ld %g %Lg %d %lu", i, back[i].i, back[i].l, back[i].d,
                  back[i].ld, (int)back[i].w, back[i].ul);
        /* the _c form, from a position inside the buffer */
        MPI_Count cpos = 38;
        memset(back, 0, sizeof back);
        OK(MPI_Unpack_external_c("external32", in, N * 38, &cpos, back, 2, rt));
        CHECK(cpos == N * 38 && back[0].l == r[1].l && back[1].ld == r[2].ld, "_c unpack from 38: %lld", (long long)cpos);
    }

    /* errors: another datarep, too small a buffer */
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    pos = 0;
    cls = MPI_Pack_external("native", r, 1, rt, buf, sizeof buf, &pos);
    OK(MPI_Error_class(cls, &cls));
    CHECK(cls == MPI_ERR_UNSUPPORTED_DATAREP, "datarep \"native\": class %d", cls);
    cls = MPI_Pack_external("external32", r, N, rt, buf, 10, &pos);
    OK(MPI_Error_class(cls, &cls));
    CHECK(cls == MPI_ERR_TRUNCATE && pos == 0, "outsize 10: class %d, position %ld", cls, (long)pos);
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    OK(MPI_Type_free(&rt));
}

static void f90_types(void) {
    MPI_Datatype t, t2;
    int size, ni, na, nt, comb, ints[2], cls;
    OK(MPI_Type_create_f90_real(6, 30, &t));
    OK(MPI_Type_size(t, &size));
    CHECK(size == 4, "real(6,30): size %d", size);
    OK(MPI_Type_get_envelope(t, &ni, &na, &nt, &comb));
    CHECK(comb == MPI_COMBINER_F90_REAL && ni == 2 && na == 0 && nt == 0, "real envelope: %d %d %d %d", comb, ni, na, nt);
    OK(MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL));
    CHECK(ints[0] == 6 && ints[1] == 30, "real contents: %d %d", ints[0], ints[1]);
    OK(MPI_Type_create_f90_real(6, 30, &t2));
    CHECK(t2 == t, "the same (p, r) gives another handle");
    OK(MPI_Type_create_f90_real(MPI_UNDEFINED, 300, &t));
    OK(MPI_Type_size(t, &size));
    CHECK(size == 8, "real(-, 300): size %d", size);
    OK(MPI_Type_create_f90_real(30, MPI_UNDEFINED, &t));
    OK(MPI_Type_size(t, &size));
    CHECK(size == 16, "real(30, -): size %d", size);
    OK(MPI_Type_create_f90_complex(15, MPI_UNDEFINED, &t));
    OK(MPI_Type_size(t, &size));
    OK(MPI_Type_get_envelope(t, &ni, &na, &nt, &comb));
    CHECK(size == 16 && comb == MPI_COMBINER_F90_COMPLEX, "complex(15): size %d combiner %d", size, comb);
    OK(MPI_Type_create_f90_integer(9, &t));
    OK(MPI_Type_size(t, &size));
    OK(MPI_Type_get_envelope(t, &ni, &na, &nt, &comb));
    CHECK(size == 4 && comb == MPI_COMBINER_F90_INTEGER && ni == 1, "integer(9): size %d combiner %d ni %d", size, comb, ni);
    OK(MPI_Type_create_f90_integer(10, &t));
    OK(MPI_Type_size(t, &size));
    CHECK(size == 8, "integer(10): size %d", size);
    /* a dup of one decodes to the very handle, predefined */
    {
        MPI_Datatype d, parts[1];
        OK(MPI_Type_create_f90_real(6, 30, &t));
        OK(MPI_Type_dup(t, &d));
        OK(MPI_Type_get_envelope(d, &ni, &na, &nt, &comb));
        CHECK(comb == MPI_COMBINER_DUP && nt == 1, "dup of an f90 type: combiner %d, %d types", comb, nt);
        OK(MPI_Type_get_contents(d, 0, 0, 1, NULL, NULL, parts));
        CHECK(parts[0] == t, "the dup's part is not the f90 handle itself");
        OK(MPI_Type_free(&d));
    }
    /* a returned type works in communication */
    int v[2] = {7, 8}, w[2] = {0, 0};
    OK(MPI_Type_create_f90_integer(9, &t));
    OK(MPI_Sendrecv(v, 2, t, 0, 1, w, 2, MPI_INT, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    CHECK(w[0] == 7 && w[1] == 8, "sendrecv with integer(9): %d %d", w[0], w[1]);

    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    cls = MPI_Type_free(&t);
    OK(MPI_Error_class(cls, &cls));
    CHECK(cls == MPI_ERR_TYPE, "freeing an f90 type: class %d", cls);
    cls = MPI_Type_create_f90_real(40, 10, &t2);
    OK(MPI_Error_class(cls, &cls));
    CHECK(cls == MPI_ERR_ARG, "real(40, 10): class %d", cls);
    cls = MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &t2);
    OK(MPI_Error_class(cls, &cls));
    CHECK(cls == MPI_ERR_ARG, "real(undefined, undefined): class %d", cls);
    cls = MPI_Type_create_f90_integer(40, &t2);
    OK(MPI_Error_class(cls, &cls));
    CHECK(cls == MPI_ERR_ARG, "integer(40): class %d", cls);
    cls = MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t2);
    OK(MPI_Error_class(cls, &cls));
    CHECK(cls == MPI_ERR_ARG, "match_size(real, 3): class %d", cls);
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    OK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t2));
    CHECK(t2 == MPI_REAL8, "match_size(real, 8) is not MPI_REAL8");
    OK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &t2));
    CHECK(t2 == MPI_INTEGER4, "match_size(integer, 4) is not MPI_INTEGER4");
    OK(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &t2));
    CHECK(t2 == MPI_COMPLEX16, "match_size(complex, 16) is not MPI_COMPLEX16");
}

int main(int argc, char **argv) {
    int rank;
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    external32(rank);
    f90_types();
    OK(MPI_Finalize());
    if (rank == 0) printf("OK external\n");
    return 0;
}
