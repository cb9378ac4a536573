/* rma.c - one-sided communication on 2 ranks: allocated, created, shared and dynamic
 * windows; Put, Get, Accumulate, Get_accumulate, Fetch_and_op, Compare_and_swap and
 * the request forms; fence, PSCW, lock/unlock, lock_all and flush; the window's
 * attributes, name, info, group and error handler. */
#include "check.h"
#include <string.h>

static int handled = 0;
static void win_errh(MPI_Win *w, int *code, ...) { (void)w, (void)code; handled++; }

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int peer = 1 - rank;

    /* allocate + fence: Put, Get, Accumulate */
    double *base;
    MPI_Win w;
    OK(MPI_Win_allocate(16 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w));
    for (int i = 0; i < 16; i++) base[i] = -1;
    OK(MPI_Win_fence(0, w));
    double v[4] = {rank, rank + 0.5, rank + 0.25, rank + 0.125};
    OK(MPI_Put(v, 4, MPI_DOUBLE, peer, 2, 4, MPI_DOUBLE, w));
    OK(MPI_Win_fence(0, w));
    CHECK(base[2] == peer && base[5] == peer + 0.125 && base[1] == -1 && base[6] == -1, "Put under fence: %g %g", base[2], base[5]);
    double one = 1;
    OK(MPI_Accumulate(&one, 1, MPI_DOUBLE, peer, 0, 1, MPI_DOUBLE, MPI_SUM, w));
    OK(MPI_Accumulate(&one, 1, MPI_DOUBLE, rank, 0, 1, MPI_DOUBLE, MPI_SUM, w));
    OK(MPI_Win_fence(0, w));
    CHECK(base[0] == 1, "Accumulate from both: %g", base[0]);
    /* a strided origin: every other double of the peer's [2,6) into g */
    double g[3] = {0};
    MPI_Datatype every2;
    OK(MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &every2));
    OK(MPI_Type_commit(&every2));
    OK(MPI_Get(g, 2, MPI_DOUBLE, peer, 2, 1, every2, w));
    OK(MPI_Win_fence(0, w));
    CHECK(g[0] == rank && g[1] == rank + 0.25, "Get with a vector target: %g %g", g[0], g[1]);
    OK(MPI_Type_free(&every2));
    /* attributes */
    void *ab;
    MPI_Aint *sz;
    int *du, *fl, flag;
    OK(MPI_Win_get_attr(w, MPI_WIN_BASE, &ab, &flag));
    CHECK(flag && ab == base, "MPI_WIN_BASE");
    OK(MPI_Win_get_attr(w, MPI_WIN_SIZE, &sz, &flag));
    CHECK(flag && *sz == 16 * sizeof(double), "MPI_WIN_SIZE");
    OK(MPI_Win_get_attr(w, MPI_WIN_DISP_UNIT, &du, &flag));
    CHECK(flag && *du == sizeof(double), "MPI_WIN_DISP_UNIT");
    OK(MPI_Win_get_attr(w, MPI_WIN_CREATE_FLAVOR, &fl, &flag));
    CHECK(flag && *fl == MPI_WIN_FLAVOR_ALLOCATE, "MPI_WIN_CREATE_FLAVOR %d", *fl);
    OK(MPI_Win_set_name(w, "alloc"));
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    OK(MPI_Win_get_name(w, name, &len));
    CHECK(strcmp(name, "alloc") == 0, "Win name");
    MPI_Group wg;
    int gs;
    OK(MPI_Win_get_group(w, &wg));
    MPI_Group_size(wg, &gs);
    CHECK(gs == n, "Win_get_group");
    MPI_Info wi;
    OK(MPI_Win_get_info(w, &wi));
    char val[64];
    OK(MPI_Info_get(wi, "accumulate_ops", 63, val, &flag));
    CHECK(flag && strcmp(val, "same_op_no_op") == 0, "Win_get_info");
    OK(MPI_Info_free(&wi));

    /* PSCW: rank 0 puts into rank 1 */
    MPI_Group pg;
    OK(MPI_Group_incl(wg, 1, &peer, &pg));
    if (rank == 0) {
        double x = 42;
        OK(MPI_Win_start(pg, 0, w));
        OK(MPI_Put(&x, 1, MPI_DOUBLE, 1, 15, 1, MPI_DOUBLE, w));
        OK(MPI_Win_complete(w));
    } else {
        OK(MPI_Win_post(pg, 0, w));
        OK(MPI_Win_wait(w));
        CHECK(base[15] == 42, "PSCW put: %g", base[15]);
    }
    OK(MPI_Group_free(&pg));
    OK(MPI_Group_free(&wg));

    /* passive target: lock, Rput, Rget, Fetch_and_op, Compare_and_swap, Get_accumulate */
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        MPI_Request q[2];
        double a = 7, b = -1, old = -1, res[2];
        OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, w));
        OK(MPI_Rput(&a, 1, MPI_DOUBLE, 1, 8, 1, MPI_DOUBLE, w, &q[0]));
        OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
        OK(MPI_Win_flush(1, w));
        OK(MPI_Rget(&b, 1, MPI_DOUBLE, 1, 8, 1, MPI_DOUBLE, w, &q[1]));
        OK(MPI_Wait(&q[1], MPI_STATUS_IGNORE));
        CHECK(b == 7, "Rget after Rput: %g", b);
        OK(MPI_Fetch_and_op(&a, &old, MPI_DOUBLE, 1, 8, MPI_SUM, w));
        OK(MPI_Win_flush(1, w));
        CHECK(old == 7, "Fetch_and_op old %g", old);
        double two[2] = {1, 1};
        OK(MPI_Get_accumulate(two, 2, MPI_DOUBLE, res, 2, MPI_DOUBLE, 1, 8, 2, MPI_DOUBLE, MPI_SUM, w));
        OK(MPI_Win_unlock(1, w));
        CHECK(res[0] == 14, "Get_accumulate result %g", res[0]);
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) CHECK(base[8] == 15, "after the passive epoch: %g", base[8]);
    OK(MPI_Win_free(&w));
    CHECK(w == MPI_WIN_NULL, "Win_free");

    /* Win_create on the caller's memory; lock_all, Compare_and_swap */
    long mem[4] = {rank, 0, 0, 0};
    OK(MPI_Win_create(mem, sizeof mem, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    OK(MPI_Win_lock_all(0, w));
    long cmp = peer, swap = 100 + rank, got = -1;
    OK(MPI_Compare_and_swap(&swap, &cmp, &got, MPI_LONG, peer, 0, w));
    OK(MPI_Win_flush_all(w));
    CHECK(got == peer, "Compare_and_swap old %ld", got);
    /* a run of Fetch_and_op and Compare_and_swap, their results at the flush, in call order */
    enum { NFOP = 300, NCAS = 60 };
    long lone = 1, fres[NFOP], cres[NCAS], cv[NCAS], sv[NCAS];
    for (int i = 0; i < NFOP; i++) {
        fres[i] = -1;
        OK(MPI_Fetch_and_op(&lone, &fres[i], MPI_LONG, peer, 1, MPI_SUM, w));
    }
    for (int i = 0; i < NCAS; i++) {
        cv[i] = i, sv[i] = i + 1, cres[i] = -1;
        OK(MPI_Compare_and_swap(&sv[i], &cv[i], &cres[i], MPI_LONG, peer, 2, w));
    }
    OK(MPI_Win_flush(peer, w));
    for (int i = 0; i < NFOP; i++) CHECK(fres[i] == i, "Fetch_and_op %d of the run: %ld", i, fres[i]);
    for (int i = 0; i < NCAS; i++) CHECK(cres[i] == i, "Compare_and_swap %d of the run: %ld", i, cres[i]);
    OK(MPI_Win_unlock_all(w));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(mem[0] == 100 + peer, "Compare_and_swap swapped: %ld", mem[0]);
    CHECK(mem[1] == NFOP && mem[2] == NCAS, "after the runs: %ld %ld", mem[1], mem[2]);
    /* the window's error handler: a Put to a rank out of range */
    MPI_Errhandler eh;
    OK(MPI_Win_create_errhandler(win_errh, &eh));
    OK(MPI_Win_set_errhandler(w, eh));
    OK(MPI_Errhandler_free(&eh));
    OK(MPI_Win_fence(0, w));
    int rc = MPI_Put(&swap, 1, MPI_LONG, 9, 0, 1, MPI_LONG, w), cls;
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && handled == 1 && cls == MPI_ERR_RANK, "the window's handler ran: rc %d class %d handled %d", rc, cls, handled);
    OK(MPI_Win_fence(0, w));
    /* MPI_Win_shared_query answers on every window (MPI 4.1): here this rank's own memory */
    MPI_Aint qsz;
    int qdu;
    long *qp;
    OK(MPI_Win_shared_query(w, rank, &qsz, &qdu, &qp));
    CHECK(qsz == sizeof mem && qdu == sizeof(long) && qp == mem, "shared query of Win_create: %ld %d %p", (long)qsz, qdu, (void *)qp);
    OK(MPI_Win_free(&w));

    /* shared memory: each writes its part; the peer's pointer sees it */
    int *sh;
    OK(MPI_Win_allocate_shared(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &sh, &w));
    OK(MPI_Win_lock_all(0, w));
    for (int i = 0; i < 4; i++) sh[i] = rank * 10 + i;
    OK(MPI_Win_sync(w));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_sync(w));
    MPI_Aint psz;
    int pdu, *pp;
    OK(MPI_Win_shared_query(w, peer, &psz, &pdu, &pp));
    CHECK(psz == 4 * sizeof(int) && pdu == sizeof(int) && pp[3] == peer * 10 + 3, "shared query: %ld %d %d", (long)psz, pdu, pp[3]);
    OK(MPI_Win_unlock_all(w));
    OK(MPI_Win_free(&w));

    /* dynamic: attach in two halves side by side, publish the address, Get across the seam */
    int *dm = malloc(4 * sizeof(int));
    for (int i = 0; i < 4; i++) dm[i] = 1000 * rank + i;
    OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    OK(MPI_Win_attach(w, dm, 2 * sizeof(int)));
    OK(MPI_Win_attach(w, dm + 2, 2 * sizeof(int)));
    MPI_Aint mine, theirs;
    OK(MPI_Get_address(dm, &mine));
    OK(MPI_Sendrecv(&mine, 1, MPI_AINT, peer, 0, &theirs, 1, MPI_AINT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    int dg[2];
    OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, w));
    OK(MPI_Get(dg, 2, MPI_INT, peer, MPI_Aint_add(theirs, sizeof(int)), 2, MPI_INT, w));
    OK(MPI_Win_unlock(peer, w));
    CHECK(dg[0] == 1000 * peer + 1 && dg[1] == 1000 * peer + 2, "dynamic Get: %d %d", dg[0], dg[1]);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_detach(w, dm));
    OK(MPI_Win_detach(w, dm + 2));
    OK(MPI_Win_free(&w));
    free(dm);

    OK(MPI_Finalize());
    if (rank == 0) printf("OK rma\n");
    return 0;
}
