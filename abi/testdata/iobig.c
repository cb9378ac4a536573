/* iobig.c - a file larger than 2 GiB through the C ABI, on one rank, in the directory
 * argv[1]: MPI_File_write_at_c and MPI_File_read_at_c of more than 2^31 bytes in one
 * call (MPI_Get_count_c says how many), at an offset past 2^31, checked with plain
 * POSIX reads at both ends and by reading back; blocks written past 2^32 through a
 * view of int64 etypes, whose positions pass 2^31 etypes. It leaves no file behind. */
#include "check.h"
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* word is the reference data: 8-byte word w of the buffer (the file's bytes from the
 * offset of the write) is word(w), cheap to make and to check 2^28 times. */
static uint64_t word(uint64_t w) { return w * 0x9E3779B97F4A7C15ULL + 1; }

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    CHECK(argc == 2, "usage: iobig dir");
    char name[512];
    snprintf(name, sizeof name, "%s/big", argv[1]);
    const MPI_Count n = ((MPI_Count)1 << 31) + 4096; /* elements of one call: more than an int */
    const MPI_Offset off = ((MPI_Offset)1 << 31) + 12345;
    unsigned char *buf = malloc((size_t)n);
    CHECK(buf != NULL, "no memory for %lld bytes", (long long)n);
    uint64_t *w = (uint64_t *)buf;
    for (MPI_Count i = 0; i < n / 8; i++) w[i] = word(i);
    MPI_File fh;
    MPI_Status st;
    MPI_Count count;
    OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    OK(MPI_File_write_at_c(fh, off, buf, n, MPI_BYTE, &st));
    OK(MPI_Get_count_c(&st, MPI_BYTE, &count));
    CHECK(count == n, "wrote %lld bytes in one call, want %lld", (long long)count, (long long)n);
    int c32;
    OK(MPI_Get_count(&st, MPI_BYTE, &c32));
    CHECK(c32 == MPI_UNDEFINED, "MPI_Get_count of more than an int says %d, want MPI_UNDEFINED", c32);
    MPI_Offset size; /* no sync: flushing 2 GiB to the disk is no part of the test */
    OK(MPI_File_get_size(fh, &size));
    CHECK(size == off + n, "the file's size is %lld, want %lld", (long long)size, (long long)(off + n));
    /* Plain reads of both ends. */
    int fd = open(name, O_RDONLY);
    CHECK(fd >= 0, "open %s", name);
    uint64_t head[8], tail[8];
    CHECK(pread(fd, head, sizeof head, off) == sizeof head, "pread at %lld", (long long)off);
    CHECK(pread(fd, tail, sizeof tail, off + n - sizeof tail) == sizeof tail, "pread at the end");
    close(fd);
    for (int i = 0; i < 8; i++) {
        CHECK(head[i] == word(i), "word %d of the file's written bytes", i);
        CHECK(tail[i] == word(n / 8 - 8 + i), "word %lld of the file's written bytes", (long long)(n / 8 - 8 + i));
    }
    memset(buf, 0, (size_t)n);
    OK(MPI_File_read_at_c(fh, off, buf, n, MPI_BYTE, &st));
    OK(MPI_Get_count_c(&st, MPI_BYTE, &count));
    CHECK(count == n, "read %lld bytes in one call, want %lld", (long long)count, (long long)n);
    for (MPI_Count i = 0; i < n / 8; i++)
        if (w[i] != word(i)) CHECK(0, "word %lld read back is %llx", (long long)i, (unsigned long long)w[i]);
    free(buf);
    /* int64 etypes: position 2^31 + k etypes is byte 2^34 + 8k. */
    OK(MPI_File_set_view(fh, 0, MPI_INT64_T, MPI_INT64_T, "native", MPI_INFO_NULL));
    const MPI_Offset e = ((MPI_Offset)1 << 31) + 5;
    int64_t blk[1000], back[1000];
    for (int i = 0; i < 1000; i++) blk[i] = (e + i) * 3 - 1;
    OK(MPI_File_write_at_all(fh, e, blk, 1000, MPI_INT64_T, &st));
    MPI_Offset byte;
    OK(MPI_File_get_byte_offset(fh, e, &byte));
    CHECK(byte == e * 8, "get_byte_offset(%lld) = %lld", (long long)e, (long long)byte);
    OK(MPI_File_seek(fh, e + 10, MPI_SEEK_SET));
    OK(MPI_File_read(fh, back, 990, MPI_INT64_T, &st));
    CHECK(memcmp(back, blk + 10, 990 * sizeof(int64_t)) == 0, "read back other int64s past 2^34");
    MPI_Offset pos;
    OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == e + 1000, "the pointer is at %lld, want %lld", (long long)pos, (long long)(e + 1000));
    OK(MPI_File_get_size(fh, &size));
    CHECK(size == (e + 1000) * 8, "the file's size is %lld", (long long)size);
    OK(MPI_File_close(&fh));
    OK(MPI_Finalize());
    printf("OK iobig\n");
    return 0;
}
