/* reducelocal.c - MPI_Reduce_local and MPI_Reduce_local_c, whose predefined integer
 * and floating datatypes under MPI_SUM, MPI_PROD, MPI_BAND, MPI_BOR and MPI_BXOR the C
 * library combines itself (collshort.c), handing none of them to Go, and the rest Go
 * does: every such pair at counts 0 to 35 against the C compiler's own arithmetic
 * (integers wrap); the same buffer as both operands, and a datatype the C kernels do
 * not have (MPI_LONG_DOUBLE, MAX), both Go's; and the errors: a NULL buffer with a
 * count (MPI_ERR_BUFFER), a negative count (MPI_ERR_COUNT), MPI_BYTE under MPI_SUM
 * and MPI_FLOAT under MPI_BAND (MPI_ERR_OP). Run on 1 rank. */
#include "check.h"
#include <stdint.h>
#include <string.h>

#define N 40

/* run combines in into inout under op on n items of dt (the _c form when big) and
 * checks every item against want, computed in C from the same values. */
#define CASE(T, DT, OPNAME, OP, EXPR)                                                            \
    do {                                                                                         \
        T in[N], io[N], want[N];                                                                 \
        for (int n = 0; n <= N; n += 7) {                                                        \
            for (int k = 0; k < N; k++) {                                                        \
                in[k] = (T)(k * 37 + 11 + n), io[k] = (T)(k * 101 + 3 - n);                      \
                T a = io[k], b = in[k];                                                          \
                want[k] = k < n ? (T)(EXPR) : io[k];                                             \
            }                                                                                    \
            if (n % 2) OK(MPI_Reduce_local_c(in, io, (MPI_Count)n, DT, OP));                     \
            else OK(MPI_Reduce_local(in, io, n, DT, OP));                                        \
            CHECK(memcmp(io, want, sizeof io) == 0, "%s%s %s, %d items: wrong result", stage, #DT, \
                  OPNAME, n);                                                                    \
        }                                                                                        \
    } while (0)

#define INTS(T, DT)                                           \
    CASE(T, DT, "MPI_SUM", MPI_SUM, b + a);                   \
    CASE(T, DT, "MPI_PROD", MPI_PROD, (uint64_t)b * (uint64_t)a); \
    CASE(T, DT, "MPI_BAND", MPI_BAND, b & a);                 \
    CASE(T, DT, "MPI_BOR", MPI_BOR, b | a);                   \
    CASE(T, DT, "MPI_BXOR", MPI_BXOR, b ^ a)

static void pairs(const char *stage) {
    INTS(int8_t, MPI_INT8_T);
    INTS(uint8_t, MPI_UINT8_T);
    INTS(unsigned char, MPI_UNSIGNED_CHAR);
    INTS(int16_t, MPI_SHORT);
    INTS(uint16_t, MPI_UINT16_T);
    INTS(int, MPI_INT);
    INTS(uint32_t, MPI_UINT32_T);
    INTS(long, MPI_LONG);
    INTS(int64_t, MPI_INT64_T);
    INTS(unsigned long long, MPI_UNSIGNED_LONG_LONG);
    CASE(float, MPI_FLOAT, "MPI_SUM", MPI_SUM, b + a);
    CASE(float, MPI_FLOAT, "MPI_PROD", MPI_PROD, b * a);
    CASE(double, MPI_DOUBLE, "MPI_SUM", MPI_SUM, b + a);
    CASE(double, MPI_DOUBLE, "MPI_PROD", MPI_PROD, b * a);
}

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    long halves;
    CALLS(halves, pairs(""));
    CHECK(halves == 0, "%ld of the predefined pairs' calls went to Go", halves);
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN)); /* MPI_Reduce_local's */

    /* The same buffer as both operands: x + x. */
    int x[5] = {1, 2, 3, 4, 5};
    CALLS(halves, OK(MPI_Reduce_local(x, x, 5, MPI_INT, MPI_SUM)));
    CHECK(halves == 1, "the same buffer twice: %ld calls went to Go", halves);
    for (int k = 0; k < 5; k++) CHECK(x[k] == 2 * (k + 1), "x + x, item %d: %d", k, x[k]);
    /* A pair the C kernels do not have: Go's. */
    long double la[3] = {1, 5, 2}, lb[3] = {4, 3, 2};
    OK(MPI_Reduce_local(la, lb, 3, MPI_LONG_DOUBLE, MPI_MAX));
    CHECK(lb[0] == 4 && lb[1] == 5 && lb[2] == 2, "MAX on long double: %Lg %Lg %Lg", lb[0], lb[1], lb[2]);

    int cls, y[2] = {0, 0};
    MPI_Error_class(MPI_Reduce_local(NULL, y, 2, MPI_INT, MPI_SUM), &cls);
    CHECK(cls == MPI_ERR_BUFFER, "a NULL inbuf: class %d, want MPI_ERR_BUFFER", cls);
    MPI_Error_class(MPI_Reduce_local(x, NULL, 2, MPI_INT, MPI_SUM), &cls);
    CHECK(cls == MPI_ERR_BUFFER, "a NULL inoutbuf: class %d, want MPI_ERR_BUFFER", cls);
    MPI_Error_class(MPI_Reduce_local(x, y, -1, MPI_INT, MPI_SUM), &cls);
    CHECK(cls == MPI_ERR_COUNT, "count -1: class %d, want MPI_ERR_COUNT", cls);
    MPI_Error_class(MPI_Reduce_local(x, y, 2, MPI_BYTE, MPI_SUM), &cls);
    CHECK(cls == MPI_ERR_OP, "MPI_SUM on MPI_BYTE: class %d, want MPI_ERR_OP", cls);
    float f[2] = {1, 2}, g[2] = {3, 4};
    MPI_Error_class(MPI_Reduce_local(f, g, 2, MPI_FLOAT, MPI_BAND), &cls);
    CHECK(cls == MPI_ERR_OP, "MPI_BAND on MPI_FLOAT: class %d, want MPI_ERR_OP", cls);
    CHECK(g[0] == 3 && g[1] == 4, "a refused Reduce_local changed inoutbuf: %g %g", g[0], g[1]);
    OK(MPI_Reduce_local(NULL, NULL, 0, MPI_INT, MPI_SUM)); /* nothing to combine */
    OK(MPI_Finalize());
    printf("OK reducelocal\n");
    return 0;
}
