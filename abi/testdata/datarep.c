/* datarep.c - data representations through the C ABI, on any number of ranks, in the
 * directory argv[1]: a user representation (MPI_Register_datarep and its _c form)
 * that byte-swaps every item, its conversions called in chunks with extra_state,
 * checked against plain POSIX reads of the file; a failing conversion and the other
 * bad calls with their classes; external32 views of C long, laid out at 4 bytes an
 * item. It leaves no file behind. */
#include "iotest.h"
#include <stdint.h>

/* The state of the swapping representation: its conversions' calls. */
struct state {
    long calls, items, next; /* write conversions, items they converted, the next position */
    int bad;                 /* a call out of order */
    MPI_Datatype seen;       /* the datatype the last call got */
};

static void swap(unsigned char *dst, const unsigned char *src, long n, int size) {
    for (long i = 0; i < n; i++)
        for (int j = 0; j < size; j++) dst[i * size + j] = src[i * size + size - 1 - j];
}

/* The conversions take predefined types, their items back to back. */
static int swap_write(void *user, MPI_Datatype type, int count, void *file, MPI_Offset position, void *extra) {
    struct state *s = extra;
    int size;
    MPI_Type_size(type, &size);
    if (position != s->next) s->bad = 1;
    s->calls++, s->items += count, s->next = position + count, s->seen = type;
    swap(file, (unsigned char *)user + position * size, count, size);
    return MPI_SUCCESS;
}

static int swap_read(void *user, MPI_Datatype type, int count, void *file, MPI_Offset position, void *extra) {
    int size;
    (void)extra;
    MPI_Type_size(type, &size);
    swap((unsigned char *)user + position * size, file, count, size);
    return MPI_SUCCESS;
}

static int swap_write_c(void *user, MPI_Datatype type, MPI_Count count, void *file, MPI_Offset position, void *extra) {
    return swap_write(user, type, (int)count, file, position, extra);
}

static int swap_read_c(void *user, MPI_Datatype type, MPI_Count count, void *file, MPI_Offset position, void *extra) {
    return swap_read(user, type, (int)count, file, position, extra);
}

static int failing(void *user, MPI_Datatype type, int count, void *file, MPI_Offset position, void *extra) {
    (void)user, (void)type, (void)count, (void)file, (void)position, (void)extra;
    return MPI_ERR_OTHER;
}

static int extent_calls;

static int native_extent(MPI_Datatype type, MPI_Aint *extent, void *extra) {
    MPI_Aint lb;
    (void)extra;
    extent_calls++;
    return MPI_Type_get_extent(type, &lb, extent);
}

/* user: each rank writes its blocks of N ints, interleaved, through the swapping
 * representation, collectively; the file holds them big-endian, and they read back. */
static void user(const char *rep, struct state *s) {
    enum { B = 1024, N = 512 * B }; /* 2 MiB a rank: more than one conversion chunk */
    char name[512];
    path(name, "u");
    MPI_File fh;
    MPI_Status st;
    MPI_Datatype ft;
    int count;
    char got[MPI_MAX_DATAREP_STRING];
    MPI_Offset disp;
    MPI_Datatype et, ft2;
    OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    OK(MPI_Type_vector(N / B, B, B * np, MPI_INT, &ft));
    OK(MPI_Type_commit(&ft));
    extent_calls = 0;
    OK(MPI_File_set_view(fh, (MPI_Offset)rank * B * 4, MPI_INT, ft, rep, MPI_INFO_NULL));
    CHECK(extent_calls > 0, "set_view of a user representation did not ask its extents");
    OK(MPI_File_get_view(fh, &disp, &et, &ft2, got));
    CHECK(strcmp(got, rep) == 0, "get_view's datarep %s, want %s", got, rep);
    MPI_Type_free(&ft2);
    int *v = malloc(N * sizeof(int)), *back = malloc(N * sizeof(int));
    for (int i = 0; i < N; i++) v[i] = ((i / B * np + rank) * B + i % B) * 3; /* the file's int index * 3 */
    OK(MPI_File_write_at_all(fh, 0, v, N, MPI_INT, &st));
    OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == N, "wrote %d ints", count);
    CHECK(!s->bad && s->items == N && s->calls > 1 && s->seen == MPI_INT,
          "write conversions: %ld calls, %ld items, in order %d", s->calls, s->items, !s->bad);
    OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        unsigned char *raw = malloc((size_t)N * 4 * np);
        CHECK(posix_read(name, raw, (long)N * 4 * np) == (long)N * 4 * np, "the file's size");
        for (long i = 0; i < (long)N * np; i++) {
            unsigned char *p = raw + 4 * i;
            int x = (int)((unsigned)p[0] << 24 | (unsigned)p[1] << 16 | (unsigned)p[2] << 8 | p[3]);
            CHECK(x == i * 3, "big-endian int %ld of the file is %d", i, x);
        }
        free(raw);
    }
    memset(back, 0, N * sizeof(int));
    OK(MPI_File_read_at_all(fh, 0, back, N, MPI_INT, &st));
    CHECK(memcmp(back, v, N * sizeof(int)) == 0, "read back other ints");
    OK(MPI_File_close(&fh));
    MPI_Type_free(&ft);
    free(v);
    free(back);
}

/* errors: every bad use gets its class. */
static void errors(void) {
    char name[512];
    path(name, "e");
    MPI_File fh;
    int two[2] = {1, 2};
    FAILS(MPI_Register_datarep("swap", swap_read, swap_write, native_extent, &extent_calls), MPI_ERR_DUP_DATAREP);
    FAILS(MPI_Register_datarep("external32", NULL, NULL, native_extent, NULL), MPI_ERR_DUP_DATAREP);
    FAILS(MPI_Register_datarep(NULL, NULL, NULL, native_extent, NULL), MPI_ERR_ARG);
    FAILS(MPI_Register_datarep("", NULL, NULL, native_extent, NULL), MPI_ERR_ARG);
    FAILS(MPI_Register_datarep("noextent", NULL, NULL, NULL, NULL), MPI_ERR_ARG);
    OK(MPI_Register_datarep("failing", failing, failing, native_extent, &extent_calls));
    OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    FAILS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "nosuch", MPI_INFO_NULL), MPI_ERR_UNSUPPORTED_DATAREP);
    OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "failing", MPI_INFO_NULL));
    FAILS(MPI_File_write_at(fh, rank * 2, two, 2, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_CONVERSION);
    FAILS(MPI_File_write_at_all(fh, rank * 2, two, 2, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_CONVERSION);
    MPI_Offset size;
    OK(MPI_File_get_size(fh, &size));
    CHECK(size == 0, "writes whose conversions failed left %lld bytes", (long long)size);
    OK(MPI_File_close(&fh));
}

/* longs: external32 views of C long: 4 bytes an item in the file, big-endian; a
 * vector's stride scales, an hvector's byte stride is the file's. */
static void longs(void) {
    enum { N = 50 };
    char name[512];
    path(name, "l");
    MPI_File fh;
    MPI_Datatype ft, hv;
    MPI_Aint ext;
    MPI_Offset off;
    long v[N], back[N];
    OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    OK(MPI_Type_vector(N, 1, np, MPI_LONG, &ft));
    OK(MPI_Type_commit(&ft));
    OK(MPI_File_set_view(fh, rank * 4, MPI_LONG, ft, "external32", MPI_INFO_NULL));
    OK(MPI_File_get_type_extent(fh, ft, &ext));
    CHECK(ext == 4 * ((N - 1) * np + 1), "the filetype's extent in external32 is %ld, want %d", (long)ext, 4 * ((N - 1) * np + 1));
    OK(MPI_File_get_byte_offset(fh, 3, &off));
    CHECK(off == rank * 4 + 3 * np * 4, "get_byte_offset(3) = %lld, want %d", (long long)off, rank * 4 + 3 * np * 4);
    for (int i = 0; i < N; i++) v[i] = -1000L * (i * np + rank) - 7;
    OK(MPI_File_write_all(fh, v, N, MPI_LONG, MPI_STATUS_IGNORE));
    OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        unsigned char raw[4 * N * 8];
        CHECK(posix_read(name, raw, sizeof raw) == 4 * N * np, "the file's size");
        for (int i = 0; i < N * np; i++) {
            unsigned char *p = raw + 4 * i;
            long x = (int)((unsigned)p[0] << 24 | (unsigned)p[1] << 16 | (unsigned)p[2] << 8 | p[3]);
            CHECK(x == -1000L * i - 7, "big-endian long %d of the file is %ld", i, x);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_File_read_at_all(fh, 0, back, N, MPI_LONG, MPI_STATUS_IGNORE));
    CHECK(memcmp(back, v, sizeof v) == 0, "read back other longs");
    /* An hvector of unsigned longs 8 bytes apart in the file: 4 of data, 4 of hole. */
    OK(MPI_Type_create_hvector(N, 1, 8, MPI_UNSIGNED_LONG, &hv));
    OK(MPI_Type_commit(&hv));
    OK(MPI_File_set_view(fh, 0, MPI_UNSIGNED_LONG, hv, "external32", MPI_INFO_NULL));
    OK(MPI_File_get_type_extent(fh, hv, &ext));
    CHECK(ext == 8 * (N - 1) + 4, "the hvector's extent in external32 is %ld, want %d", (long)ext, 8 * (N - 1) + 4);
    if (rank == 0) {
        unsigned long u[N], ub[N];
        for (int i = 0; i < N; i++) u[i] = 0xfedcba98UL - i;
        OK(MPI_File_write_at(fh, 0, u, N, MPI_UNSIGNED_LONG, MPI_STATUS_IGNORE));
        OK(MPI_File_read_at(fh, 0, ub, N, MPI_UNSIGNED_LONG, MPI_STATUS_IGNORE));
        CHECK(memcmp(u, ub, sizeof u) == 0, "read back other unsigned longs");
    }
    OK(MPI_File_sync(fh));
    if (rank == 0) {
        unsigned char raw[8 * N * 8];
        CHECK(posix_read(name, raw, sizeof raw) >= 8 * (N - 1) + 4, "the file's size");
        for (int i = 0; i < N; i++) {
            unsigned char *p = raw + 8 * i;
            unsigned long x = (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 | (unsigned long)p[2] << 8 | p[3];
            CHECK(x == 0xfedcba98UL - i, "big-endian unsigned long %d of the file is %lx", i, x);
        }
    }
    MPI_Type_free(&ft);
    MPI_Type_free(&hv);
    OK(MPI_File_close(&fh));
}

int main(int argc, char **argv) {
    io_start(&argc, &argv, "datarep");
    struct state s = {0}, sc = {0};
    OK(MPI_Register_datarep("swap", swap_read, swap_write, native_extent, &s));
    OK(MPI_Register_datarep_c("swap_c", swap_read_c, swap_write_c, native_extent, &sc));
    user("swap", &s);
    user("swap_c", &sc);
    errors();
    longs();
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_Finalize());
    if (rank == 0) printf("OK datarep\n");
    return 0;
}
