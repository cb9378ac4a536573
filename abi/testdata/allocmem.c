/* allocmem.c - messages between MPI_Alloc_mem buffers, which the ranks of a node map
 * (shm_alloc_mem): exchanges and one-way sends of 16 KiB to 1 MiB at odd offsets,
 * freed and allocated again between rounds (a peer must not copy from a mapping of
 * memory its owner has freed), beside malloc'd buffers and past the 126 allocations
 * the memory table lists; puts and gets of windows made over such memory. The
 * performance variable shm_mapped_bytes must show that the mappings carried data, and
 * that memory allocated with the hint mpigo_node_mapped = false carried none. Run on 2
 * or more ranks of one node. */
#include "check.h"
#include <string.h>
#include <stdint.h>

#define MAXN ((1 << 20) + 12345)

static unsigned char val(int who, int round, size_t i) { return (unsigned char)(who * 31 + round * 7 + i * 13 + (i >> 12)); }

static void fill(unsigned char *b, size_t n, int who, int round) {
    for (size_t i = 0; i < n; i++) b[i] = val(who, round, i);
}

static void expect(const unsigned char *b, size_t n, int who, int round, const char *what) {
    for (size_t i = 0; i < n; i++)
        CHECK(b[i] == val(who, round, i), "%s round %d: byte %zu of %zu from rank %d is %d, want %d", what, round, i, n,
              who, b[i], val(who, round, i));
}

/* exchange sends n bytes at sb to the right neighbour and receives n at rb from the
 * left, then sends one way round the ring (even ranks first) and checks both. */
static void exchange(unsigned char *sb, unsigned char *rb, size_t n, int round, int rank, int size) {
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    fill(sb, n, rank, round);
    memset(rb, 0, n);
    OK(MPI_Sendrecv(sb, (int)n, MPI_BYTE, right, round, rb, (int)n, MPI_BYTE, left, round, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
    expect(rb, n, left, round, "Sendrecv");
    memset(rb, 0, n);
    if (rank % 2 == 0) {
        OK(MPI_Send(sb, (int)n, MPI_BYTE, right, round, MPI_COMM_WORLD));
        if (left != rank) OK(MPI_Recv(rb, (int)n, MPI_BYTE, left, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else {
        OK(MPI_Recv(rb, (int)n, MPI_BYTE, left, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        OK(MPI_Send(sb, (int)n, MPI_BYTE, right, round, MPI_COMM_WORLD));
    }
    if (left != rank) expect(rb, n, left, round, "Send/Recv");
}

/* The performance variable shm_mapped_bytes, counted from open_mapped_bytes on. */
static MPI_T_pvar_session pv_session;
static MPI_T_pvar_handle pv_handle;

static void open_mapped_bytes(void) {
    int provided, n, idx = -1;
    OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    OK(MPI_T_pvar_get_num(&n));
    for (int i = 0; i < n && idx < 0; i++) {
        char name[128];
        int nl = sizeof name, verb, cls, bind, ro, cont, at, dl = 0;
        MPI_Datatype dt;
        MPI_T_enum e;
        OK(MPI_T_pvar_get_info(i, name, &nl, &verb, &cls, &dt, &e, NULL, &dl, &bind, &ro, &cont, &at));
        if (strcmp(name, "shm_mapped_bytes") == 0) idx = i;
    }
    CHECK(idx >= 0, "no performance variable shm_mapped_bytes among %d", n);
    OK(MPI_T_pvar_session_create(&pv_session));
    OK(MPI_T_pvar_handle_alloc(pv_session, idx, NULL, &pv_handle, &n));
}

static unsigned long long read_mapped_bytes(void) {
    unsigned long long v = 0;
    OK(MPI_T_pvar_read(pv_session, pv_handle, &v));
    return v;
}

static unsigned long long close_mapped_bytes(void) {
    unsigned long long v = read_mapped_bytes();
    OK(MPI_T_pvar_handle_free(pv_session, &pv_handle));
    OK(MPI_T_pvar_session_free(&pv_session));
    OK(MPI_T_finalize());
    return v;
}

/* window puts and gets n bytes of a window made (MPI_Win_create) over MPI_Alloc_mem
 * memory, to and from the right neighbour, under lock_all. Every rank's memory is
 * mapped by the others, so the window is shared memory as MPI_Win_allocate's is:
 * MPI_Win_shared_query gives each rank a pointer to its neighbour's part. */
static void window(size_t n, int round, int rank, int size) {
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    unsigned char *base, *mine, *got;
    MPI_Win win;
    OK(MPI_Alloc_mem(2 * n, MPI_INFO_NULL, &base));
    OK(MPI_Alloc_mem(n, MPI_INFO_NULL, &mine));
    OK(MPI_Alloc_mem(n, MPI_INFO_NULL, &got));
    fill(base + n, n, rank, round);
    memset(base, 0, n);
    fill(mine, n, rank, round + 1);
    OK(MPI_Win_create(base, 2 * n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    OK(MPI_Win_lock_all(0, win));
    OK(MPI_Put(mine, (int)n, MPI_BYTE, right, 0, (int)n, MPI_BYTE, win));
    OK(MPI_Get(got, (int)n, MPI_BYTE, right, n, (int)n, MPI_BYTE, win));
    OK(MPI_Win_unlock_all(win));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    expect(got, n, right, round, "MPI_Get");
    OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    expect(base, n, left, round + 1, "MPI_Put");
    OK(MPI_Win_unlock(rank, win));
    MPI_Aint qsz;
    int qdu;
    unsigned char *qp;
    OK(MPI_Win_shared_query(win, right, &qsz, &qdu, &qp));
    CHECK(qp != NULL && qsz == (MPI_Aint)(2 * n) && qdu == 1, "shared query of the right neighbour's part: %p, %ld bytes",
          (void *)qp, (long)qsz);
    if (qp != NULL) expect(qp, n, rank, round + 1, "the right neighbour's part through its pointer");
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_free(&win));
    OK(MPI_Free_mem(got));
    OK(MPI_Free_mem(mine));
    OK(MPI_Free_mem(base));
}

int main(int argc, char **argv) {
    int rank, size, round = 0;
    static const size_t sizes[] = {16384, 65536 + 3, 300001, MAXN - 7};
    static const size_t offs[] = {0, 1, 4093, 7};
    unsigned char *sb, *rb, *heap, *many[200];
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    open_mapped_bytes();

    /* Asked not to be mapped: ordinary memory, which no peer maps. */
    {
        MPI_Info no;
        OK(MPI_Info_create(&no));
        OK(MPI_Info_set(no, "mpigo_node_mapped", "false"));
        OK(MPI_Alloc_mem(MAXN, no, &sb));
        OK(MPI_Alloc_mem(MAXN, no, &rb));
        OK(MPI_Info_free(&no));
        unsigned long long before = read_mapped_bytes();
        exchange(sb, rb, MAXN, ++round, rank, size);
        OK(MPI_Barrier(MPI_COMM_WORLD));
        CHECK(read_mapped_bytes() == before, "memory allocated with mpigo_node_mapped = false went through a mapping");
        OK(MPI_Free_mem(sb));
        OK(MPI_Free_mem(rb));
    }

    /* Three lives of the same buffers: each freed and allocated again. */
    for (int life = 0; life < 3; life++) {
        OK(MPI_Alloc_mem(MAXN, MPI_INFO_NULL, &sb));
        OK(MPI_Alloc_mem(MAXN, MPI_INFO_NULL, &rb));
        for (int k = 0; k < 4; k++) {
            size_t n = sizes[k], off = offs[k];
            if (n + off > MAXN) n = MAXN - off;
            exchange(sb + off, rb + off, n, ++round, rank, size);
        }
        OK(MPI_Free_mem(sb));
        OK(MPI_Free_mem(rb));
    }

    /* One side MPI_Alloc_mem, the other malloc. */
    OK(MPI_Alloc_mem(MAXN, MPI_INFO_NULL, &sb));
    heap = malloc(MAXN);
    CHECK(heap != NULL, "malloc(%d) failed", MAXN);
    exchange(sb, heap, 500000, ++round, rank, size);
    exchange(heap, sb, 500000, ++round, rank, size);

    /* More allocations than the memory table lists: the last ones are ordinary
     * memory, and still carry messages. */
    for (int i = 0; i < 200; i++) OK(MPI_Alloc_mem(65536, MPI_INFO_NULL, &many[i]));
    exchange(many[199], many[0], 65536, ++round, rank, size);
    exchange(many[5], many[150], 65536, ++round, rank, size);
    for (int i = 0; i < 200; i++) OK(MPI_Free_mem(many[i]));
    free(heap);
    OK(MPI_Free_mem(sb));

    /* One-sided: below, between and above the single-copy limits. */
    window(8, ++round, rank, size);
    window(1000, ++round, rank, size);
    window(16384, ++round, rank, size);
    window(200000, ++round, rank, size);
    window(600000, ++round, rank, size);

    unsigned long long moved = close_mapped_bytes();
    CHECK(moved > 0, "shm_mapped_bytes did not grow: no message went through a mapping");
    OK(MPI_Finalize());
    if (rank == 0) printf("OK allocmem\n");
    return 0;
}
