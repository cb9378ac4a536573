/* dtype.c - derived datatypes on C memory: a vector, a struct sent from MPI_BOTTOM
 * with absolute addresses, pack and unpack, and a user reduction written in C. */
#include <string.h>
#include "check.h"

typedef struct { double re, im; } cplx;

/* complex multiplication: not commutative in MPI's eyes unless told so */
static void cmul(void *in, void *inout, int *len, MPI_Datatype *dt) {
    cplx *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        cplx c = {a[i].re * b[i].re - a[i].im * b[i].im, a[i].re * b[i].im + a[i].im * b[i].re};
        b[i] = c;
    }
}

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* a column of a 4x5 matrix */
    MPI_Datatype col;
    OK(MPI_Type_vector(4, 1, 5, MPI_INT, &col));
    OK(MPI_Type_commit(&col));
    int sz;
    MPI_Aint lb, ext;
    OK(MPI_Type_size(col, &sz));
    OK(MPI_Type_get_extent(col, &lb, &ext));
    CHECK(sz == 16 && lb == 0 && ext == (3 * 5 + 1) * 4, "vector size %d extent %ld", sz, (long)ext);
    int m[4][5];
    if (rank == 0) {
        for (int i = 0; i < 4; i++) for (int j = 0; j < 5; j++) m[i][j] = 10 * i + j;
        OK(MPI_Send(&m[0][2], 1, col, 1, 0, MPI_COMM_WORLD));
    } else if (rank == 1) {
        int c[4];
        MPI_Status st;
        OK(MPI_Recv(c, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, &st));
        for (int i = 0; i < 4; i++) CHECK(c[i] == 10 * i + 2, "column [%d] = %d", i, c[i]);
        int n;
        OK(MPI_Get_elements(&st, col, &n));
        CHECK(n == 4, "elements %d", n);
    }

    /* a struct of two separate variables, by absolute address, from MPI_BOTTOM */
    int iv = 0;
    double dv = 0;
    MPI_Aint addr[2];
    OK(MPI_Get_address(&iv, &addr[0]));
    OK(MPI_Get_address(&dv, &addr[1]));
    int bl[2] = {1, 1};
    MPI_Datatype ts[2] = {MPI_INT, MPI_DOUBLE}, abs;
    OK(MPI_Type_create_struct(2, bl, addr, ts, &abs));
    OK(MPI_Type_commit(&abs));
    if (rank == 0) {
        iv = 77, dv = 2.5;
        OK(MPI_Send(MPI_BOTTOM, 1, abs, 1, 1, MPI_COMM_WORLD));
    } else if (rank == 1) {
        OK(MPI_Recv(MPI_BOTTOM, 1, abs, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(iv == 77 && dv == 2.5, "MPI_BOTTOM struct: %d %g", iv, dv);
    }
    /* and in a collective */
    if (rank == 0) iv = 5, dv = 6.5;
    OK(MPI_Bcast(MPI_BOTTOM, 1, abs, 0, MPI_COMM_WORLD));
    CHECK(iv == 5 && dv == 6.5, "MPI_BOTTOM Bcast: %d %g", iv, dv);

    /* pack and unpack */
    char packed[256];
    int pos = 0, psz;
    OK(MPI_Pack_size(1, col, MPI_COMM_WORLD, &psz));
    CHECK(psz >= 16, "pack size %d", psz);
    for (int i = 0; i < 4; i++) for (int j = 0; j < 5; j++) m[i][j] = i * j;
    OK(MPI_Pack(&m[0][3], 1, col, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    CHECK(pos == 16, "packed %d bytes", pos);
    int back[4][5];
    memset(back, 0, sizeof back);
    pos = 0;
    OK(MPI_Unpack(packed, sizeof packed, &pos, &back[0][1], 1, col, MPI_COMM_WORLD));
    for (int i = 0; i < 4; i++) CHECK(back[i][1] == i * 3, "unpacked [%d] = %d", i, back[i][1]);

    /* a user operation in C on a contiguous derived type */
    MPI_Datatype ctype;
    OK(MPI_Type_contiguous(2, MPI_DOUBLE, &ctype));
    OK(MPI_Type_commit(&ctype));
    MPI_Op op;
    OK(MPI_Op_create(cmul, 1, &op));
    cplx z = {0, 1}, prod; /* i^size */
    OK(MPI_Allreduce(&z, &prod, 1, ctype, op, MPI_COMM_WORLD));
    cplx want = {1, 0};
    for (int i = 0; i < size; i++) { cplx c = {want.re * 0 - want.im * 1, want.re * 1 + want.im * 0}; want = c; }
    CHECK(prod.re == want.re && prod.im == want.im, "i^%d = %g%+gi", size, prod.re, prod.im);
    cplx a = {2, 0}, b = {0, 3};
    OK(MPI_Reduce_local(&a, &b, 1, ctype, op));
    CHECK(b.re == 0 && b.im == 6, "Reduce_local");
    OK(MPI_Op_free(&op));
    CHECK(op == MPI_OP_NULL, "Op_free");
    OK(MPI_Type_free(&col));
    OK(MPI_Type_free(&abs));
    OK(MPI_Type_free(&ctype));
    CHECK(col == MPI_DATATYPE_NULL, "Type_free");
    OK(MPI_Finalize());
    if (rank == 0) printf("OK dtype\n");
    return 0;
}
