/* decode.c - MPI_Type_get_envelope and MPI_Type_get_contents, and their _c forms,
 * on a type of every combiner made by the int constructor and by the large-count
 * one (MPI 4.1 §5.1.13): the envelope describes the call that made the type, so a
 * large-count constructor's counts come back in array_of_large_counts however small,
 * and the int forms of the queries refuse such a type (MPI_ERR_TYPE). Every array is
 * checked element by element, with canaries past its end that must stay untouched.
 * Run on 1 rank. */
#include "check.h"
#include <stdint.h>

#define NMAX 16
#define ICANARY (-7777)
#define ACANARY ((MPI_Aint)-0x5eadbeef01LL)
#define CCANARY ((MPI_Count)0x7eadbeefcafeLL)
#define TCANARY ((MPI_Datatype)(intptr_t)0x5a5a)

/* want is what decoding a type must give. A datatype of 0 in types is a derived one:
 * decoding gives a new handle, of combiner dcomb, which the test frees. */
struct want {
    const char *name;
    int comb;
    int ni, na, nc, nd;
    long long ints[NMAX], addrs[NMAX], counts[NMAX];
    MPI_Datatype types[2];
    int dcomb;
};

/* parts checks the datatypes contents gave and frees the derived ones. */
static void parts(const struct want *w, const char *form, MPI_Datatype *ts) {
    for (int i = 0; i < w->nd; i++) {
        if (w->types[i] != 0) {
            CHECK(ts[i] == w->types[i], "%s %s: types[%d] is not the predefined handle itself", w->name, form, i);
            continue;
        }
        MPI_Count ni, na, nc, nd;
        int comb;
        OK(MPI_Type_get_envelope_c(ts[i], &ni, &na, &nc, &nd, &comb));
        CHECK(comb == w->dcomb, "%s %s: types[%d] has combiner %d, want %d", w->name, form, i, comb, w->dcomb);
        OK(MPI_Type_free(&ts[i]));
    }
    CHECK(ts[w->nd] == TCANARY && ts[w->nd + 1] == TCANARY, "%s %s: wrote past array_of_datatypes", w->name, form);
}

/* decode checks both forms of both queries on t against w. */
static void decode(MPI_Datatype t, const struct want *w) {
    int ni, na, nd, comb, i;
    MPI_Count cni, cna, cnc, cnd;
    int ints[NMAX + 2];
    MPI_Aint addrs[NMAX + 2];
    MPI_Count counts[NMAX + 2];
    MPI_Datatype ts[NMAX + 2];

    /* the _c envelope */
    cni = cna = cnc = cnd = -1;
    OK(MPI_Type_get_envelope_c(t, &cni, &cna, &cnc, &cnd, &comb));
    CHECK(comb == w->comb && cni == w->ni && cna == w->na && cnc == w->nc && cnd == w->nd,
          "%s: envelope_c %d: %lld %lld %lld %lld, want %d: %d %d %d %d", w->name, comb, (long long)cni,
          (long long)cna, (long long)cnc, (long long)cnd, w->comb, w->ni, w->na, w->nc, w->nd);

    /* the _c contents, into arrays of exactly the size the envelope gave */
    if (w->comb != MPI_COMBINER_NAMED) {
        for (i = 0; i < NMAX + 2; i++) {
            ints[i] = ICANARY, addrs[i] = ACANARY, counts[i] = CCANARY, ts[i] = TCANARY;
        }
        OK(MPI_Type_get_contents_c(t, w->ni, w->na, w->nc, w->nd, ints, addrs, counts, ts));
        for (i = 0; i < w->ni; i++)
            CHECK(ints[i] == w->ints[i], "%s contents_c: ints[%d] = %d, want %lld", w->name, i, ints[i], w->ints[i]);
        for (i = 0; i < w->na; i++)
            CHECK(addrs[i] == w->addrs[i], "%s contents_c: addrs[%d] = %lld, want %lld", w->name, i, (long long)addrs[i], w->addrs[i]);
        for (i = 0; i < w->nc; i++)
            CHECK(counts[i] == w->counts[i], "%s contents_c: counts[%d] = %lld, want %lld", w->name, i, (long long)counts[i], w->counts[i]);
        CHECK(ints[w->ni] == ICANARY && ints[w->ni + 1] == ICANARY, "%s contents_c: wrote past array_of_integers", w->name);
        CHECK(addrs[w->na] == ACANARY && addrs[w->na + 1] == ACANARY, "%s contents_c: wrote past array_of_addresses", w->name);
        CHECK(counts[w->nc] == CCANARY && counts[w->nc + 1] == CCANARY, "%s contents_c: wrote past array_of_large_counts", w->name);
        parts(w, "contents_c", ts);
        if (w->ni + w->na + w->nc > 0) { /* an array one entry short is an error */
            MPI_Count mi = w->ni, ma = w->na, mc = w->nc;
            if (w->nc > 0) mc--; else if (w->na > 0) ma--; else mi--;
            FAILS(MPI_Type_get_contents_c(t, mi, ma, mc, w->nd, ints, addrs, counts, ts), MPI_ERR_ARG);
        }
    } else {
        FAILS(MPI_Type_get_contents_c(t, 0, 0, 0, 0, ints, addrs, counts, ts), MPI_ERR_ARG);
    }

    /* the int forms: a type with large counts is refused */
    if (w->nc > 0) {
        FAILS(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb), MPI_ERR_TYPE);
        FAILS(MPI_Type_get_contents(t, NMAX, NMAX, NMAX, ints, addrs, ts), MPI_ERR_TYPE);
        return;
    }
    OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    CHECK(comb == w->comb && ni == w->ni && na == w->na && nd == w->nd, "%s: envelope %d: %d %d %d, want %d: %d %d %d",
          w->name, comb, ni, na, nd, w->comb, w->ni, w->na, w->nd);
    if (w->comb == MPI_COMBINER_NAMED) {
        FAILS(MPI_Type_get_contents(t, 0, 0, 0, ints, addrs, ts), MPI_ERR_ARG);
        return;
    }
    for (i = 0; i < NMAX + 2; i++) {
        ints[i] = ICANARY, addrs[i] = ACANARY, ts[i] = TCANARY;
    }
    OK(MPI_Type_get_contents(t, w->ni, w->na, w->nd, ints, addrs, ts));
    for (i = 0; i < w->ni; i++)
        CHECK(ints[i] == w->ints[i], "%s contents: ints[%d] = %d, want %lld", w->name, i, ints[i], w->ints[i]);
    for (i = 0; i < w->na; i++)
        CHECK(addrs[i] == w->addrs[i], "%s contents: addrs[%d] = %lld, want %lld", w->name, i, (long long)addrs[i], w->addrs[i]);
    CHECK(ints[w->ni] == ICANARY && ints[w->ni + 1] == ICANARY, "%s contents: wrote past array_of_integers", w->name);
    CHECK(addrs[w->na] == ACANARY && addrs[w->na + 1] == ACANARY, "%s contents: wrote past array_of_addresses", w->name);
    parts(w, "contents", ts);
}

/* both decodes the type the int constructor made (small, want ws) and the one the
 * large-count constructor made with the same arguments (large, want wl), and frees
 * them. */
static void both(MPI_Datatype small, struct want *ws, MPI_Datatype large, struct want *wl) {
    decode(small, ws);
    decode(large, wl);
    OK(MPI_Type_free(&small));
    OK(MPI_Type_free(&large));
}

int main(int argc, char **argv) {
    MPI_Datatype s, l, vec;
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    OK(MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &vec));

    {   /* a named predefined type */
        struct want w = {"MPI_INT", MPI_COMBINER_NAMED, 0, 0, 0, 0};
        decode(MPI_INT, &w);
    }
    {
        struct want ws = {"contiguous", MPI_COMBINER_CONTIGUOUS, 1, 0, 0, 1, {5}, {0}, {0}, {MPI_INT}};
        struct want wl = {"contiguous_c", MPI_COMBINER_CONTIGUOUS, 0, 0, 1, 1, {0}, {0}, {5}, {MPI_INT}};
        OK(MPI_Type_contiguous(5, MPI_INT, &s));
        OK(MPI_Type_contiguous_c(5, MPI_INT, &l));
        both(s, &ws, l, &wl);
    }
    {   /* a count no int holds */
        struct want wl = {"contiguous_c of 2^33", MPI_COMBINER_CONTIGUOUS, 0, 0, 1, 1, {0}, {0}, {8589934592LL}, {MPI_BYTE}};
        OK(MPI_Type_contiguous_c(8589934592LL, MPI_BYTE, &l));
        decode(l, &wl);
        OK(MPI_Type_free(&l));
    }
    {
        struct want ws = {"vector", MPI_COMBINER_VECTOR, 3, 0, 0, 1, {3, 2, 5}, {0}, {0}, {MPI_DOUBLE}};
        struct want wl = {"vector_c", MPI_COMBINER_VECTOR, 0, 0, 3, 1, {0}, {0}, {3, 2, 5}, {MPI_DOUBLE}};
        OK(MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &s));
        OK(MPI_Type_vector_c(3, 2, 5, MPI_DOUBLE, &l));
        both(s, &ws, l, &wl);
    }
    {
        struct want ws = {"hvector", MPI_COMBINER_HVECTOR, 2, 1, 0, 1, {3, 2}, {40}, {0}, {MPI_INT}};
        struct want wl = {"hvector_c", MPI_COMBINER_HVECTOR, 0, 0, 3, 1, {0}, {0}, {3, 2, 40}, {MPI_INT}};
        OK(MPI_Type_create_hvector(3, 2, 40, MPI_INT, &s));
        OK(MPI_Type_create_hvector_c(3, 2, 40, MPI_INT, &l));
        both(s, &ws, l, &wl);
    }
    {
        int bl[2] = {2, 1}, d[2] = {1, 5};
        MPI_Count cbl[2] = {2, 1}, cd[2] = {1, 5};
        struct want ws = {"indexed", MPI_COMBINER_INDEXED, 5, 0, 0, 1, {2, 2, 1, 1, 5}, {0}, {0}, {MPI_INT}};
        struct want wl = {"indexed_c", MPI_COMBINER_INDEXED, 0, 0, 5, 1, {0}, {0}, {2, 2, 1, 1, 5}, {MPI_INT}};
        OK(MPI_Type_indexed(2, bl, d, MPI_INT, &s));
        OK(MPI_Type_indexed_c(2, cbl, cd, MPI_INT, &l));
        both(s, &ws, l, &wl);
    }
    {
        int bl[2] = {1, 2};
        MPI_Aint d[2] = {40, 0};
        MPI_Count cbl[2] = {1, 2}, cd[2] = {40, 0};
        struct want ws = {"hindexed", MPI_COMBINER_HINDEXED, 3, 2, 0, 1, {2, 1, 2}, {40, 0}, {0}, {MPI_LONG_LONG}};
        struct want wl = {"hindexed_c", MPI_COMBINER_HINDEXED, 0, 0, 5, 1, {0}, {0}, {2, 1, 2, 40, 0}, {MPI_LONG_LONG}};
        OK(MPI_Type_create_hindexed(2, bl, d, MPI_LONG_LONG, &s));
        OK(MPI_Type_create_hindexed_c(2, cbl, cd, MPI_LONG_LONG, &l));
        both(s, &ws, l, &wl);
    }
    {
        int d[3] = {4, 0, 9};
        MPI_Count cd[3] = {4, 0, 9};
        struct want ws = {"indexed_block", MPI_COMBINER_INDEXED_BLOCK, 5, 0, 0, 1, {3, 2, 4, 0, 9}, {0}, {0}, {MPI_SHORT}};
        struct want wl = {"indexed_block_c", MPI_COMBINER_INDEXED_BLOCK, 0, 0, 5, 1, {0}, {0}, {3, 2, 4, 0, 9}, {MPI_SHORT}};
        OK(MPI_Type_create_indexed_block(3, 2, d, MPI_SHORT, &s));
        OK(MPI_Type_create_indexed_block_c(3, 2, cd, MPI_SHORT, &l));
        both(s, &ws, l, &wl);
    }
    {
        MPI_Aint d[3] = {8, 0, 32};
        MPI_Count cd[3] = {8, 0, 32};
        struct want ws = {"hindexed_block", MPI_COMBINER_HINDEXED_BLOCK, 2, 3, 0, 1, {3, 1}, {8, 0, 32}, {0}, {MPI_DOUBLE}};
        struct want wl = {"hindexed_block_c", MPI_COMBINER_HINDEXED_BLOCK, 0, 0, 5, 1, {0}, {0}, {3, 1, 8, 0, 32}, {MPI_DOUBLE}};
        OK(MPI_Type_create_hindexed_block(3, 1, d, MPI_DOUBLE, &s));
        OK(MPI_Type_create_hindexed_block_c(3, 1, cd, MPI_DOUBLE, &l));
        both(s, &ws, l, &wl);
    }
    {   /* a predefined member comes back as itself, a derived one as a new handle */
        int bl[2] = {1, 2};
        MPI_Aint d[2] = {0, 8};
        MPI_Count cbl[2] = {1, 2}, cd[2] = {0, 8};
        MPI_Datatype ts[2] = {MPI_CHAR, vec};
        struct want ws = {"struct", MPI_COMBINER_STRUCT, 3, 2, 0, 2, {2, 1, 2}, {0, 8}, {0}, {MPI_CHAR, 0}, MPI_COMBINER_VECTOR};
        struct want wl = {"struct_c", MPI_COMBINER_STRUCT, 0, 0, 5, 2, {0}, {0}, {2, 1, 2, 0, 8}, {MPI_CHAR, 0}, MPI_COMBINER_VECTOR};
        OK(MPI_Type_create_struct(2, bl, d, ts, &s));
        OK(MPI_Type_create_struct_c(2, cbl, cd, ts, &l));
        both(s, &ws, l, &wl);
    }
    {   /* ndims and order stay integers in the _c form */
        int sz[2] = {4, 6}, sub[2] = {2, 3}, st[2] = {1, 2};
        MPI_Count csz[2] = {4, 6}, csub[2] = {2, 3}, cst[2] = {1, 2};
        struct want ws = {"subarray", MPI_COMBINER_SUBARRAY, 8, 0, 0, 1, {2, 4, 6, 2, 3, 1, 2, MPI_ORDER_FORTRAN}, {0}, {0}, {MPI_INT}};
        struct want wl = {"subarray_c", MPI_COMBINER_SUBARRAY, 2, 0, 6, 1, {2, MPI_ORDER_FORTRAN}, {0}, {4, 6, 2, 3, 1, 2}, {MPI_INT}};
        OK(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_FORTRAN, MPI_INT, &s));
        OK(MPI_Type_create_subarray_c(2, csz, csub, cst, MPI_ORDER_FORTRAN, MPI_INT, &l));
        both(s, &ws, l, &wl);
    }
    {   /* only the gsizes are large counts */
        int gs[2] = {6, 4}, dist[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK};
        int dargs[2] = {2, MPI_DISTRIBUTE_DFLT_DARG}, ps[2] = {2, 2};
        MPI_Count cgs[2] = {6, 4};
        struct want ws = {"darray", MPI_COMBINER_DARRAY, 12, 0, 0, 1,
                          {4, 1, 2, 6, 4, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK, 2, MPI_DISTRIBUTE_DFLT_DARG, 2, 2, MPI_ORDER_C},
                          {0}, {0}, {MPI_INT}};
        struct want wl = {"darray_c", MPI_COMBINER_DARRAY, 10, 0, 2, 1,
                          {4, 1, 2, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK, 2, MPI_DISTRIBUTE_DFLT_DARG, 2, 2, MPI_ORDER_C},
                          {0}, {6, 4}, {MPI_INT}};
        OK(MPI_Type_create_darray(4, 1, 2, gs, dist, dargs, ps, MPI_ORDER_C, MPI_INT, &s));
        OK(MPI_Type_create_darray_c(4, 1, 2, cgs, dist, dargs, ps, MPI_ORDER_C, MPI_INT, &l));
        both(s, &ws, l, &wl);
    }
    {
        struct want ws = {"resized", MPI_COMBINER_RESIZED, 0, 2, 0, 1, {0}, {-4, 40}, {0}, {0}, MPI_COMBINER_VECTOR};
        struct want wl = {"resized_c", MPI_COMBINER_RESIZED, 0, 0, 2, 1, {0}, {0}, {-4, 40}, {0}, MPI_COMBINER_VECTOR};
        OK(MPI_Type_create_resized(vec, -4, 40, &s));
        OK(MPI_Type_create_resized_c(vec, -4, 40, &l));
        both(s, &ws, l, &wl);
    }
    {   /* a dup has no counts, whatever made its part; its part keeps its form */
        MPI_Datatype big, d1, d2, part;
        struct want w = {"dup", MPI_COMBINER_DUP, 0, 0, 0, 1, {0}, {0}, {0}, {0}, MPI_COMBINER_VECTOR};
        struct want wb = {"dup of contiguous_c", MPI_COMBINER_DUP, 0, 0, 0, 1, {0}, {0}, {0}, {0}, MPI_COMBINER_CONTIGUOUS};
        struct want wp = {"the part of a dup of contiguous_c", MPI_COMBINER_CONTIGUOUS, 0, 0, 1, 1, {0}, {0}, {7}, {MPI_FLOAT}};
        OK(MPI_Type_dup(vec, &d1));
        decode(d1, &w);
        OK(MPI_Type_contiguous_c(7, MPI_FLOAT, &big));
        OK(MPI_Type_dup(big, &d2));
        decode(d2, &wb);
        OK(MPI_Type_get_contents_c(d2, 0, 0, 0, 1, NULL, NULL, NULL, &part));
        decode(part, &wp);
        OK(MPI_Type_free(&part));
        OK(MPI_Type_free(&d1));
        OK(MPI_Type_free(&d2));
        OK(MPI_Type_free(&big));
    }
    {   /* the types of MPI_Type_create_f90_*: predefined, unnamed, their arguments */
        MPI_Datatype f;
        struct want wr = {"f90_real", MPI_COMBINER_F90_REAL, 2, 0, 0, 0, {6, 30}};
        struct want wc = {"f90_complex", MPI_COMBINER_F90_COMPLEX, 2, 0, 0, 0, {MPI_UNDEFINED, 200}};
        struct want wi = {"f90_integer", MPI_COMBINER_F90_INTEGER, 1, 0, 0, 0, {9}};
        OK(MPI_Type_create_f90_real(6, 30, &f));
        decode(f, &wr);
        OK(MPI_Type_create_f90_complex(MPI_UNDEFINED, 200, &f));
        decode(f, &wc);
        OK(MPI_Type_create_f90_integer(9, &f));
        decode(f, &wi);
    }
    OK(MPI_Type_free(&vec));
    OK(MPI_Finalize());
    printf("OK decode\n");
    return 0;
}
