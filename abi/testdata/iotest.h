/* iotest.h - what the I/O test programs (io.c, ioshared.c, datarep.c) share: the rank
 * and size, the directory their files go to (argv[1]), a file's path there, and the
 * file's bytes read back with plain POSIX calls, as the reference the MPI-IO calls are
 * checked against. */
#include "check.h"
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static int rank, np;
static char dir[400];

static inline void path(char *buf, const char *name) { snprintf(buf, 512, "%s/%s", dir, name); }

/* posix_read reads the whole file name into buf (up to max) and returns its size. */
static inline long posix_read(const char *name, unsigned char *buf, long max) {
    int fd = open(name, O_RDONLY);
    CHECK(fd >= 0, "open %s", name);
    long n = 0, k;
    while ((k = read(fd, buf + n, max - n)) > 0) n += k;
    close(fd);
    return n;
}

/* io_start is MPI_Init with the rank, the size and the directory of argv[1]. */
static inline void io_start(int *argc, char ***argv, const char *prog) {
    OK(MPI_Init(argc, argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK(*argc == 2, "usage: %s dir", prog);
    snprintf(dir, sizeof dir, "%s", (*argv)[1]);
}
