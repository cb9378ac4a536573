/* fileshort.c - MPI_File_write_at and MPI_File_read_at's short way in C
 * (abi/libmpi/fileshort.c), in the directory argv[1]: every call is made twice with
 * the same arguments, through MPI_File_x (the short way where it applies) on one
 * file and through the library's Go half goPMPI_File_x (the way every call took
 * before) on its twin, and the two must agree: return codes, error classes, the file
 * error handler's calls, statuses (every field; MPI_Get_count of them) and, at the
 * end, the files byte for byte (and both against what a POSIX read says).
 * mpigo_short_files (the library's count of the calls done in C) says which way each
 * took: plain views of MPI_BYTE, MPI_INT, MPI_DOUBLE and a view with a displacement
 * and an etype of 4 bytes take the C way (the record sends one call in about 64 to Go,
 * which times it), and every other case goes to Go: a vector filetype, atomic mode,
 * a derived datatype, bytes that are not whole etypes, a negative offset or count, a
 * NULL buffer, a read-only file written, a write-only file read, a stale handle, and
 * /dev/full (its pwrite fails in C, Go makes it again and reports MPI_ERR_NO_SPACE).
 * Reads past the end give short counts; the individual file pointer does not move.
 * With the argument "memory" the directory is on tmpfs, where a write that lands inside
 * the file is Go's (a copy into the file's mapping) and may not be counted in C.
 * With the argument "multiple" (MPI_THREAD_MULTIPLE) no call may take the C way; with
 * "profile" (or "profile-multiple") it makes only the calls profiled() says, for the
 * record's counts (TestFileShortWayCounted). */
#include "iotest.h"
#include <stdint.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

extern long mpigo_short_files(void);
extern int goPMPI_File_write_at(MPI_File, MPI_Offset, const void *, int, MPI_Datatype, MPI_Status *);
extern int goPMPI_File_read_at(MPI_File, MPI_Offset, void *, int, MPI_Datatype, MPI_Status *);
extern int goPMPI_File_write_at_c(MPI_File, MPI_Offset, const void *, MPI_Count, MPI_Datatype, MPI_Status *);
extern int goPMPI_File_read_at_c(MPI_File, MPI_Offset, void *, MPI_Count, MPI_Datatype, MPI_Status *);

static int none;         /* no call may take the C way */
static int memory;       /* the files are in memory: writes inside one are Go's copies */
static long want_c, in_c; /* calls that may take the C way, and those that did */

static int handler_calls, handler_set; /* handler_set: the files' handler is file_handler */
static void file_handler(MPI_File *fh, int *code, ...) {
    (void)fh, (void)code;
    handler_calls++;
}

static int class_of(int rc) {
    int c = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &c);
    return c;
}

enum { WRITE, READ, WRITE_C, READ_C };

/* one makes one call of kind k on fh, through C's entry (go 0) or the Go half. */
static int one(int k, int go, MPI_File fh, MPI_Offset off, void *buf, MPI_Count count, MPI_Datatype dt, MPI_Status *st) {
    switch (k) {
    case WRITE: return go ? goPMPI_File_write_at(fh, off, buf, (int)count, dt, st) : MPI_File_write_at(fh, off, buf, (int)count, dt, st);
    case READ: return go ? goPMPI_File_read_at(fh, off, buf, (int)count, dt, st) : MPI_File_read_at(fh, off, buf, (int)count, dt, st);
    case WRITE_C: return go ? goPMPI_File_write_at_c(fh, off, buf, count, dt, st) : MPI_File_write_at_c(fh, off, buf, count, dt, st);
    default: return go ? goPMPI_File_read_at_c(fh, off, buf, count, dt, st) : MPI_File_read_at_c(fh, off, buf, count, dt, st);
    }
}

/* twin makes call k on a (through MPI_File_x) and on b (through goPMPI_File_x) with the
 * same arguments (a read into buf and into a copy of it), checks that they agree, and
 * that the call on a took the C way (c: 1), did not (0), or either (-1: the sampled call
 * goes to Go). It returns the return code; *stp gets a's status. */
static int twin(const char *what, int c, int k, MPI_File a, MPI_File b, MPI_Offset off, void *buf, MPI_Count count,
                MPI_Datatype dt, int ignore, MPI_Status *stp) {
    static unsigned char copy[1 << 16];
    MPI_Status sa, sb;
    memset(&sa, 0xab, sizeof sa), memset(&sb, 0xab, sizeof sb);
    long bytes = 0;
    int size = 1;
    if (buf != NULL && count > 0) {
        MPI_Type_size(dt, &size);
        bytes = (long)count * size;
        CHECK(bytes <= (long)sizeof copy, "%s: a buffer too large for the test", what);
        memcpy(copy, buf, (size_t)bytes);
    }
    int h0 = handler_calls;
    long n0 = mpigo_short_files();
    int ra = one(k, 0, a, off, buf, count, dt, ignore ? MPI_STATUS_IGNORE : &sa);
    long d = mpigo_short_files() - n0;
    int ha = handler_calls - h0;
    int rb = one(k, 1, b, off, bytes > 0 ? copy : buf, count, dt, ignore ? MPI_STATUS_IGNORE : &sb);
    CHECK(mpigo_short_files() - n0 == d, "%s: the Go half counted a call in C", what);
    int hb = handler_calls - h0 - ha;
    CHECK(class_of(ra) == class_of(rb), "%s: class %d through MPI_File_x, %d through its Go half", what, class_of(ra),
          class_of(rb));
    CHECK(ha == hb && (!handler_set || ha == (ra != MPI_SUCCESS)),
          "%s: the handler ran %d times, %d through the Go half (code %d)", what, ha, hb, ra);
    CHECK(memcmp(&sa, &sb, sizeof sa) == 0, "%s: statuses differ: source %d/%d tag %d/%d error %d/%d internal %d,%d,%d/%d,%d,%d",
          what, sa.MPI_SOURCE, sb.MPI_SOURCE, sa.MPI_TAG, sb.MPI_TAG, sa.MPI_ERROR, sb.MPI_ERROR, sa.MPI_internal[0],
          sa.MPI_internal[1], sa.MPI_internal[2], sb.MPI_internal[0], sb.MPI_internal[1], sb.MPI_internal[2]);
    if ((k == READ || k == READ_C) && bytes > 0)
        CHECK(memcmp(buf, copy, (size_t)bytes) == 0, "%s: the bytes read differ", what);
    CHECK(d == 0 || d == 1, "%s: %ld calls in C", what, d);
    if (memory && (k == WRITE || k == WRITE_C) && c == 1) c = -1;
    if (none || c == 0) CHECK(d == 0, "%s: took the C way", what);
    if (!none && c == 1) want_c++, in_c += d;
    if (stp) *stp = sa;
    return ra;
}

static unsigned char pat(long i, int salt) { return (unsigned char)(i * 7 + (i >> 8) + salt * 13 + 1); }

/* count_of is MPI_Get_count of st in dt. */
static int count_of(MPI_Status *st, MPI_Datatype dt) {
    int n = -7;
    OK(MPI_Get_count(st, dt, &n));
    return n;
}

/* open2 opens the twins name.c and name.go, each this rank's own. */
static void open2(const char *name, int amode, MPI_File *a, MPI_File *b) {
    char p[512], q[520];
    path(p, name);
    snprintf(q, sizeof q, "%s.c.%d", p, rank);
    OK(MPI_File_open(MPI_COMM_SELF, q, amode, MPI_INFO_NULL, a));
    snprintf(q, sizeof q, "%s.go.%d", p, rank);
    OK(MPI_File_open(MPI_COMM_SELF, q, amode, MPI_INFO_NULL, b));
}

/* same checks that the twins name.c and name.go hold the same bytes, as POSIX reads
 * them, and n of them; then deletes them. */
static void same(const char *name, long n) {
    static unsigned char x[1 << 17], y[1 << 17];
    char p[512], q[520];
    path(p, name);
    snprintf(q, sizeof q, "%s.c.%d", p, rank);
    long nx = posix_read(q, x, sizeof x);
    OK(MPI_File_delete(q, MPI_INFO_NULL));
    snprintf(q, sizeof q, "%s.go.%d", p, rank);
    long ny = posix_read(q, y, sizeof y);
    OK(MPI_File_delete(q, MPI_INFO_NULL));
    CHECK(nx == ny && memcmp(x, y, (size_t)nx) == 0, "%s: the files differ (%ld and %ld bytes)", name, nx, ny);
    CHECK(nx == n, "%s: %ld bytes, want %ld", name, nx, n);
}

/* plain: byte views, every size from 0 to 4 KiB, MPI_INT and MPI_DOUBLE, the _c forms,
 * MPI_STATUS_IGNORE; reads inside, across and past the end; the file pointer. */
static void plain(void) {
    static unsigned char buf[8192], back[8192];
    MPI_File a, b;
    MPI_Status st;
    open2("plain", MPI_MODE_CREATE | MPI_MODE_RDWR, &a, &b);
    for (long i = 0; i < (long)sizeof buf; i++) buf[i] = pat(i, rank);
    OK(MPI_File_seek(a, 5, MPI_SEEK_SET));
    OK(MPI_File_seek(b, 5, MPI_SEEK_SET));
    long end = 0;
    for (int i = 0; i < 200; i++) {
        int n = (int)((i * 37) % 4097), off = (i * 101) % 3000;
        twin("write_at MPI_BYTE", 1, i % 3 ? WRITE : WRITE_C, a, b, off, buf + i, n, MPI_BYTE, i % 5 == 0, &st);
        if (i % 5) CHECK(count_of(&st, MPI_BYTE) == n, "write_at of %d bytes: count %d", n, count_of(&st, MPI_BYTE));
        if (n > 0 && off + n > end) end = off + n;
    }
    twin("write_at MPI_BYTE, 0 bytes past the end", 1, WRITE, a, b, 100000, buf, 0, MPI_BYTE, 0, &st);
    CHECK(count_of(&st, MPI_BYTE) == 0, "a write of nothing: count %d", count_of(&st, MPI_BYTE));
    twin("write_at of 0 items from NULL", 1, WRITE, a, b, 3, NULL, 0, MPI_INT, 0, &st);
    twin("write_at MPI_INT", 1, WRITE, a, b, 4001, buf, 25, MPI_INT, 0, &st);
    CHECK(count_of(&st, MPI_INT) == 25 && count_of(&st, MPI_BYTE) == 100, "write_at of 25 ints: counts %d and %d",
          count_of(&st, MPI_INT), count_of(&st, MPI_BYTE));
    twin("write_at_c MPI_DOUBLE", 1, WRITE_C, a, b, 4200, buf + 8, 100, MPI_DOUBLE, 0, &st);
    CHECK(count_of(&st, MPI_DOUBLE) == 100, "write_at_c of 100 doubles: count %d", count_of(&st, MPI_DOUBLE));
    if (end < 4200 + 800) end = 4200 + 800;
    MPI_Offset pos;
    OK(MPI_File_get_position(a, &pos));
    CHECK(pos == 5, "the individual file pointer moved to %ld", (long)pos);

    for (int i = 0; i < 100; i++) {
        int n = (int)((i * 53) % 4097), off = (i * 211) % 5200;
        memset(back, 0xee, sizeof back);
        twin("read_at MPI_BYTE", 1, i % 2 ? READ : READ_C, a, b, off, back, n, MPI_BYTE, 0, &st);
        long want = off >= end ? 0 : (off + n > end ? end - off : n);
        CHECK(count_of(&st, MPI_BYTE) == want, "read_at of %d bytes at %d of %ld: count %d", n, off, end,
              count_of(&st, MPI_BYTE));
    }
    /* Past the end: 30 bytes of the 100 asked for, a count of 7 ints and 2 left over. */
    twin("read_at across the end", 1, READ, a, b, end - 30, back, 100, MPI_BYTE, 0, &st);
    CHECK(count_of(&st, MPI_BYTE) == 30, "read_at across the end: count %d", count_of(&st, MPI_BYTE));
    {
        char p[512], q[520];
        unsigned char ref[30];
        path(p, "plain");
        snprintf(q, sizeof q, "%s.c.%d", p, rank);
        int fd = open(q, O_RDONLY);
        CHECK(fd >= 0 && pread(fd, ref, 30, end - 30) == 30, "pread of %s", q);
        close(fd);
        CHECK(memcmp(back, ref, 30) == 0, "read_at across the end read other bytes than pread");
    }
    twin("read_at MPI_INT across the end", 1, READ, a, b, end - 30, back, 25, MPI_INT, 0, &st);
    CHECK(count_of(&st, MPI_INT) == MPI_UNDEFINED && count_of(&st, MPI_BYTE) == 30,
          "read_at of ints across the end: counts %d and %d", count_of(&st, MPI_INT), count_of(&st, MPI_BYTE));
    twin("read_at at the end", 1, READ, a, b, end, back, 10, MPI_BYTE, 0, &st);
    CHECK(count_of(&st, MPI_BYTE) == 0, "read_at at the end: count %d", count_of(&st, MPI_BYTE));
    twin("read_at far past the end", 1, READ_C, a, b, 1L << 40, back, 10, MPI_DOUBLE, 1, NULL);
    OK(MPI_File_get_position(a, &pos));
    CHECK(pos == 5, "the individual file pointer moved to %ld", (long)pos);
    OK(MPI_File_close(&a));
    OK(MPI_File_close(&b));
    same("plain", end);
}

/* pieces: writes longer than the library's longest write call to a file on ext4
 * (mpio's writePiece, 256 KiB), which the C way makes in pieces, at an odd offset,
 * through MPI_File_write_at and the _c form; the file read back by POSIX. */
static void pieces(void) {
    enum { N = 3 * (256 << 10) + 12345, OFF = 777 };
    unsigned char *buf = malloc(2 * N), *back = malloc(N + OFF + 1);
    CHECK(buf != NULL && back != NULL, "malloc");
    for (long i = 0; i < 2 * N; i++) buf[i] = pat(i, rank);
    char p[512], q[520];
    path(p, "pieces");
    snprintf(q, sizeof q, "%s.%d", p, rank);
    MPI_File a;
    MPI_Status st;
    OK(MPI_File_open(MPI_COMM_SELF, q, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &a));
    long n0 = mpigo_short_files();
    OK(MPI_File_write_at(a, OFF, buf + N, N, MPI_BYTE, &st)); /* over by the second */
    OK(MPI_File_write_at_c(a, OFF, buf, N, MPI_BYTE, &st));
    CHECK(count_of(&st, MPI_BYTE) == N, "write_at_c of %d bytes: count %d", N, count_of(&st, MPI_BYTE));
    if (!none && !memory) CHECK(mpigo_short_files() - n0 >= 1, "neither long write took the C way");
    OK(MPI_File_close(&a));
    long got = posix_read(q, back, N + OFF + 1);
    CHECK(got == N + OFF, "the file has %ld bytes, want %d", got, N + OFF);
    CHECK(memcmp(back + OFF, buf, N) == 0, "the file's bytes differ from what write_at_c wrote");
    OK(MPI_File_delete(q, MPI_INFO_NULL));
    free(buf), free(back);
}

/* dirty_pages is how many pages of [off, off+n) of the file open as fd are dirty in
 * the page cache (cachestat(2), Linux 6.5), -1 where the system cannot say. */
static long dirty_pages(int fd, long off, long n) {
    struct { uint64_t off, len; } range = {(uint64_t)off, (uint64_t)n};
    struct { uint64_t cache, dirty, writeback, evicted, recently_evicted; } cs;
    if (syscall(451 /* SYS_cachestat */, fd, &range, &cs, 0) != 0) return -1;
    return (long)cs.dirty;
}

/* behind: a write_at of 6 MiB to a file on a disk (taken in C, in pieces) starts its
 * writeback as it goes, so few of its pages are left dirty; with the hint
 * mpigo_write_behind "disable" most are, until the sync. */
static void behind(void) {
    enum { N = 6 << 20 };
    if (memory) return; /* tmpfs has no device to write back to */
    unsigned char *buf = malloc(N);
    CHECK(buf != NULL, "malloc");
    for (long i = 0; i < N; i++) buf[i] = pat(i, rank);
    char p[512], q[520];
    path(p, "behind");
    snprintf(q, sizeof q, "%s.%d", p, rank);
    MPI_File a;
    MPI_Status st;
    OK(MPI_File_open(MPI_COMM_SELF, q, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &a));
    int fd = open(q, O_RDONLY);
    CHECK(fd >= 0, "open %s", q);
    for (int on = 0; on <= 1; on++) {
        {
            MPI_Info in;
            OK(MPI_Info_create(&in));
            OK(MPI_Info_set(in, "mpigo_write_behind", on ? "enable" : "disable"));
            OK(MPI_File_set_info(a, in));
            OK(MPI_Info_free(&in));
        }
        long n0 = mpigo_short_files(), off = on ? 0 : N;
        OK(MPI_File_write_at(a, off, buf, N, MPI_BYTE, &st));
        long dirty = dirty_pages(fd, off, N), pages = N / 4096;
        if (dirty < 0) break; /* a kernel without cachestat, or a file system in memory */
        CHECK(on ? dirty <= pages / 4 : dirty >= pages / 2, "write_at (%s, %s way): %ld of %ld pages dirty",
              on ? "write-behind" : "mpigo_write_behind disable", mpigo_short_files() > n0 ? "C" : "Go", dirty, pages);
    }
    close(fd);
    OK(MPI_File_close(&a));
    free(buf);
}

/* views: a displacement and an etype of 4 bytes (C); bytes that are not whole etypes,
 * a vector filetype, atomic mode, a derived datatype (Go); back to the plain view (C). */
static void views(void) {
    static unsigned char buf[8192], back[8192];
    MPI_File a, b;
    MPI_Status st;
    MPI_Datatype vec, two;
    open2("views", MPI_MODE_CREATE | MPI_MODE_RDWR, &a, &b);
    for (long i = 0; i < (long)sizeof buf; i++) buf[i] = pat(i, 3 + rank);
    OK(MPI_File_set_view(a, 12, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    OK(MPI_File_set_view(b, 12, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    for (int i = 0; i < 80; i++)
        twin("write_at in a view of ints", 1, WRITE, a, b, i * 10, buf + i, 40, MPI_BYTE, 0, &st);
    twin("write_at of ints", 1, WRITE, a, b, 900, buf, 10, MPI_INT, 0, &st);
    twin("6 bytes in a view of ints", 0, WRITE, a, b, 3, buf, 6, MPI_BYTE, 0, &st);
    twin("read_at in a view of ints", 1, READ, a, b, 5, back, 64, MPI_BYTE, 0, &st);
    CHECK(count_of(&st, MPI_BYTE) == 64, "read_at in a view of ints: count %d", count_of(&st, MPI_BYTE));
    twin("read_at of ints in a view of ints", 1, READ, a, b, 5, back, 16, MPI_INT, 0, &st);
    twin("a negative offset", 0, WRITE, a, b, -1, buf, 4, MPI_BYTE, 0, &st);
    twin("an offset past the largest", 0, READ, a, b, INT64_MAX / 2, back, 4, MPI_BYTE, 0, &st);
    twin("a negative count", 0, WRITE, a, b, 0, buf, -4, MPI_BYTE, 0, &st);
    twin("a NULL buffer", 0, WRITE, a, b, 0, NULL, 4, MPI_BYTE, 0, &st);

    OK(MPI_Type_contiguous(2, MPI_INT, &two));
    OK(MPI_Type_commit(&two));
    twin("a derived datatype", 0, WRITE, a, b, 950, buf + 7, 3, two, 0, &st);
    twin("read_at of a derived datatype", 0, READ, a, b, 950, back, 3, two, 0, &st);
    CHECK(count_of(&st, two) == 3, "read_at of a derived datatype: count %d", count_of(&st, two));

    OK(MPI_Type_vector(4, 2, 3, MPI_INT, &vec));
    OK(MPI_Type_commit(&vec));
    OK(MPI_File_set_view(a, 4, MPI_INT, vec, "native", MPI_INFO_NULL));
    OK(MPI_File_set_view(b, 4, MPI_INT, vec, "native", MPI_INFO_NULL));
    for (int i = 0; i < 20; i++) twin("write_at in a vector view", 0, WRITE, a, b, i * 5, buf + 3 * i, 24, MPI_BYTE, 0, &st);
    twin("read_at in a vector view", 0, READ, a, b, 2, back, 200, MPI_BYTE, 0, &st);
    CHECK(count_of(&st, MPI_BYTE) == 200, "read_at in a vector view: count %d", count_of(&st, MPI_BYTE));

    OK(MPI_File_set_view(a, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    OK(MPI_File_set_view(b, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    OK(MPI_File_set_atomicity(a, 1));
    OK(MPI_File_set_atomicity(b, 1));
    for (int i = 0; i < 10; i++) twin("write_at in atomic mode", 0, WRITE, a, b, 5000 + i * 30, buf + i, 30, MPI_BYTE, 0, &st);
    OK(MPI_File_set_atomicity(a, 0));
    OK(MPI_File_set_atomicity(b, 0));
    for (int i = 0; i < 50; i++) twin("write_at again plain", 1, WRITE, a, b, 6000 + i * 7, buf + i, 20, MPI_BYTE, 0, &st);
    twin("read_at again plain", 1, READ, a, b, 6000, back, 400, MPI_BYTE, 0, &st);
    OK(MPI_File_set_view(a, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
    OK(MPI_File_set_view(b, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
    twin("write_at in external32", 0, WRITE, a, b, 7000, buf, 12, MPI_INT, 0, &st);
    OK(MPI_File_close(&a));
    OK(MPI_File_close(&b));
    same("views", 7048);
    MPI_Type_free(&vec);
    MPI_Type_free(&two);
}

/* errors: a read-only file written, a write-only file read, a stale handle, a full
 * device, each through the file's handler (or MPI_FILE_NULL's). */
static void errors(void) {
    unsigned char buf[64] = {1, 2, 3};
    MPI_File a, b;
    MPI_Status st;
    MPI_Errhandler eh;
    OK(MPI_File_create_errhandler(file_handler, &eh));
    handler_set = 1;
    open2("errors", MPI_MODE_CREATE | MPI_MODE_WRONLY, &a, &b);
    OK(MPI_File_set_errhandler(a, eh));
    OK(MPI_File_set_errhandler(b, eh));
    twin("write_at of a write-only file", 1, WRITE, a, b, 0, buf, 64, MPI_BYTE, 0, &st);
    CHECK(class_of(twin("read_at of a write-only file", 0, READ, a, b, 0, buf, 8, MPI_BYTE, 0, &st)) == MPI_ERR_ACCESS,
          "read_at of a write-only file: not MPI_ERR_ACCESS");
    OK(MPI_File_close(&a));
    OK(MPI_File_close(&b));
    char p[512], q[520];
    path(p, "errors");
    snprintf(q, sizeof q, "%s.c.%d", p, rank);
    OK(MPI_File_open(MPI_COMM_SELF, q, MPI_MODE_RDONLY, MPI_INFO_NULL, &a));
    snprintf(q, sizeof q, "%s.go.%d", p, rank);
    OK(MPI_File_open(MPI_COMM_SELF, q, MPI_MODE_RDONLY, MPI_INFO_NULL, &b));
    OK(MPI_File_set_errhandler(a, eh));
    OK(MPI_File_set_errhandler(b, eh));
    CHECK(class_of(twin("write_at of a read-only file", 0, WRITE, a, b, 0, buf, 8, MPI_BYTE, 0, &st)) == MPI_ERR_READ_ONLY,
          "write_at of a read-only file: not MPI_ERR_READ_ONLY");
    twin("read_at of a read-only file", 1, READ, a, b, 0, buf, 64, MPI_BYTE, 0, &st);
    MPI_File sa = a, sb = b;
    OK(MPI_File_close(&a));
    OK(MPI_File_close(&b));
    OK(MPI_File_set_errhandler(MPI_FILE_NULL, eh));
    CHECK(class_of(twin("write_at of a closed file", 0, WRITE, sa, sb, 0, buf, 8, MPI_BYTE, 0, &st)) == MPI_ERR_FILE,
          "write_at of a closed file: not MPI_ERR_FILE");
    twin("read_at of a closed file", 0, READ, sa, sb, 0, buf, 8, MPI_BYTE, 0, &st);
    OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    same("errors", 64);

    struct stat sd;
    if (stat("/dev/full", &sd) == 0) {
        OK(MPI_File_open(MPI_COMM_SELF, "/dev/full", MPI_MODE_WRONLY, MPI_INFO_NULL, &a));
        OK(MPI_File_open(MPI_COMM_SELF, "/dev/full", MPI_MODE_WRONLY, MPI_INFO_NULL, &b));
        OK(MPI_File_set_errhandler(a, eh));
        OK(MPI_File_set_errhandler(b, eh));
        CHECK(class_of(twin("write_at of /dev/full", 0, WRITE, a, b, 0, buf, 8, MPI_BYTE, 0, &st)) == MPI_ERR_NO_SPACE,
              "write_at of /dev/full: not MPI_ERR_NO_SPACE");
        OK(MPI_File_close(&a));
        OK(MPI_File_close(&b));
    }
    MPI_Errhandler_free(&eh);
    handler_set = 0;
}

/* shared: every rank writes its block of one file through the C way, and reads the
 * others' after a barrier. */
static void shared(void) {
    enum { B = 1000 };
    char name[512];
    unsigned char buf[B], back[B];
    MPI_File fh;
    MPI_Status st;
    path(name, "shared");
    OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    for (int i = 0; i < B; i++) buf[i] = pat(i, 20 + rank);
    for (int i = 0; i < 10; i++) OK(MPI_File_write_at(fh, (MPI_Offset)rank * B + i * 100, buf + i * 100, 100, MPI_BYTE, &st));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int r = 0; r < np; r++) {
        OK(MPI_File_read_at(fh, (MPI_Offset)r * B, back, B, MPI_BYTE, &st));
        CHECK(count_of(&st, MPI_BYTE) == B, "read_at of rank %d's block: count %d", r, count_of(&st, MPI_BYTE));
        for (int i = 0; i < B; i++) CHECK(back[i] == pat(i, 20 + r), "rank %d's byte %d", r, i);
    }
    OK(MPI_File_close(&fh));
}

/* profiled: 300 writes of 64 bytes and 300 reads of them (the C way where it may), a
 * read of 10 bytes across the end that moves 4, and, in a vector view (the Go way), a
 * write and a read of 8 bytes. */
static void profiled(void) {
    char name[512], buf[64] = {0};
    MPI_File fh;
    MPI_Status st;
    MPI_Datatype vec;
    path(name, "profiled");
    OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    long n0 = mpigo_short_files();
    for (int i = 0; i < 300; i++) OK(MPI_File_write_at(fh, ((MPI_Offset)i * np + rank) * 64, buf, 64, MPI_BYTE, &st));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 300; i++) OK(MPI_File_read_at(fh, ((MPI_Offset)i * np + rank) * 64, buf, 64, MPI_BYTE, &st));
    OK(MPI_File_read_at(fh, (MPI_Offset)300 * np * 64 - 4, buf, 10, MPI_BYTE, &st));
    CHECK(count_of(&st, MPI_BYTE) == 4, "a read across the end: count %d", count_of(&st, MPI_BYTE));
    CHECK(none ? mpigo_short_files() == n0 : mpigo_short_files() - n0 > 450, "%ld of 601 calls in C",
          mpigo_short_files() - n0);
    OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    OK(MPI_Type_commit(&vec));
    OK(MPI_File_set_view(fh, 0, MPI_INT, vec, "native", MPI_INFO_NULL));
    OK(MPI_File_write_at(fh, 0, buf, 2, MPI_INT, &st));
    OK(MPI_File_read_at(fh, 0, buf, 2, MPI_INT, &st));
    OK(MPI_File_close(&fh));
    MPI_Type_free(&vec);
}

int main(int argc, char **argv) {
    int provided;
    (void)io_start; /* MPI_Init_thread here, for "multiple" */
    none = argc == 3 && strstr(argv[2], "multiple") != NULL;
    memory = argc == 3 && strcmp(argv[2], "memory") == 0;
    int prof = argc == 3 && strncmp(argv[2], "profile", 7) == 0;
    OK(MPI_Init_thread(&argc, &argv, none ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK(argc >= 2, "usage: fileshort dir [multiple|profile|profile-multiple]");
    snprintf(dir, sizeof dir, "%s", argv[1]);
    if (prof) {
        profiled();
        MPI_Finalize();
        if (rank == 0) printf("OK fileshort\n");
        return 0;
    }
    plain();
    pieces();
    behind();
    views();
    errors();
    shared();
    /* The record sends one call in about 64 to Go; none where none may take the C way. */
    if (!none) CHECK(in_c >= want_c * 3 / 4, "%ld of %ld calls took the C way", in_c, want_c);
    MPI_Finalize();
    if (rank == 0) printf("OK fileshort\n");
    return 0;
}
