/* fileordered.c - MPI_File_write_ordered's short way in C (abi/libmpi/fileshort.c), in
 * the directory argv[1]: 120 rounds of ordered writes, each rank's record of a length
 * that changes from round to round (none, a few bytes, 4 KiB, and twice 70 KiB, more
 * than the board's record area, which sends that round the general way; in one round
 * 60 KiB each, which on six ranks is more than one write call takes), in MPI_BYTE
 * or, some rounds, MPI_INT; in some rounds one rank passes a derived datatype (its
 * call goes to Go while the others' are in C), in some every rank uses the split
 * collective (MPI_File_write_ordered_begin/_end: Go's); between some rounds one rank
 * writes through the shared pointer on its own; one round's last rank passes a
 * negative count, which must fail every rank's call and move nothing; and every
 * rank's call fails with MPI_ERR_NO_SPACE where member 0's write does (/dev/full). Every status
 * counts its bytes, the shared pointer is where the records end, and rank 0 compares
 * the file byte for byte (a POSIX read) with the records in rank order. With more
 * than one rank some calls must have taken the C way (mpigo_short_files); with the
 * argument "multiple" (MPI_THREAD_MULTIPLE) none may. With the argument "memory" (the
 * directory is on tmpfs) the ranks then write records over the file's bytes from its
 * start: member 0 leaves every such call to Go, which copies the records into the
 * file's mapping, and the file is compared again. */
#include "iotest.h"
#include <stdint.h>

extern long mpigo_short_files(void);

enum { ROUNDS = 120, BIG = 70 << 10 };

static int len_of(int i, int r) {
    if (i % 9 == 4) return 0;
    if ((i == 7 && r == 0) || (i == 11 && r == 1)) return BIG;
    if (i == 14) return 60 << 10; /* six ranks' records pass a write call's bound (256 KiB on ext4) */
    if (i % 5 == 3) return 4096;
    return ((i * 37 + r * 13) % 211) & ~3; /* whole ints, for the MPI_INT rounds */
}

static void fill(unsigned char *b, int i, int r, int n) {
    for (int j = 0; j < n; j++) b[j] = (unsigned char)(i * 7 + r * 31 + j);
}

/* check_file syncs fh and has rank 0 compare the file name (read into got, cap
 * bytes) with want_total bytes of want; every rank calls it. */
static void check_file(MPI_File fh, const char *name, const unsigned char *want, unsigned char *got, long cap, long want_total) {
    OK(MPI_File_sync(fh));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        long n = posix_read(name, got, cap);
        CHECK(n == want_total, "the file has %ld bytes, want %ld", n, want_total);
        for (long j = 0; j < n; j++) CHECK(got[j] == want[j], "byte %ld is %d, want %d", j, got[j], want[j]);
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* over_memory writes a record of every rank per round over the file of want_total
 * bytes (want) from its start, which set_view moves the shared pointer to: none of
 * member 0's calls takes the C way, the file is want with the records over it (got:
 * cap bytes to read it into). */
static void over_memory(MPI_File fh, const char *name, unsigned char *want, unsigned char *got, long cap, long want_total,
                        unsigned char *rec) {
    OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    long c0 = mpigo_short_files(), at = 0;
    for (int i = 0; i < ROUNDS; i++) {
        int n = 4 + len_of(i, rank) % 4093;
        fill(rec, i + 77, rank, n);
        OK(MPI_File_write_ordered(fh, rec, n, MPI_BYTE, MPI_STATUS_IGNORE));
        for (int r = 0; r < np; r++) {
            int k = 4 + len_of(i, r) % 4093;
            fill(want + at, i + 77, r, k);
            at += k;
        }
    }
    CHECK(at <= want_total, "the records pass the file's end (%ld of %ld bytes)", at, want_total);
    long in_c = mpigo_short_files() - c0;
    CHECK(rank != 0 || in_c == 0, "member 0 made %ld calls in C over a file in memory", in_c);
    check_file(fh, name, want, got, cap, want_total);
}

int main(int argc, char **argv) {
    int multiple = argc > 2 && strcmp(argv[2], "multiple") == 0;
    int memory = argc > 2 && strcmp(argv[2], "memory") == 0;
    if (multiple) {
        int got;
        OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &got));
        CHECK(got == MPI_THREAD_MULTIPLE, "thread level %d", got);
    } else {
        OK(MPI_Init(&argc, &argv));
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK(argc >= 2, "usage: fileordered dir [multiple]");
    char name[512];
    snprintf(name, sizeof name, "%s/ordered", argv[1]);
    MPI_File fh;
    OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    MPI_Datatype four;
    OK(MPI_Type_contiguous(4, MPI_BYTE, &four));
    OK(MPI_Type_commit(&four));
    long want_total = 0, c0 = mpigo_short_files();
    long cap = 0;
    for (int i = 0; i < ROUNDS; i++)
        for (int r = 0; r < np; r++) cap += len_of(i, r);
    cap += 3 * ROUNDS + 16;
    unsigned char *want = malloc(cap), *got = malloc(cap), *rec = malloc(BIG);
    CHECK(want && got && rec, "malloc");
    MPI_Offset pos = 0;
    for (int i = 0; i < ROUNDS; i++) {
        int w = i % (np + 1);
        if (w < np && i % 3 == 0) { /* one rank alone through the shared pointer */
            if (rank == w) {
                MPI_Offset at;
                OK(MPI_File_get_position_shared(fh, &at));
                CHECK(at == pos, "round %d: the shared pointer at %lld, want %lld", i, (long long)at, (long long)pos);
                unsigned char s[3] = {'s', (unsigned char)i, 's'};
                OK(MPI_File_write_shared(fh, s, 3, MPI_BYTE, MPI_STATUS_IGNORE));
            }
            want[want_total++] = 's', want[want_total++] = (unsigned char)i, want[want_total++] = 's';
            pos += 3;
        }
        int n = len_of(i, rank);
        fill(rec, i, rank, n);
        MPI_Status st;
        if (i == 50) { /* the last rank's count is bad: every call fails, nothing moves */
            int rc = MPI_File_write_ordered(fh, rec, rank == np - 1 ? -1 : n, MPI_BYTE, &st);
            CHECK(rc != MPI_SUCCESS, "round %d: an ordered write with rank %d's count -1 succeeded", i, np - 1);
            continue;
        }
        if (i % 8 == 6) {
            OK(MPI_File_write_ordered_begin(fh, rec, n, MPI_BYTE));
            OK(MPI_File_write_ordered_end(fh, rec, &st));
        } else if (i % 7 == 3 && rank == np / 2) {
            OK(MPI_File_write_ordered(fh, rec, n / 4, four, &st));
        } else if (i % 4 == 1) {
            OK(MPI_File_write_ordered(fh, rec, n / 4, MPI_INT, &st));
        } else {
            OK(MPI_File_write_ordered(fh, rec, n, MPI_BYTE, &st));
        }
        int count;
        OK(MPI_Get_count(&st, MPI_BYTE, &count));
        CHECK(count == n, "round %d: the status counts %d bytes, want %d", i, count, n);
        for (int r = 0; r < np; r++) {
            fill(want + want_total, i, r, len_of(i, r));
            want_total += len_of(i, r);
            pos += len_of(i, r);
        }
    }
    OK(MPI_Barrier(MPI_COMM_WORLD)); /* the last write_shared is in */
    MPI_Offset at;
    OK(MPI_File_get_position_shared(fh, &at));
    CHECK(at == pos, "the shared pointer at %lld after the rounds, want %lld", (long long)at, (long long)pos);
    /* Every rank's calls that took the C way. A member whose peers do not come within
     * the spin and yields hands its call to Go, which ranks that outnumber the cores
     * do often: there some calls must take C, on fewer ranks a quarter of them. */
    long mine = mpigo_short_files() - c0, in_c = 0;
    OK(MPI_Allreduce(&mine, &in_c, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    if (multiple || np == 1)
        CHECK(in_c == 0, "%ld calls took the C way", in_c);
    else if (np > sysconf(_SC_NPROCESSORS_ONLN))
        CHECK(in_c > 0, "no call took the C way");
    else
        CHECK(in_c > ROUNDS / 4, "only %ld calls of every rank took the C way", in_c);
    check_file(fh, name, want, got, cap, want_total);
    if (memory) over_memory(fh, name, want, got, cap, want_total, rec);
    OK(MPI_File_close(&fh));
    /* Member 0's write fails (/dev/full): every rank's call fails with its class, the
     * first (which makes the board) in Go, the later ones with the others in C. */
    if (access("/dev/full", W_OK) == 0) {
        MPI_File full;
        OK(MPI_File_open(MPI_COMM_WORLD, "/dev/full", MPI_MODE_WRONLY, MPI_INFO_NULL, &full));
        for (int k = 0; k < 3; k++) {
            int cls = MPI_SUCCESS, rc = MPI_File_write_ordered(full, rec, 8, MPI_BYTE, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_NO_SPACE, "write_ordered %d to /dev/full: class %d, want MPI_ERR_NO_SPACE", k, cls);
        }
        OK(MPI_File_close(&full));
    }
    OK(MPI_Type_free(&four));
    free(want), free(got), free(rec);
    if (rank == 0) printf("OK fileordered\n");
    MPI_Finalize();
    return 0;
}
