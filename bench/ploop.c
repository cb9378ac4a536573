/* ploop.c - the floor of io.c's write_small and write_ordered: NP processes, each with
 * its own descriptor of one file in DIR (ANCHOR_IODIR, default /dev/shm), started
 * together by a process-shared barrier before every repetition.
 *   small:   4096 pwrites of 64 bytes interleaved by rank, then fsync (as io.c times
 *            write_small with MPI_File_sync inside), us per record;
 *   ordered: nord pwrites of 4 KiB, call i of rank r at (i*np + r)*4096, us per call;
 *   contig:  one pwrite of 16 MiB at rank*16 MiB, then fsync (io.c's write_contig),
 *            MB/s of all processes.
 * With PREFILL=CHUNK in the environment the file is first written to 64 MiB in pwrites of
 * CHUNK bytes and synced, as io.c's earlier phases leave it (16 MiB calls: the file's pages
 * in the page cache are then large folios, over which a small write costs several times
 * what it costs on a fresh file of a local disk's file system: docs/BENCHMARKS.md).
 * usage: cc -O2 -o ploop bench/ploop.c -lpthread; ploop NP [scale]; prints, per key, the
 * median, least and greatest of 5 repetitions (each the slowest process's). docs/BENCHMARKS.md
 * (MPI-IO's write_small and write_ordered) compares mpigo with it. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
#define REPS 5
struct shared { pthread_barrier_t b; double t[3][64][REPS]; };
#define BLOCK (16L << 20)
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv) {
    int np = argc > 1 ? atoi(argv[1]) : 2;
    double scale = argc > 2 ? atof(argv[2]) : 1;
    int nord = (int)(200 * scale); if (nord < 1) nord = 1;
    const char *dir = getenv("ANCHOR_IODIR"); if (!dir) dir = "/dev/shm";
    char name[512]; snprintf(name, sizeof name, "%s/ploop-%d.dat", dir, (int)getpid());
    struct shared *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pthread_barrierattr_t ba; pthread_barrierattr_init(&ba); pthread_barrierattr_setpshared(&ba, PTHREAD_PROCESS_SHARED);
    pthread_barrier_init(&s->b, &ba, np);
    int fd0 = open(name, O_CREAT | O_RDWR | O_TRUNC, 0600);
    long chunk = getenv("PREFILL") ? atol(getenv("PREFILL")) : 0;
    if (chunk > 0) {
        char *fill = malloc(chunk);
        memset(fill, 1, chunk);
        for (long off = 0; off < (64L << 20); off += chunk)
            if (pwrite(fd0, fill, chunk, off) != chunk) return 1;
        fsync(fd0);
        free(fill);
    }
    close(fd0);
    for (int r = 0; r < np; r++) {
        if (fork() == 0) {
            int fd = open(name, O_RDWR);
            char buf[4096];
            for (int k = 0; k < REPS; k++) {
                pthread_barrier_wait(&s->b);
                double t0 = now();
                for (int i = 0; i < 4096; i++) {
                    memset(buf, (i + r + k) & 0xff, 64);
                    if (pwrite(fd, buf, 64, ((long)i * np + r) * 64) != 64) return 1;
                }
                fsync(fd);
                pthread_barrier_wait(&s->b);
                s->t[0][r][k] = (now() - t0) * 1e6 / 4096;
            }
            for (int k = 0; k < REPS; k++) {
                pthread_barrier_wait(&s->b);
                double t0 = now();
                for (int i = 0; i < nord; i++) {
                    memset(buf, r + 1, 4096);
                    if (pwrite(fd, buf, 4096, ((long)i * np + r) * 4096) != 4096) return 1;
                }
                pthread_barrier_wait(&s->b);
                s->t[1][r][k] = (now() - t0) * 1e6 / nord;
            }
            char *block = malloc(BLOCK);
            if (block == NULL) return 1;
            for (int k = 0; k < REPS; k++) {
                memset(block, r + k + 1, BLOCK);
                pthread_barrier_wait(&s->b);
                double t0 = now();
                for (long n = 0; n < BLOCK;) {
                    ssize_t w = pwrite(fd, block + n, BLOCK - n, r * BLOCK + n);
                    if (w <= 0) return 1;
                    n += w;
                }
                fsync(fd);
                pthread_barrier_wait(&s->b);
                s->t[2][r][k] = now() - t0;
            }
            return 0;
        }
    }
    while (wait(NULL) > 0) {}
    unlink(name);
    const char *key[3] = {"write_small", "write_ordered", "write_contig"};
    for (int j = 0; j < 3; j++) {
        double m[REPS];
        for (int k = 0; k < REPS; k++) { m[k] = 0; for (int r = 0; r < np; r++) if (s->t[j][r][k] > m[k]) m[k] = s->t[j][r][k]; }
        qsort(m, REPS, sizeof m[0], cmp);
        if (j == 2) {
            double mb = (double)np * BLOCK / 1e6;
            printf("RESULT ploop_n%d %s %.3f MB/s (min %.3f max %.3f)\n", np, key[j], mb / m[REPS / 2], mb / m[REPS - 1], mb / m[0]);
        } else {
            printf("RESULT ploop_n%d %s %.3f us (min %.3f max %.3f)\n", np, key[j], m[REPS / 2], m[0], m[REPS - 1]);
        }
    }
    return 0;
}
