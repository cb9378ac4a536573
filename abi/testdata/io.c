/* io.c - MPI-IO through the C ABI, on any number of ranks, in the directory argv[1]:
 * open, close, delete and their errors, sizes, hints, atomicity, views (vector and
 * subarray filetypes, noncontiguous memory, external32), explicit offsets and the file pointer,
 * blocking, nonblocking, collective and split collective, with the _c forms, checked against plain POSIX
 * reads of the file; the classes of bad calls (a full disk too), and the file error handlers. It leaves
 * no file behind. */
#include "iotest.h"

static unsigned char pat(long i) { return (unsigned char)(i * 7 + (i >> 8) + 1); }

static int handler_calls = 0;
static MPI_File handler_file;
static void file_handler(MPI_File *fh, int *code, ...) {
    handler_calls++;
    handler_file = *fh;
    (void)code;
}

/* byte_extent is a data representation's extent function: every type as in memory. */
static int byte_extent(MPI_Datatype type, MPI_Aint *extent, void *state) {
    MPI_Aint lb;
    (void)state;
    return MPI_Type_get_extent(type, &lb, extent);
}

static void opens(void) {
    char name[512];
    MPI_File fh = MPI_FILE_NULL;
    path(name, "missing");
    FAILS(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_NO_SUCH_FILE);
    CHECK(fh == MPI_FILE_NULL, "a failed open's handle is not MPI_FILE_NULL");
    FAILS(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
    FAILS(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
    FAILS(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
    FAILS(MPI_File_open(MPI_COMM_WORLD, dir, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_BAD_FILE);
    FAILS(MPI_File_open(MPI_COMM_WORLD, NULL, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_ARG);
    FAILS(MPI_File_open(MPI_COMM_NULL, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_COMM);
    if (np > 1)
        FAILS(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | (rank ? MPI_MODE_RDWR : MPI_MODE_WRONLY),
                            MPI_INFO_NULL, &fh), MPI_ERR_NOT_SAME);
    FAILS(MPI_File_delete(name, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);

    path(name, "x");
    OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    int amode;
    OK(MPI_File_get_amode(fh, &amode));
    CHECK(amode == (MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY), "amode %d", amode);
    MPI_Group g;
    int gs;
    OK(MPI_File_get_group(fh, &g));
    MPI_Group_size(g, &gs);
    CHECK(gs == np, "the file's group has %d ranks", gs);
    MPI_Group_free(&g);
    CHECK(MPI_File_fromint(MPI_File_toint(fh)) == fh, "MPI_File_toint and fromint do not round trip");
    OK(MPI_File_close(&fh));
    CHECK(fh == MPI_FILE_NULL, "close left the handle");
    FAILS(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
          MPI_ERR_FILE_EXISTS);
    /* A file opened read-only is a read-only file (MPI_ERR_READ_ONLY, as ROMIO and
     * OMPIO say too): no write, no change of size. */
    OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    FAILS(MPI_File_write_at(fh, 0, &gs, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_READ_ONLY);
    FAILS(MPI_File_set_size(fh, 0), MPI_ERR_READ_ONLY);
    OK(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) OK(MPI_File_delete(name, MPI_INFO_NULL));
    MPI_Barrier(MPI_COMM_WORLD);
}

/* explicit writes a block per rank at explicit offsets, reads them back, and reads
 * past the end. */
static void explicit_offsets(void) {
    enum { B = 1000 };
    char name[512];
    unsigned char buf[B + 10], *all = malloc((size_t)np * B);
    path(name, "e");
    MPI_File fh;
    MPI_Status st;
    int count;
    OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    for (int i = 0; i < B; i++) buf[i] = pat((long)rank * B + i);
    OK(MPI_File_write_at(fh, (MPI_Offset)rank * B, buf, B, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == B, "wrote %d bytes", count);
    OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        long n = posix_read(name, all, (long)np * B);
        CHECK(n == (long)np * B, "the file has %ld bytes", n);
        for (long i = 0; i < n; i++) CHECK(all[i] == pat(i), "byte %ld", i);
    }
    int next = (rank + 1) % np;
    memset(buf, 0, sizeof buf);
    OK(MPI_File_read_at_c(fh, (MPI_Offset)next * B, buf, B + 10, MPI_BYTE, &st));
    MPI_Count cc;
    MPI_Get_count_c(&st, MPI_BYTE, &cc);
    CHECK(cc == (next == np - 1 ? B : B + 10), "read %lld bytes of block %d", (long long)cc, next);
    for (int i = 0; i < B; i++) CHECK(buf[i] == pat((long)next * B + i), "byte %d of block %d", i, next);
    OK(MPI_File_read_at(fh, (MPI_Offset)np * B + 3, buf, 10, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == 0, "a read past the end read %d bytes", count);
    MPI_Offset size;
    OK(MPI_File_get_size(fh, &size));
    CHECK(size == (MPI_Offset)np * B, "size %lld", (long long)size);
    OK(MPI_File_close(&fh));
    CHECK(access(name, F_OK) != 0, "the file opened MPI_MODE_DELETE_ON_CLOSE is still there");
    free(all);
}

/* views writes interleaved blocks of ints through a vector filetype, collectively and
 * through nonblocking calls, checks the file, and reads it back with a strided memory
 * type. */
static void views(void) {
    enum { BLK = 8, NB = 32 };
    char name[512];
    path(name, "v");
    MPI_File fh;
    MPI_Status st;
    MPI_Datatype vec, ft;
    OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_Type_vector(1, BLK, BLK * np, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)BLK * np * sizeof(int), &ft);
    MPI_Type_commit(&ft);
    OK(MPI_File_set_view(fh, (MPI_Offset)rank * BLK * sizeof(int), MPI_INT, ft, "native", MPI_INFO_NULL));
    int vals[BLK * NB];
    for (int i = 0; i < BLK * NB; i++) vals[i] = (i / BLK * np + rank) * BLK + i % BLK;
    OK(MPI_File_write_all(fh, vals, BLK * NB / 2, MPI_INT, &st));
    MPI_Request rq[2];
    OK(MPI_File_iwrite(fh, vals + BLK * NB / 2, BLK * NB / 4, MPI_INT, &rq[0]));
    OK(MPI_File_iwrite_all_c(fh, vals + BLK * NB * 3 / 4, BLK * NB / 4, MPI_INT, &rq[1]));
    OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    MPI_Offset pos, off;
    OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == BLK * NB, "position %lld", (long long)pos);
    OK(MPI_File_get_byte_offset(fh, BLK + 1, &off));
    CHECK(off == (MPI_Offset)((np + rank) * BLK + 1) * (MPI_Offset)sizeof(int), "byte offset %lld", (long long)off);
    OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        long want = (long)np * BLK * NB * (long)sizeof(int);
        int *raw = malloc((size_t)want);
        CHECK(posix_read(name, (unsigned char *)raw, want) == want, "the file's size");
        for (long i = 0; i < want / (long)sizeof(int); i++) CHECK(raw[i] == i, "int %ld is %d", i, raw[i]);
        free(raw);
    }
    MPI_Offset disp;
    MPI_Datatype et, vt;
    char rep[MPI_MAX_DATAREP_STRING];
    OK(MPI_File_get_view(fh, &disp, &et, &vt, rep));
    CHECK(disp == (MPI_Offset)rank * BLK * (MPI_Offset)sizeof(int) && et == MPI_INT && vt != ft && strcmp(rep, "native") == 0,
          "get_view: %lld, etype %s MPI_INT, filetype %s new, %s", (long long)disp, et == MPI_INT ? "is" : "is not",
          vt != ft ? "is" : "is not", rep);
    MPI_Type_free(&vt);
    /* Read back into every other int of a buffer twice as long. */
    MPI_Datatype mem;
    MPI_Type_vector(BLK * NB, 1, 2, MPI_INT, &mem);
    MPI_Type_commit(&mem);
    int back[2 * BLK * NB];
    memset(back, 0xff, sizeof back);
    OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    OK(MPI_File_read_all(fh, back, 1, mem, &st));
    int count;
    MPI_Get_count(&st, mem, &count);
    CHECK(count == 1, "read %d items of the memory type", count);
    for (int i = 0; i < BLK * NB; i++) CHECK(back[2 * i] == vals[i] && back[2 * i + 1] == -1, "int %d read back", i);
    OK(MPI_File_seek(fh, -3, MPI_SEEK_END));
    OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == BLK * NB - 3, "MPI_SEEK_END -3: position %lld", (long long)pos);
    MPI_Request rr[2];
    int tail[3], first[2];
    OK(MPI_File_iread(fh, tail, 3, MPI_INT, &rr[0]));
    OK(MPI_File_iread_at_all(fh, 0, first, 2, MPI_INT, &rr[1]));
    MPI_Status sts[2];
    OK(MPI_Waitall(2, rr, sts));
    CHECK(tail[2] == vals[BLK * NB - 1] && first[1] == vals[1], "nonblocking reads");
    MPI_Get_count(&sts[0], MPI_INT, &count);
    CHECK(count == 3, "iread's count %d", count);
    /* Bad views. */
    FAILS(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "big-endian", MPI_INFO_NULL), MPI_ERR_UNSUPPORTED_DATAREP);
    FAILS(MPI_File_set_view(fh, -1, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), MPI_ERR_ARG);
    FAILS(MPI_File_set_view(fh, 0, MPI_INT, MPI_DOUBLE, "native", MPI_INFO_NULL), MPI_ERR_TYPE);
    FAILS(MPI_File_set_view(fh, 0, MPI_DATATYPE_NULL, MPI_BYTE, "native", MPI_INFO_NULL), MPI_ERR_TYPE);
    {   /* A file opened for writing takes no overlapping etype or filetype (MPI 4.1 sec.
         * 14.3; MPICH io/tst_fileview). */
        int lens[2] = {3, 1}, disps[2] = {0, 1};
        MPI_Datatype over, four;
        OK(MPI_Type_indexed(2, lens, disps, MPI_INT, &over));
        OK(MPI_Type_commit(&over));
        OK(MPI_Type_contiguous(4, MPI_INT, &four));
        OK(MPI_Type_commit(&four));
        FAILS(MPI_File_set_view(fh, 0, MPI_INT, over, "native", MPI_INFO_NULL), MPI_ERR_TYPE);
        FAILS(MPI_File_set_view(fh, 0, over, four, "native", MPI_INFO_NULL), MPI_ERR_TYPE);
        MPI_Type_free(&over);
        MPI_Type_free(&four);
    }
    FAILS(MPI_File_seek(fh, -1, MPI_SEEK_SET), MPI_ERR_ARG);
    FAILS(MPI_File_read_at(fh, 0, back, 3, MPI_CHAR, &st), MPI_ERR_TYPE); /* 3 bytes of int etypes */
    MPI_Type_free(&mem);
    MPI_Type_free(&vec);
    MPI_Type_free(&ft);
    OK(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) OK(MPI_File_delete(name, MPI_INFO_NULL));
}

/* external32: each rank writes 2 ints and a long through an external32 view; the
 * file holds them big-endian at the standard's sizes (4 bytes each, the long's too),
 * and they read back converted. */
static void external32(void) {
    char name[512];
    path(name, "x");
    MPI_File fh;
    MPI_Status st;
    MPI_Aint ext;
    int count;
    OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
    OK(MPI_File_get_type_extent(fh, MPI_LONG, &ext));
    CHECK(ext == 4, "MPI_LONG's extent in external32 is %ld, want 4", (long)ext);
    OK(MPI_File_get_type_extent(fh, MPI_DOUBLE, &ext));
    CHECK(ext == 8, "MPI_DOUBLE's extent in external32 is %ld, want 8", (long)ext);
    int two[2] = {0x01020304 + rank, -2 - rank};
    long l = -3 - rank;
    OK(MPI_File_write_at_all(fh, rank * 12, two, 2, MPI_INT, &st));
    OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == 2, "wrote %d ints", count);
    OK(MPI_File_write_at(fh, rank * 12 + 8, &l, 1, MPI_LONG, &st));
    OK(MPI_Get_count(&st, MPI_LONG, &count));
    CHECK(count == 1, "wrote %d longs", count);
    OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_File_sync(fh));
    if (rank == 0) {
        unsigned char raw[12 * 8];
        CHECK(posix_read(name, raw, sizeof raw) == 12 * np, "the file's size");
        for (int r = 0; r < np; r++) {
            unsigned char *p = raw + 12 * r;
            long v[3];
            for (int k = 0; k < 3; k++)
                v[k] = (int)((unsigned)p[4 * k] << 24 | (unsigned)p[4 * k + 1] << 16 | (unsigned)p[4 * k + 2] << 8 | p[4 * k + 3]);
            CHECK(v[0] == 0x01020304 + r && v[1] == -2 - r && v[2] == -3 - r, "rank %d's big-endian items: %lx %ld %ld", r, v[0], v[1], v[2]);
        }
    }
    int back[2] = {0, 0};
    long lb = 0;
    int peer = (rank + 1) % np;
    OK(MPI_File_read_at(fh, peer * 12, back, 2, MPI_INT, &st));
    OK(MPI_File_read_at_all(fh, peer * 12 + 8, &lb, 1, MPI_LONG, &st));
    CHECK(back[0] == 0x01020304 + peer && back[1] == -2 - peer && lb == -3 - peer, "read back %x %d %ld", back[0], back[1], lb);
    /* A view of types external32 narrows (datarep.c checks its layout). */
    OK(MPI_File_set_view(fh, 0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL));
    OK(MPI_File_close(&fh));
}

/* subarray: each rank writes a tile of a 2-D array from a ghosted buffer. */
static void subarray(void) {
    enum { R = 4, C = 5 };
    char name[512];
    path(name, "a");
    MPI_File fh;
    int sizes[2] = {R * np, C}, sub[2] = {R, C}, starts[2] = {R * rank, 0};
    MPI_Datatype ft, mem;
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &ft);
    int msizes[2] = {R + 2, C + 2}, mstarts[2] = {1, 1};
    MPI_Type_create_subarray(2, msizes, sub, mstarts, MPI_ORDER_C, MPI_DOUBLE, &mem);
    MPI_Type_commit(&ft);
    MPI_Type_commit(&mem);
    double tile[(R + 2) * (C + 2)];
    for (int i = 0; i < (R + 2) * (C + 2); i++) tile[i] = -1;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) tile[(i + 1) * (C + 2) + j + 1] = (R * rank + i) * C + j;
    OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    OK(MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL));
    /* A split collective: begin, a second begin refused, an end of another kind
     * refused, the end. */
    MPI_Status st;
    OK(MPI_File_write_at_all_begin(fh, 0, tile, 1, mem));
    FAILS(MPI_File_write_all_begin_c(fh, tile, 1, mem), MPI_ERR_IO);
    FAILS(MPI_File_read_at_all_end(fh, tile, &st), MPI_ERR_IO);
    OK(MPI_File_write_at_all_end(fh, tile, &st));
    int count;
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    CHECK(count == R * C, "the split write's count %d", count);
    FAILS(MPI_File_write_at_all_end(fh, tile, &st), MPI_ERR_IO);
    double again[(R + 2) * (C + 2)];
    memset(again, 0, sizeof again);
    OK(MPI_File_read_all_begin(fh, again, 1, mem));
    OK(MPI_File_read_all_end(fh, again, MPI_STATUS_IGNORE));
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            CHECK(again[(i + 1) * (C + 2) + j + 1] == tile[(i + 1) * (C + 2) + j + 1], "the split read's (%d,%d)", i, j);
    OK(MPI_File_set_view(fh, 0, MPI_DOUBLE, MPI_DOUBLE, "native", MPI_INFO_NULL));
    double *all = malloc(sizeof(double) * R * C * np);
    MPI_Request rq;
    OK(MPI_File_iread_at(fh, 0, all, R * C * np, MPI_DOUBLE, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int i = 0; i < R * C * np; i++) CHECK(all[i] == i, "element %d is %g", i, all[i]);
    free(all);
    OK(MPI_File_close(&fh));
    MPI_Type_free(&ft);
    MPI_Type_free(&mem);
}

/* files: sizes, hints, atomicity, the modes' checks, error handlers. */
static void files(void) {
    char name[512], v[MPI_MAX_INFO_VAL];
    path(name, "f");
    MPI_File fh;
    MPI_Info in, used;
    int flag;
    MPI_Info_create(&in);
    MPI_Info_set(in, "cb_buffer_size", "2097152");
    MPI_Info_set(in, "no_such_hint", "x");
    OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, in, &fh));
    MPI_Info_free(&in);
    OK(MPI_File_get_info(fh, &used));
    MPI_Info_get(used, "cb_buffer_size", MPI_MAX_INFO_VAL - 1, v, &flag);
    CHECK(flag && strcmp(v, "2097152") == 0, "cb_buffer_size %s", flag ? v : "not set");
    MPI_Info_get(used, "romio_ds_read", MPI_MAX_INFO_VAL - 1, v, &flag);
    CHECK(flag && strcmp(v, "automatic") == 0, "romio_ds_read %s", flag ? v : "not set");
    MPI_Info_get(used, "no_such_hint", MPI_MAX_INFO_VAL - 1, v, &flag);
    CHECK(!flag, "an ignored hint is reported");
    MPI_Info_free(&used);
    MPI_Info_create(&in);
    MPI_Info_set(in, "romio_ds_write", "enable");
    OK(MPI_File_set_info(fh, in));
    MPI_Info_free(&in);
    OK(MPI_File_set_size(fh, 1234));
    MPI_Offset size;
    OK(MPI_File_get_size(fh, &size));
    CHECK(size == 1234, "set_size: %lld", (long long)size);
    OK(MPI_File_preallocate(fh, 4096));
    OK(MPI_File_get_size(fh, &size));
    CHECK(size == 4096, "preallocate: %lld", (long long)size);
    FAILS(MPI_File_set_size(fh, rank), np > 1 ? MPI_ERR_NOT_SAME : MPI_SUCCESS);
    OK(MPI_File_set_atomicity(fh, 1));
    OK(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 1, "atomicity %d", flag);
    MPI_Aint ext;
    MPI_Count cext;
    OK(MPI_File_get_type_extent(fh, MPI_DOUBLE, &ext));
    OK(MPI_File_get_type_extent_c(fh, MPI_INT, &cext));
    CHECK(ext == 8 && cext == 4, "type extents %ld %lld", (long)ext, (long long)cext);

    /* The default handler of files is MPI_ERRORS_RETURN (MPI_COMM_WORLD's is fatal
     * here); a handler set on a file serves it, and its nonblocking requests. */
    MPI_Errhandler eh, got;
    OK(MPI_File_get_errhandler(fh, &got));
    CHECK(got == MPI_ERRORS_RETURN, "a new file's handler is not MPI_ERRORS_RETURN");
    OK(MPI_File_create_errhandler(file_handler, &eh));
    OK(MPI_File_set_errhandler(fh, eh));
    FAILS(MPI_File_seek(fh, 0, 12345), MPI_ERR_ARG);
    CHECK(handler_calls == 1 && handler_file == fh, "the file's handler ran %d times", handler_calls);
    /* A collective call's bad argument reaches the file's handler on every rank. */
    FAILS(MPI_File_seek_shared(fh, 0, 12345), MPI_ERR_ARG);
    CHECK(handler_calls == 2 && handler_file == fh, "a bad seek_shared did not reach the file's handler");
    handler_calls = 1;
    MPI_Request rq;
    int bad[2] = {0, 0};
    if (rank == 0) {
        /* One rank's bad collective: its call fails, the others' requests at Wait. */
        FAILS(MPI_File_iread_all(fh, bad, -1, MPI_INT, &rq), MPI_ERR_COUNT);
    } else {
        OK(MPI_File_iread_all(fh, bad, 2, MPI_INT, &rq));
        FAILS(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPI_ERR_COUNT);
    }
    CHECK(handler_calls == 2, "the file's handler ran %d times, want 2", handler_calls);
    OK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    OK(MPI_File_close(&fh));
    FAILS(MPI_File_get_size(fh, &size), MPI_ERR_FILE);
    /* MPI_FILE_NULL's handler is what new files start with. */
    OK(MPI_File_set_errhandler(MPI_FILE_NULL, eh));
    OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_DELETE_ON_CLOSE,
                     MPI_INFO_NULL, &fh));
    OK(MPI_File_get_errhandler(fh, &got));
    CHECK(got == eh, "a new file did not take MPI_FILE_NULL's handler");
    MPI_Errhandler_free(&got);
    FAILS(MPI_File_read(fh, bad, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_ACCESS);
    CHECK(handler_calls == 3, "the inherited handler ran %d times, want 3", handler_calls);
    OK(MPI_File_close(&fh));
    /* An I/O procedure without a file raises on MPI_FILE_NULL's handler: a failed
     * MPI_File_delete, and MPI_Register_datarep of a name registered already. */
    FAILS(MPI_File_delete(name, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
    CHECK(handler_calls == 4 && handler_file == MPI_FILE_NULL, "MPI_File_delete: the handler ran %d times", handler_calls);
    OK(MPI_Register_datarep("mpigo_test", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, byte_extent, NULL));
    FAILS(MPI_Register_datarep("mpigo_test", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, byte_extent, NULL),
          MPI_ERR_DUP_DATAREP);
    CHECK(handler_calls == 5 && handler_file == MPI_FILE_NULL, "MPI_Register_datarep: the handler ran %d times",
          handler_calls);
    OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    MPI_Errhandler_free(&eh);
}

/* full writes to /dev/full, which is always out of space, as a full disk is: every
 * rank's write fails with MPI_ERR_NO_SPACE, and the file closes cleanly. */
static void full(void) {
    if (access("/dev/full", W_OK) != 0) return;
    MPI_File fh;
    MPI_Status st;
    int data[2] = {rank, rank}, count = -1;
    OK(MPI_File_open(MPI_COMM_WORLD, "/dev/full", MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    FAILS(MPI_File_write_at(fh, rank * sizeof data, data, 2, MPI_INT, &st), MPI_ERR_NO_SPACE);
    OK(MPI_Status_set_elements(&st, MPI_INT, 5));
    FAILS(MPI_File_write_at_all(fh, rank * sizeof data, data, 2, MPI_INT, &st), MPI_ERR_NO_SPACE);
    OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == 0, "a failed collective write reports %d ints written", count);
    OK(MPI_File_close(&fh));
}

int main(int argc, char **argv) {
    io_start(&argc, &argv, "io");
    opens();
    explicit_offsets();
    views();
    external32();
    subarray();
    files();
    full();
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_Finalize());
    if (rank == 0) printf("OK io\n");
    return 0;
}
