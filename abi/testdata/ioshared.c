/* ioshared.c - MPI-IO's shared file pointer through the C ABI, on any number of ranks,
 * in the directory argv[1]: every rank's records written through it (read_shared,
 * write_shared, iread_shared, iwrite_shared, with the _c forms) are each in the file
 * once, whole, and read back once each; seek_shared and get_position_shared in etypes
 * of the view; ordered reads and writes, blocking and split, with the _c forms, in
 * rank order, checked against plain POSIX reads of the file. It leaves no file
 * behind. */
#include "iotest.h"

enum { RECS = 24, REC = 4 }; /* records per rank, ints per record */

/* one_shared does access k of this rank through the shared pointer, in one of the
 * four forms (blocking, _c, nonblocking, nonblocking _c), and returns the ints moved. */
static int one_shared(MPI_File fh, int k, int write, int *rec) {
    MPI_Status st;
    MPI_Request rq;
    int count = -1;
    switch (k % 4) {
    case 0:
        OK(write ? MPI_File_write_shared(fh, rec, REC, MPI_INT, &st) : MPI_File_read_shared(fh, rec, REC, MPI_INT, &st));
        break;
    case 1:
        OK(write ? MPI_File_write_shared_c(fh, rec, REC, MPI_INT, &st) : MPI_File_read_shared_c(fh, rec, REC, MPI_INT, &st));
        break;
    case 2:
        OK(write ? MPI_File_iwrite_shared(fh, rec, REC, MPI_INT, &rq) : MPI_File_iread_shared(fh, rec, REC, MPI_INT, &rq));
        OK(MPI_Wait(&rq, &st));
        break;
    default:
        OK(write ? MPI_File_iwrite_shared_c(fh, rec, REC, MPI_INT, &rq) : MPI_File_iread_shared_c(fh, rec, REC, MPI_INT, &rq));
        OK(MPI_Wait(&rq, &st));
    }
    OK(MPI_Get_count(&st, MPI_INT, &count));
    return count;
}

static void shared(void) {
    char name[512];
    MPI_File fh;
    MPI_Offset pos;
    path(name, "shared");
    OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    for (int k = 0; k < RECS; k++) {
        int id = rank * RECS + k, rec[REC] = {id, id, id, id};
        int n = one_shared(fh, k, 1, rec);
        CHECK(n == REC, "write %d moved %d ints", k, n);
    }
    OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_File_get_position_shared(fh, &pos));
    long total = (long)np * RECS * REC;
    CHECK(pos == total, "the shared pointer is at %lld, want %ld", (long long)pos, total);
    if (rank == 0) {
        static int raw[64 * RECS * REC];
        static char seen[64 * RECS];
        CHECK(np <= 64, "too many ranks");
        long n = posix_read(name, (unsigned char *)raw, sizeof raw);
        CHECK(n == total * 4, "the file has %ld bytes, want %ld", n, total * 4);
        memset(seen, 0, sizeof seen);
        for (long r = 0; r < n / 16; r++) {
            int id = raw[r * REC];
            CHECK(id >= 0 && id < np * RECS && !seen[id], "record %ld: id %d out of range or twice", r, id);
            CHECK(raw[r * REC + 1] == id && raw[r * REC + 3] == id, "record %ld is torn", r);
            seen[id] = 1;
        }
    }
    /* Read them all back through the pointer: each exactly once. */
    OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    long got[2] = {0, 0}, all[2];
    for (int k = 0;; k++) {
        int rec[REC];
        int n = one_shared(fh, k, 0, rec);
        if (n == 0) break;
        CHECK(n == REC && rec[0] == rec[3], "read %d ints, a record %d..%d", n, rec[0], rec[3]);
        got[0]++;
        got[1] += rec[0];
    }
    OK(MPI_Allreduce(got, all, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    long recs = (long)np * RECS;
    CHECK(all[0] == recs && all[1] == recs * (recs - 1) / 2, "the ranks read %ld records summing to %ld", all[0], all[1]);
    /* Seeks: from the end, from the pointer; bad ones fail everywhere. */
    OK(MPI_File_seek_shared(fh, -REC, MPI_SEEK_END));
    OK(MPI_File_seek_shared(fh, -REC, MPI_SEEK_CUR));
    OK(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == total - 2 * REC, "after seeks the shared pointer is at %lld", (long long)pos);
    if (np > 1) FAILS(MPI_File_seek_shared(fh, rank, MPI_SEEK_SET), MPI_ERR_NOT_SAME);
    FAILS(MPI_File_seek_shared(fh, -1, MPI_SEEK_SET), MPI_ERR_ARG);
    FAILS(MPI_File_get_position_shared(fh, NULL), MPI_ERR_ARG);
    OK(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == total - 2 * REC, "failed seeks moved the shared pointer to %lld", (long long)pos);
    OK(MPI_File_close(&fh));
    FAILS(MPI_File_get_position_shared(fh, &pos), MPI_ERR_FILE);
}

/* ordered writes rank+1 ints of value base+rank per rank, four times (blocking,
 * _c, split, split _c), checks the file, and reads them back the same ways. */
static void ordered(void) {
    char name[512];
    MPI_File fh;
    MPI_Status st;
    MPI_Offset pos;
    int count;
    path(name, "ordered");
    OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    int mine[4][64];
    for (int r = 0; r < 4; r++)
        for (int i = 0; i <= rank; i++) mine[r][i] = 100 * r + rank;
    OK(MPI_File_write_ordered(fh, mine[0], rank + 1, MPI_INT, &st));
    OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == rank + 1, "write_ordered wrote %d ints", count);
    OK(MPI_File_write_ordered_c(fh, mine[1], rank + 1, MPI_INT, &st));
    OK(MPI_File_write_ordered_begin(fh, mine[2], rank + 1, MPI_INT));
    OK(MPI_File_write_ordered_end(fh, mine[2], &st));
    OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == rank + 1, "write_ordered_end says %d ints", count);
    OK(MPI_File_write_ordered_begin_c(fh, mine[3], rank + 1, MPI_INT));
    FAILS(MPI_File_read_ordered_end(fh, NULL, &st), MPI_ERR_IO); /* not the begin's kind */
    OK(MPI_File_write_ordered_end(fh, mine[3], MPI_STATUS_IGNORE));
    long round = (long)np * (np + 1) / 2;
    OK(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == 4 * round, "the shared pointer is at %lld, want %ld", (long long)pos, 4 * round);
    OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        static int raw[4 * 64 * 65 / 2];
        long n = posix_read(name, (unsigned char *)raw, sizeof raw), j = 0;
        CHECK(n == 4 * round * 4, "the file has %ld bytes", n);
        for (int r = 0; r < 4; r++)
            for (int q = 0; q < np; q++)
                for (int i = 0; i <= q; i++, j++)
                    CHECK(raw[j] == 100 * r + q, "int %ld is %d, want %d (round %d, rank %d)", j, raw[j], 100 * r + q, r, q);
    }
    OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    int back[4][64];
    memset(back, 0xff, sizeof back);
    OK(MPI_File_read_ordered(fh, back[0], rank + 1, MPI_INT, &st));
    OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == rank + 1, "read_ordered read %d ints", count);
    OK(MPI_File_read_ordered_c(fh, back[1], rank + 1, MPI_INT, MPI_STATUS_IGNORE));
    OK(MPI_File_read_ordered_begin(fh, back[2], rank + 1, MPI_INT));
    OK(MPI_File_read_ordered_end(fh, back[2], MPI_STATUS_IGNORE));
    OK(MPI_File_read_ordered_begin_c(fh, back[3], rank + 1, MPI_INT));
    OK(MPI_File_read_ordered_end(fh, back[3], &st));
    for (int r = 0; r < 4; r++)
        for (int i = 0; i <= rank; i++)
            CHECK(back[r][i] == mine[r][i], "round %d int %d read back %d, want %d", r, i, back[r][i], mine[r][i]);
    /* One rank's bad count fails every rank's call. */
    FAILS(MPI_File_write_ordered(fh, mine[0], rank == np - 1 ? -1 : 1, MPI_INT, &st), MPI_ERR_COUNT);
    OK(MPI_File_close(&fh));
}

int main(int argc, char **argv) {
    io_start(&argc, &argv, "ioshared");
    CHECK(np <= 63, "at most 63 ranks");
    shared();
    ordered();
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_Finalize());
    if (rank == 0) printf("OK ioshared\n");
    return 0;
}
