/* redops.c - the predefined operations on the types a C program has beyond Go's, as
 * issue 35 found them refused: MPI_LONG_DOUBLE under MAX, MIN, SUM and PROD (with
 * values a double cannot hold, checked against the C compiler's own long double
 * arithmetic), its complex type, MPI_LONG_DOUBLE_INT under MINLOC and MAXLOC with ties,
 * MPI_Fetch_and_op on MPI_SHORT_INT and on long double, MAXLOC and MINLOC accumulates
 * on MPI_2INT and on vectors of MPI_LONG_DOUBLE_INT, an accumulate of a zero-size
 * derived type; and the refusals of the standard's table (MPI_ERR_OP, naming the
 * operation and the type). Run on 3 ranks. */
#include "check.h"
#include <math.h>
#include <string.h>

typedef struct { long double v; int i; } ldint;
typedef struct { short v; int i; } shortint;
typedef struct { int v, i; } twoint;

/* refused checks that call returned MPI_ERR_OP with a message naming both words. */
static void refused(int rc, const char *what, const char *op, const char *type) {
    int cls;
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    CHECK(cls == MPI_ERR_OP, "%s: class %d, want MPI_ERR_OP (%s)", what, cls, msg);
    CHECK(strstr(msg, op) && strstr(msg, type), "%s: message %s does not name %s and %s", what, msg, op, type);
}

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    CHECK(n == 3, "run on 3 ranks");
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN)); /* MPI_Reduce_local's */

    /* MPI_LONG_DOUBLE: 1 + r*2^-62 needs the 64-bit significand (a double rounds it
     * to 1). Every partial sum is exact, so the sum does not depend on the order. */
    long double tiny = ldexpl(1, -62), in[4], out[4];
    for (int k = 0; k < 4; k++) in[k] = 1 + rank * tiny;
    OK(MPI_Allreduce(in, out, 4, MPI_LONG_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    CHECK(out[0] == 1 + 2 * tiny && out[3] == out[0], "MAX on long double: 1 + %Lg", out[0] - 1);
    OK(MPI_Allreduce(in, out, 4, MPI_LONG_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
    CHECK(out[0] == 1, "MIN on long double: 1 + %Lg", out[0] - 1);
    OK(MPI_Allreduce(in, out, 4, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    CHECK(out[0] == 3 + 3 * tiny, "SUM on long double: 3 + %Lg", out[0] - 3);
    long double p = 1 + ldexpl(1, -55);
    for (int k = 0; k < 4; k++) in[k] = p;
    OK(MPI_Allreduce(in, out, 4, MPI_LONG_DOUBLE, MPI_PROD, MPI_COMM_WORLD));
    CHECK(out[1] == p * p * p, "PROD on long double: %La, want %La", out[1], p * p * p);

    /* Reduce_local rounds as the x87 does: to nearest, ties to even. */
    long double a[4] = {ldexpl(1, -64), ldexpl(1, -64) + ldexpl(1, -70), ldexpl(3, -64), -1 - ldexpl(1, -63)};
    long double b[4] = {1, 1, 1 + ldexpl(1, -63), ldexpl(1, 63)};
    long double want[4], wantp[4];
    for (int k = 0; k < 4; k++) want[k] = a[k] + b[k], wantp[k] = a[k] * b[k];
    long double c[4];
    memcpy(c, b, sizeof c);
    OK(MPI_Reduce_local(a, c, 4, MPI_LONG_DOUBLE, MPI_SUM));
    for (int k = 0; k < 4; k++) CHECK(c[k] == want[k], "Reduce_local SUM %d: %La, want %La", k, c[k], want[k]);
    memcpy(c, b, sizeof c);
    OK(MPI_Reduce_local(a, c, 4, MPI_LONG_DOUBLE, MPI_PROD));
    for (int k = 0; k < 4; k++) CHECK(c[k] == wantp[k], "Reduce_local PROD %d: %La, want %La", k, c[k], wantp[k]);

    /* MPI_C_LONG_DOUBLE_COMPLEX: SUM and PROD as C computes them. */
    long double _Complex za[2] = {1 + ldexpl(1, -60) + 2.0iL, -3 + 0.5iL}, zb[2] = {3 - 1.0iL, 1.0L / 3 + 1.0iL / 7};
    long double _Complex zc[2], zs[2], zp[2];
    for (int k = 0; k < 2; k++) zs[k] = za[k] + zb[k], zp[k] = za[k] * zb[k];
    memcpy(zc, zb, sizeof zc);
    OK(MPI_Reduce_local(za, zc, 2, MPI_C_LONG_DOUBLE_COMPLEX, MPI_SUM));
    CHECK(zc[0] == zs[0] && zc[1] == zs[1], "complex long double SUM");
    memcpy(zc, zb, sizeof zc);
    OK(MPI_Reduce_local(za, zc, 2, MPI_C_LONG_DOUBLE_COMPLEX, MPI_PROD));
    CHECK(zc[0] == zp[0] && zc[1] == zp[1], "complex long double PROD");

    /* MPI_LONG_DOUBLE_INT: ranks 0 and 2 hold the larger value; rank 1 the smaller.
     * MAXLOC keeps the smaller index of the tie (0), MINLOC rank 1's. The second pair
     * is equal everywhere: both keep index 0. */
    ldint li[2] = {{5 + (rank % 2 == 0 ? ldexpl(1, -60) : 0), rank}, {-2, rank}}, lo[2];
    OK(MPI_Allreduce(li, lo, 2, MPI_LONG_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK(lo[0].v == 5 + ldexpl(1, -60) && lo[0].i == 0 && lo[1].v == -2 && lo[1].i == 0, "MAXLOC on long double int: (5 + %Lg, %d) (%Lg, %d)", lo[0].v - 5, lo[0].i, lo[1].v, lo[1].i);
    OK(MPI_Allreduce(li, lo, 2, MPI_LONG_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(lo[0].v == 5 && lo[0].i == 1 && lo[1].v == -2 && lo[1].i == 0, "MINLOC on long double int: (5 + %Lg, %d) (%Lg, %d)", lo[0].v - 5, lo[0].i, lo[1].v, lo[1].i);

    /* One-sided: a window of pairs and long doubles on every rank. */
    struct {
        twoint two[2];
        shortint s;
        long double ld;
        ldint lv[10];
    } *m;
    MPI_Win w;
    OK(MPI_Win_allocate(sizeof *m, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &m, &w));
    OK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
    memset(m, 0, sizeof *m);
    m->two[0] = (twoint){-100, 99};
    m->two[1] = (twoint){100, 99};
    m->s = (shortint){-1, 99};
    for (int k = 0; k < 10; k++) m->lv[k] = (ldint){0, 0};
    OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Aint two0 = (char *)&m->two[0] - (char *)m, s0 = (char *)&m->s - (char *)m, ld0 = (char *)&m->ld - (char *)m,
             lv0 = (char *)&m->lv[0] - (char *)m;
    OK(MPI_Bcast(&two0, 1, MPI_AINT, 0, MPI_COMM_WORLD)); /* the same layout everywhere */

    /* MAXLOC and MINLOC Accumulate on MPI_2INT into rank 0: values 9 on ranks 1 and 2,
     * 7 on rank 0, into (-100, 99) and (100, 99). MAXLOC keeps (9, 1), MINLOC (7, 0). */
    twoint mine[2] = {{rank == 0 ? 7 : 9, rank}, {rank == 0 ? 7 : 9, rank}};
    OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
    OK(MPI_Accumulate(&mine[0], 1, MPI_2INT, 0, two0, 1, MPI_2INT, MPI_MAXLOC, w));
    OK(MPI_Accumulate(&mine[1], 1, MPI_2INT, 0, two0 + sizeof(twoint), 1, MPI_2INT, MPI_MINLOC, w));
    OK(MPI_Win_unlock(0, w));

    /* Fetch_and_op on MPI_SHORT_INT (6 bytes of data in 8) and on long double. */
    shortint sv = {(short)(10 * rank), rank}, sold = {-7, -7};
    long double one = 1 + ldexpl(1, -62), ldold = -1;
    OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w));
    OK(MPI_Fetch_and_op(&sv, &sold, MPI_SHORT_INT, 0, s0, MPI_MAXLOC, w));
    OK(MPI_Fetch_and_op(&one, &ldold, MPI_LONG_DOUBLE, 0, ld0, MPI_SUM, w));
    OK(MPI_Win_unlock(0, w));
    CHECK(sold.v <= 10 * (n - 1) && sold.i >= -1 && sold.i <= 99 && (sold.v == -1) == (sold.i == 99), "Fetch_and_op MAXLOC on MPI_SHORT_INT returned (%d, %d)", sold.v, sold.i);
    CHECK(ldold >= 0 && ldold <= 2 * one, "Fetch_and_op SUM on long double returned %Lg", ldold);

    /* A vector of MPI_LONG_DOUBLE_INT, as MPICH's acc_pairtype: 3 of every 5. */
    MPI_Datatype vec;
    OK(MPI_Type_vector(2, 3, 5, MPI_LONG_DOUBLE_INT, &vec));
    OK(MPI_Type_commit(&vec));
    ldint lorig[10];
    for (int k = 0; k < 10; k++) lorig[k] = (ldint){1 + rank, rank};
    OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
    OK(MPI_Accumulate(lorig, 1, vec, 0, lv0, 1, vec, MPI_MAXLOC, w));
    OK(MPI_Win_unlock(0, w));

    /* An accumulate of a zero-size derived type, and zero counts with types that do
     * not match: nothing moves, nothing is checked beyond that. */
    MPI_Datatype none;
    OK(MPI_Type_contiguous(0, MPI_INT, &none));
    OK(MPI_Type_commit(&none));
    OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
    OK(MPI_Accumulate(NULL, 1, none, 0, 0, 1, none, MPI_SUM, w));
    OK(MPI_Accumulate(NULL, 0, MPI_DOUBLE, 0, 0, 1, none, MPI_BAND, w));
    OK(MPI_Get_accumulate(NULL, 2, none, NULL, 0, MPI_INT, 0, 0, 1, none, MPI_SUM, w));
    OK(MPI_Win_unlock(0, w));
    OK(MPI_Type_free(&none));

    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
        CHECK(m->two[0].v == 9 && m->two[0].i == 1, "MAXLOC Accumulate on MPI_2INT: (%d, %d)", m->two[0].v, m->two[0].i);
        CHECK(m->two[1].v == 7 && m->two[1].i == 0, "MINLOC Accumulate on MPI_2INT: (%d, %d)", m->two[1].v, m->two[1].i);
        CHECK(m->s.v == 10 * (n - 1) && m->s.i == n - 1, "Fetch_and_op MAXLOC on MPI_SHORT_INT left (%d, %d)", m->s.v, m->s.i);
        CHECK(m->ld == 3 * one, "Fetch_and_op SUM on long double left 3 + %Lg", m->ld - 3);
        for (int k = 0; k < 10; k++) {
            int in_vec = k % 5 < 3;
            CHECK(in_vec ? m->lv[k].v == n && m->lv[k].i == n - 1 : m->lv[k].v == 0 && m->lv[k].i == 0,
                  "vector MAXLOC accumulate of MPI_LONG_DOUBLE_INT, pair %d: (%Lg, %d)", k, m->lv[k].v, m->lv[k].i);
        }
        OK(MPI_Win_unlock(0, w));
    }
    OK(MPI_Type_free(&vec));

    /* Refusals by the standard's table (MPI 4.1 sec. 6.9.2, 6.9.4). */
    int iv[2] = {1, 0}, ov[2] = {1, 1};
    refused(MPI_Reduce_local(iv, ov, 2, MPI_LOGICAL, MPI_BAND), "BAND on MPI_LOGICAL", "MPI_BAND", "MPI_LOGICAL");
    refused(MPI_Reduce_local(iv, ov, 2, MPI_INTEGER, MPI_LAND), "LAND on MPI_INTEGER", "MPI_LAND", "MPI_INTEGER");
    refused(MPI_Reduce_local(iv, ov, 1, MPI_2INT, MPI_SUM), "SUM on MPI_2INT", "MPI_SUM", "MPI_2INT");
    refused(MPI_Reduce_local(a, c, 1, MPI_LONG_DOUBLE, MPI_MAXLOC), "MAXLOC on MPI_LONG_DOUBLE", "MPI_MAXLOC", "MPI_LONG_DOUBLE");
    refused(MPI_Reduce_local(a, c, 1, MPI_LONG_DOUBLE, MPI_BOR), "BOR on MPI_LONG_DOUBLE", "MPI_BOR", "MPI_LONG_DOUBLE");
    refused(MPI_Reduce_local(zc, zc, 1, MPI_C_LONG_DOUBLE_COMPLEX, MPI_MAX), "MAX on complex", "MPI_MAX", "MPI_C_LONG_DOUBLE_COMPLEX");
    refused(MPI_Reduce_local(iv, ov, 1, MPI_WCHAR, MPI_SUM), "SUM on MPI_WCHAR", "MPI_SUM", "MPI_WCHAR");
    char bi[2] = {1, 2}, bo[2] = {3, 4};
    refused(MPI_Reduce_local(bi, bo, 2, MPI_BYTE, MPI_SUM), "SUM on MPI_BYTE", "MPI_SUM", "MPI_BYTE");
    OK(MPI_Reduce_local(bi, bo, 2, MPI_BYTE, MPI_BXOR));
    CHECK(bo[0] == 2 && bo[1] == 6, "BXOR on MPI_BYTE: %d %d", bo[0], bo[1]);
    OK(MPI_Reduce_local(iv, ov, 2, MPI_LOGICAL, MPI_LAND));
    CHECK(ov[0] == 1 && ov[1] == 0, "LAND on MPI_LOGICAL: %d %d", ov[0], ov[1]);
    /* A derived type takes its predefined type's class. */
    MPI_Datatype logs;
    OK(MPI_Type_contiguous(2, MPI_LOGICAL, &logs));
    OK(MPI_Type_commit(&logs));
    refused(MPI_Reduce_local(iv, ov, 1, logs, MPI_BOR), "BOR on a contiguous of MPI_LOGICAL", "MPI_BOR", "logical");
    OK(MPI_Type_free(&logs));
    /* The same table holds for one-sided operations. */
    OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
    refused(MPI_Accumulate(iv, 1, MPI_LOGICAL, 0, 0, 1, MPI_LOGICAL, MPI_BAND, w), "Accumulate BAND on MPI_LOGICAL", "MPI_BAND", "MPI_LOGICAL");
    refused(MPI_Accumulate(iv, 1, MPI_2INT, 0, two0, 1, MPI_2INT, MPI_SUM, w), "Accumulate SUM on MPI_2INT", "MPI_SUM", "MPI_2INT");
    refused(MPI_Fetch_and_op(&one, &ldold, MPI_LONG_DOUBLE, 0, ld0, MPI_BAND, w), "Fetch_and_op BAND on long double", "MPI_BAND", "MPI_LONG_DOUBLE");
    OK(MPI_Win_unlock(0, w));

    int commute;
    OK(MPI_Op_commutative(MPI_SUM, &commute));
    CHECK(commute, "MPI_SUM commutes");
    OK(MPI_Op_commutative(MPI_REPLACE, &commute));
    CHECK(!commute, "MPI_REPLACE does not commute");
    OK(MPI_Op_commutative(MPI_MAXLOC, &commute));
    CHECK(commute, "MPI_MAXLOC commutes");

    OK(MPI_Win_free(&w));
    OK(MPI_Finalize());
    if (rank == 0) printf("OK redops\n");
    return 0;
}
