/* typeshort.c - the datatype calls' short ways in C (abi/libmpi/typeshort.c):
 * vectors of predefined types made, committed and freed in C, taken over by Go at
 * their first use there; MPI_Type_commit of a type Go made marked in C; both checked
 * against what a user sees (sizes, extents, envelope and contents, packing, sending,
 * duplicates, errors on freed handles) and, through mpigo_short_fallbacks (the
 * library's count of calls handed to Go), that the short ways are taken. Argument
 * "multiple" runs at MPI_THREAD_MULTIPLE, where the constructors take the Go way. */
#include <pthread.h>
#include <string.h>
#include "check.h"

static void check_pack(MPI_Datatype t, const double *src, int nelem, int stride, const char *what) {
    double out[64];
    int pos = 0;
    OK(MPI_Pack(src, 1, t, out, sizeof out, &pos, MPI_COMM_SELF));
    CHECK(pos == nelem * 8, "%s: packed %d bytes", what, pos);
    for (int i = 0; i < nelem; i++) CHECK(out[i] == src[i * stride], "%s: [%d] = %g", what, i, out[i]);
}

/* At MPI_THREAD_MULTIPLE, threads pack one committed, never used type at once: the
 * engine compiles it at its first use, once. */
enum { NT = 4, NB = 1000 };
static MPI_Datatype shared_t;
static double shared_src[NB * 4];

static void *packer(void *arg) {
    (void)arg;
    double out[NB];
    int pos = 0;
    OK(MPI_Pack(shared_src, 1, shared_t, out, sizeof out, &pos, MPI_COMM_SELF));
    CHECK(pos == NB * 8, "packed %d bytes", pos);
    for (int i = 0; i < NB; i++) CHECK(out[i] == shared_src[4 * i], "block %d = %g", i, out[i]);
    return NULL;
}

static void threads_first_use(void) {
    int bl[NB], dis[NB];
    for (int i = 0; i < NB; i++) {
        bl[i] = 1;
        dis[i] = 4 * i; /* blocks of 8 bytes, not touching */
    }
    for (int i = 0; i < NB * 4; i++) shared_src[i] = i;
    for (int round = 0; round < 20; round++) {
        OK(MPI_Type_indexed(NB, bl, dis, MPI_DOUBLE, &shared_t));
        OK(MPI_Type_commit(&shared_t));
        pthread_t th[NT];
        for (int t = 0; t < NT; t++) pthread_create(&th[t], NULL, packer, NULL);
        for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
        OK(MPI_Type_free(&shared_t));
    }
}

int main(int argc, char **argv) {
    int multiple = argc > 1 && strcmp(argv[1], "multiple") == 0, provided;
    OK(MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided));
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    double src[64];
    for (int i = 0; i < 64; i++) src[i] = i + 0.5;
    long n;

    /* Made, committed and freed in C; used in between. */
    MPI_Datatype v;
    CALLS(n, OK(MPI_Type_vector(8, 1, 2, MPI_DOUBLE, &v)));
    CHECK(n == multiple, "MPI_Type_vector handed %ld calls to Go", n);
    CALLS(n, OK(MPI_Type_commit(&v)));
    CHECK(n == 0, "MPI_Type_commit handed %ld calls to Go", n);
    check_pack(v, src, 8, 2, "vector");
    int sz;
    MPI_Aint lb, ext;
    OK(MPI_Type_size(v, &sz));
    OK(MPI_Type_get_extent(v, &lb, &ext));
    CHECK(sz == 64 && lb == 0 && ext == 15 * 8, "vector size %d lb %ld extent %ld", sz, (long)lb, (long)ext);
    int ni, na, nd, comb;
    OK(MPI_Type_get_envelope(v, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nd == 1, "envelope %d %d %d %d", comb, ni, na, nd);
    int ints[3];
    MPI_Datatype old;
    OK(MPI_Type_get_contents(v, 3, 0, 1, ints, NULL, &old));
    CHECK(ints[0] == 8 && ints[1] == 1 && ints[2] == 2 && old == MPI_DOUBLE, "contents %d %d %d", ints[0], ints[1], ints[2]);
    MPI_Datatype d;
    OK(MPI_Type_dup(v, &d));
    check_pack(d, src, 8, 2, "dup of vector");
    CALLS(n, OK(MPI_Type_free(&v)));
    CHECK(v == MPI_DATATYPE_NULL && n == 1, "free of a vector used in Go: %ld calls to Go", n);
    check_pack(d, src, 8, 2, "dup of a freed vector");
    OK(MPI_Type_free(&d));

    /* Used in Go before its commit: the commit reaches Go. */
    MPI_Datatype h;
    OK(MPI_Type_create_hvector(4, 2, 32, MPI_DOUBLE, &h));
    OK(MPI_Type_size(h, &sz));
    CHECK(sz == 64, "hvector size %d", sz);
    int pos = 0;
    double out[64];
    CHECK(MPI_Pack(src, 1, h, out, sizeof out, &pos, MPI_COMM_SELF) != MPI_SUCCESS, "packing an uncommitted hvector succeeded");
    OK(MPI_Type_commit(&h));
    double want[8] = {0.5, 1.5, 4.5, 5.5, 8.5, 9.5, 12.5, 13.5};
    OK(MPI_Pack(src, 1, h, out, sizeof out, &pos, MPI_COMM_SELF));
    CHECK(pos == 64 && memcmp(out, want, 64) == 0, "hvector packed %d bytes", pos);
    OK(MPI_Type_free(&h));
    CHECK(MPI_Type_size(h, &sz) != MPI_SUCCESS, "size of MPI_DATATYPE_NULL succeeded");

    /* Made and freed in C, never used: the handle goes, and its record is reused. */
    MPI_Datatype c, c2;
    OK(MPI_Type_contiguous(3, MPI_INT, &c));
    MPI_Datatype stale = c;
    OK(MPI_Type_commit(&c));
    CALLS(n, OK(MPI_Type_free(&c)));
    CHECK(c == MPI_DATATYPE_NULL && n == multiple, "free of an unused contiguous: %ld calls to Go", n);
    CHECK(MPI_Type_commit(&stale) != MPI_SUCCESS, "commit of a freed handle succeeded");
    CHECK(MPI_Type_size(stale, &sz) != MPI_SUCCESS, "size of a freed handle succeeded");
    OK(MPI_Type_contiguous(5, MPI_INT, &c2));
    OK(MPI_Type_commit(&c2));
    OK(MPI_Type_size(c2, &sz));
    CHECK(sz == 20, "contiguous size %d", sz);
    OK(MPI_Type_free(&c2));

    /* Wrong arguments take the Go way and its errors. */
    CHECK(MPI_Type_vector(-1, 1, 2, MPI_DOUBLE, &v) != MPI_SUCCESS, "negative count accepted");
    CHECK(MPI_Type_vector(1, 1, 2, MPI_DATATYPE_NULL, &v) != MPI_SUCCESS, "MPI_DATATYPE_NULL accepted");
    CHECK(MPI_Type_commit(NULL) != MPI_SUCCESS, "commit of NULL accepted");
    MPI_Datatype pre = MPI_INT;
    CHECK(MPI_Type_free(&pre) != MPI_SUCCESS, "free of MPI_INT accepted");

    /* A type Go made, committed in C, then sent and received. */
    int bl[3] = {2, 1, 3}, dis[3] = {0, 5, 9};
    MPI_Datatype ix;
    OK(MPI_Type_indexed(3, bl, dis, MPI_DOUBLE, &ix));
    CALLS(n, OK(MPI_Type_commit(&ix)));
    CHECK(n == 0, "commit of an indexed type handed %ld calls to Go", n);
    double wantx[6] = {0.5, 1.5, 5.5, 9.5, 10.5, 11.5};
    pos = 0;
    OK(MPI_Pack(src, 1, ix, out, sizeof out, &pos, MPI_COMM_SELF));
    CHECK(pos == 48 && memcmp(out, wantx, 48) == 0, "indexed packed %d bytes", pos);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype col;
    OK(MPI_Type_vector(4, 1, 4, MPI_DOUBLE, &col));
    OK(MPI_Type_commit(&col));
    if (size > 1 && rank < 2) {
        double buf[16];
        if (rank == 0) {
            OK(MPI_Send(src, 1, col, 1, 0, MPI_COMM_WORLD));
            OK(MPI_Send(src, 1, ix, 1, 1, MPI_COMM_WORLD));
        } else {
            OK(MPI_Recv(buf, 4, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int i = 0; i < 4; i++) CHECK(buf[i] == src[4 * i], "column [%d] = %g", i, buf[i]);
            OK(MPI_Recv(buf, 6, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(memcmp(buf, wantx, 48) == 0, "indexed received");
        }
    }
    OK(MPI_Type_free(&col));
    OK(MPI_Type_free(&ix));
    CHECK(MPI_Type_commit(&ix) != MPI_SUCCESS, "commit of MPI_DATATYPE_NULL accepted");

    /* More types alive than C keeps records for: the rest take the Go way. */
    enum { MANY = 5000 };
    static MPI_Datatype many[MANY];
    for (int i = 0; i < MANY; i++) {
        OK(MPI_Type_vector(2, 1, 1 + i % 7, MPI_DOUBLE, &many[i]));
        OK(MPI_Type_commit(&many[i]));
    }
    for (int i = 0; i < MANY; i += 97) check_pack(many[i], src, 2, 1 + i % 7, "one of many");
    for (int i = 0; i < MANY; i++) OK(MPI_Type_free(&many[i]));

    if (multiple) {
        CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
        threads_first_use();
    }

    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Finalize());
    if (rank == 0) printf("OK typeshort\n");
    return 0;
}
