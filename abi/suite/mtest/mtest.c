/* mtest.c - mpigo's implementation of the MTest interface (mpitest.h) that MPICH's test
 * programs call: init and finalize (" No Errors" from rank 0 when every rank's error
 * count is zero), error printing, and the loops over communicators, datatypes and
 * windows the tests run their checks in. Written for mpigo's harness of MPICH's test
 * suite (abi/suite/run-mpich.sh); no MPICH code. */
#include "mpitest.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int dbgflag, verbose, wrank = -1;

void MTest_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int flag;
    char *v;
    MPI_Initialized(&flag);
    if (!flag) {
        int err = MPI_Init_thread(argc, argv, required, provided);
        if (err != MPI_SUCCESS) {
            fprintf(stderr, "MPI_Init_thread failed (%d)\n", err);
            exit(1);
        }
    } else if (provided) {
        MPI_Query_thread(provided);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    if (getenv("MPITEST_DEBUG"))
        dbgflag = 1;
    if ((v = getenv("MPITEST_VERBOSE")) != NULL)
        verbose = atoi(v);
}

void MTest_Init(int *argc, char ***argv)
{
    int provided;
    MTest_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
}

static void rma_cleanup(void);

/* Newer MPICH tests leave MPI_Finalize to MTest_Finalize, older ones call it after:
 * finalize at exit if the test did not. */
static void finalize_at_exit(void)
{
    int done = 1;
    MPI_Finalized(&done);
    if (!done)
        MPI_Finalize();
}

/* MTestCommRandomize makes the ranks' context ids differ, as a real program's would:
 * each rank duplicates MPI_COMM_SELF a number of times of its own (rank mod 7), freed
 * at MTest_Finalize. */
enum { MAX_SELF_DUPS = 7 };
static MPI_Comm selfDups[MAX_SELF_DUPS];
static int nSelfDups;

void MTestCommRandomize(void)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    nSelfDups = rank % MAX_SELF_DUPS;
    for (int i = 0; i < nSelfDups; i++)
        MPI_Comm_dup(MPI_COMM_SELF, &selfDups[i]);
}

void MTest_Finalize(int errs)
{
    int rank, toterrs = 0, err;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    err = MPI_Reduce(&errs, &toterrs, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (err)
        MTestPrintError(err);
    if (rank == 0) {
        if (toterrs)
            printf(" Found %d errors\n", toterrs);
        else
            printf(" No Errors\n");
        fflush(stdout);
    }
    rma_cleanup();
    for (int i = 0; i < nSelfDups; i++)
        MPI_Comm_free(&selfDups[i]);
    nSelfDups = 0;
    atexit(finalize_at_exit);
}

int MTestReturnValue(int errs)
{
    return errs ? 1 : 0;
}

void MTestPrintError(int errcode)
{
    int class, len;
    char msg[MPI_MAX_ERROR_STRING];
    MPI_Error_class(errcode, &class);
    MPI_Error_string(errcode, msg, &len);
    printf("Error class %d (%s)\n", class, msg);
    fflush(stdout);
}

void MTestPrintErrorMsg(const char m[], int errcode)
{
    int class, len;
    char msg[MPI_MAX_ERROR_STRING];
    MPI_Error_class(errcode, &class);
    MPI_Error_string(errcode, msg, &len);
    printf("%s: Error class %d (%s)\n", m, class, msg);
    fflush(stdout);
}

void MTestPrintfMsg(int level, const char format[], ...)
{
    va_list ap;
    if (verbose < level)
        return;
    if (dbgflag)
        printf("[%d] ", wrank);
    va_start(ap, format);
    vprintf(format, ap);
    va_end(ap);
    fflush(stdout);
}

void MTestError(const char msg[])
{
    fprintf(stderr, "%s\n", msg);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

void MTestSleep(int sec)
{
    sleep(sec);
}

void MTestGetDbgInfo(int *d, int *v)
{
    *d = dbgflag;
    *v = verbose;
}

/* MTestSpawnPossible says whether a spawn may start processes: 1 when MPI_UNIVERSE_SIZE
 * exceeds MPI_COMM_WORLD's size, 0 when it does not, -1 (taken as yes) when the
 * attribute is not set. It returns the errors found: 1 when the attribute cannot be
 * read at all (MPI 4.1 sec. 11.10.1 makes the key predefined). */
int MTestSpawnPossible(int *can)
{
    int *universe, flag, size;
    if (MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &universe, &flag) != MPI_SUCCESS) {
        *can = -1;
        return 1;
    }
    if (!flag) {
        *can = -1;
        return 0;
    }
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    *can = *universe > size;
    return 0;
}

/* ---- Communicators ---------------------------------------------------------------- */

static int intra_idx, inter_idx;
static const char *intra_name = "", *inter_name = "";

/* MTestGetIntracommGeneral gives the next communicator of the sequence (MPI_COMM_NULL
 * on a process outside it) and returns 1, or returns 0 at the end of the sequence.
 * Communicators smaller than min_size are offered only when allow_smaller. */
int MTestGetIntracommGeneral(MPI_Comm *comm, int min_size, int allow_smaller)
{
    int size, rank, ok = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (allow_smaller && min_size > size)
        min_size = size;
    /* A communicator is offered when it is big enough at every process that has it
     * (decided together, so that every process skips the same ones). */
    while (!ok) {
        int n;
        *comm = MPI_COMM_NULL;
        switch (intra_idx++) {
        case 0:
            *comm = MPI_COMM_WORLD;
            intra_name = "MPI_COMM_WORLD";
            break;
        case 1:
            MPI_Comm_dup(MPI_COMM_WORLD, comm);
            intra_name = "Dup of MPI_COMM_WORLD";
            break;
        case 2:
            MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, comm);
            intra_name = "Rank reverse of MPI_COMM_WORLD";
            break;
        case 3:
            MPI_Comm_split(MPI_COMM_WORLD, rank < (size + 1) / 2 ? 1 : MPI_UNDEFINED,
                           size - rank, comm);
            intra_name = "Rank reverse of half of MPI_COMM_WORLD";
            break;
        case 4:
            MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, comm);
            intra_name = "Odd or even ranks of MPI_COMM_WORLD";
            break;
        case 5:{
                MPI_Group wg, g;
                int ranks[1] = { size - 1 };
                MPI_Comm_group(MPI_COMM_WORLD, &wg);
                MPI_Group_excl(wg, size > 2 ? 1 : 0, ranks, &g);
                MPI_Comm_create(MPI_COMM_WORLD, g, comm);
                MPI_Group_free(&g);
                MPI_Group_free(&wg);
                intra_name = "MPI_Comm_create of all but the last rank";
                break;
            }
        case 6:
            *comm = MPI_COMM_SELF;
            intra_name = "MPI_COMM_SELF";
            break;
        default:
            intra_idx = 0;
            intra_name = "";
            *comm = MPI_COMM_NULL;
            return 0;
        }
        ok = 1;
        if (*comm != MPI_COMM_NULL) {
            MPI_Comm_size(*comm, &n);
            ok = n >= min_size;
        }
        MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        if (!ok)
            MTestFreeComm(comm);
    }
    return 1;
}

int MTestGetIntracomm(MPI_Comm *comm, int min_size)
{
    return MTestGetIntracommGeneral(comm, min_size, 0);
}

const char *MTestGetIntracommName(void)
{
    return intra_name;
}

const char *MTestGetIntercommName(void)
{
    return inter_name;
}

/* MTestGetIntercomm gives the next intercommunicator of the sequence, with
 * *is_left_group saying which group the calling process is in, and returns 1; or
 * returns 0 at the end. It needs 2 processes at least; each group has at least
 * min_size processes where the world allows. */
int MTestGetIntercomm(MPI_Comm *comm, int *is_left_group, int min_size)
{
    int size, rank, done = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    while (!done) {
        MPI_Comm local = MPI_COMM_NULL;
        int color, remote;
        *comm = MPI_COMM_NULL;
        *is_left_group = 0;
        if (size < 2) {
            inter_idx = 0;
            return 0;
        }
        switch (inter_idx++) {
        case 0:                /* low half and high half */
            color = rank < size / 2;
            if (size / 2 < min_size)
                continue;
            MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
            remote = color ? size / 2 : 0;
            MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote, 12345, comm);
            *is_left_group = color;
            inter_name = "Intercomm of low and high halves";
            done = 1;
            break;
        case 1:                /* rank 0 against the rest */
            if (min_size > 1)
                continue;
            color = rank == 0;
            MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
            remote = color ? 1 : 0;
            MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote, 12346, comm);
            *is_left_group = color;
            inter_name = "Intercomm of rank 0 and the rest";
            done = 1;
            break;
        case 2:                /* even against odd ranks, then duplicated */
            if (size / 2 < min_size)
                continue;
            color = rank % 2 == 0;
            MPI_Comm_split(MPI_COMM_WORLD, color, size - rank, &local);
            {
                MPI_Comm ic;
                int lead = 0, r;
                /* the remote leader: the rank in world of the other group's rank 0,
                 * which has the highest key (size-rank) smallest: the largest rank */
                for (r = size - 1; r >= 0; r--)
                    if ((r % 2 == 0) != color) {
                        lead = r;
                        break;
                    }
                MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, lead, 12347, &ic);
                MPI_Comm_dup(ic, comm);
                MPI_Comm_free(&ic);
            }
            *is_left_group = color;
            inter_name = "Dup of the intercomm of even and odd ranks";
            done = 1;
            break;
        default:
            inter_idx = 0;
            inter_name = "";
            return 0;
        }
        if (local != MPI_COMM_NULL)
            MPI_Comm_free(&local);
    }
    return 1;
}

int MTestGetComm(MPI_Comm *comm, int min_size)
{
    static int in_inter = 0;
    int left;
    if (!in_inter) {
        if (MTestGetIntracomm(comm, min_size))
            return 1;
        in_inter = 1;
    }
    if (MTestGetIntercomm(comm, &left, min_size))
        return 1;
    in_inter = 0;
    return 0;
}

int MTestTestIntercomm(MPI_Comm comm)
{
    int flag = 0;
    if (comm == MPI_COMM_NULL)
        return 0;
    MPI_Comm_test_inter(comm, &flag);
    return flag ? 0 : 1;
}

int MTestTestIntracomm(MPI_Comm comm)
{
    int flag = 1;
    if (comm == MPI_COMM_NULL)
        return 0;
    MPI_Comm_test_inter(comm, &flag);
    return flag ? 1 : 0;
}

int MTestTestComm(MPI_Comm comm)
{
    int flag = 0;
    if (comm == MPI_COMM_NULL)
        return 0;
    MPI_Comm_test_inter(comm, &flag);
    return flag ? MTestTestIntercomm(comm) : MTestTestIntracomm(comm);
}

void MTestFreeComm(MPI_Comm *comm)
{
    if (*comm != MPI_COMM_WORLD && *comm != MPI_COMM_SELF && *comm != MPI_COMM_NULL)
        MPI_Comm_free(comm);
}

/* ---- Datatypes -------------------------------------------------------------------- */

/* The data of a send buffer: byte i of the type's data (in type-map order, over
 * count elements) is 0xff ^ (i & 0xff); a receive buffer starts as all 0xff. Contiguous
 * types use the whole extent; vector and indexed ones the blocks the fields describe. */

static int dt_idx;

static MPI_Aint extent_of(MTestDatatype * t)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t->datatype, &lb, &ext);
    return ext;
}

static void *alloc_buf(MTestDatatype * t, MPI_Aint n)
{
    if (!t->buf)
        t->buf = malloc(n > 0 ? n : 1);
    if (!t->buf)
        MTestError("Out of memory in type buffer init");
    return t->buf;
}

static void *contig_init(MTestDatatype * t)
{
    MPI_Aint i, n = extent_of(t) * t->count;
    unsigned char *p = alloc_buf(t, n);
    for (i = 0; i < n; i++)
        p[i] = 0xff ^ (i & 0xff);
    return t->buf;
}

static void *recv_init(MTestDatatype * t)
{
    MPI_Aint n = extent_of(t) * t->count;
    memset(alloc_buf(t, n), 0xff, n);
    return t->buf;
}

static void *free_buf(MTestDatatype * t)
{
    free(t->buf);
    t->buf = NULL;
    return NULL;
}

static int contig_check(MTestDatatype * t)
{
    MPI_Aint i, n = extent_of(t) * t->count;
    unsigned char *p = t->buf;
    int errs = 0;
    for (i = 0; i < n && p; i++) {
        unsigned char want = 0xff ^ (i & 0xff);
        if (p[i] != want) {
            errs++;
            if (t->printErrors && errs < 10)
                printf("Data expected = %x but got %x for %ldth entry\n", want, p[i], (long) i);
        }
    }
    return errs;
}

/* vector: count elements, each nblock blocks of blksize bytes, stride bytes apart */
static void *vector_init(MTestDatatype * t)
{
    MPI_Aint n = extent_of(t) * t->count, k, b, j, nc = 0;
    unsigned char *p = alloc_buf(t, n);
    memset(p, 0xff, n);
    for (k = 0; k < t->count; k++) {
        unsigned char *q = p + k * extent_of(t);
        for (b = 0; b < t->nblock; b++)
            for (j = 0; j < t->blksize; j++, nc++)
                q[b * t->stride + j] = 0xff ^ (nc & 0xff);
    }
    return t->buf;
}

static int vector_check(MTestDatatype * t)
{
    MPI_Aint k, b, j, nc = 0;
    unsigned char *p = t->buf;
    int errs = 0;
    for (k = 0; k < t->count && p; k++) {
        unsigned char *q = p + k * extent_of(t);
        for (b = 0; b < t->nblock; b++)
            for (j = 0; j < t->blksize; j++, nc++) {
                unsigned char want = 0xff ^ (nc & 0xff), got = q[b * t->stride + j];
                if (got != want) {
                    errs++;
                    if (t->printErrors && errs < 10)
                        printf("Data expected = %x but got %x for %ldth entry\n", want, got,
                               (long) nc);
                }
            }
    }
    return errs;
}

/* indexed: count elements, each nblock blocks of index[b] base elements (basesize
 * bytes each) at displs[b] base elements */
static void *indexed_init(MTestDatatype * t)
{
    MPI_Aint n = extent_of(t) * t->count, k, nc = 0;
    unsigned char *p = alloc_buf(t, n);
    int b, j;
    memset(p, 0xff, n);
    for (k = 0; k < t->count; k++) {
        unsigned char *q = p + k * extent_of(t);
        for (b = 0; b < t->nblock; b++)
            for (j = 0; j < t->index[b] * t->basesize; j++, nc++)
                q[t->displs[b] * t->basesize + j] = 0xff ^ (nc & 0xff);
    }
    return t->buf;
}

static int indexed_check(MTestDatatype * t)
{
    MPI_Aint k, nc = 0;
    unsigned char *p = t->buf;
    int b, j, errs = 0;
    for (k = 0; k < t->count && p; k++) {
        unsigned char *q = p + k * extent_of(t);
        for (b = 0; b < t->nblock; b++)
            for (j = 0; j < t->index[b] * t->basesize; j++, nc++) {
                unsigned char want = 0xff ^ (nc & 0xff), got =
                    q[t->displs[b] * t->basesize + j];
                if (got != want) {
                    errs++;
                    if (t->printErrors && errs < 10)
                        printf("Data expected = %x but got %x for %ldth entry\n", want, got,
                               (long) nc);
                }
            }
    }
    return errs;
}

static void *indexed_free(MTestDatatype * t)
{
    free(t->buf);
    free(t->displs);
    free(t->index);
    t->buf = NULL;
    t->displs = NULL;
    t->index = NULL;
    return NULL;
}

static void basic(MTestDatatype * t, MPI_Datatype d)
{
    t->datatype = d;
    t->isBasic = 1;
    t->InitBuf = contig_init;
    t->FreeBuf = free_buf;
    t->CheckBuf = contig_check;
}

static void as_recv(MTestDatatype * t)
{
    t->InitBuf = recv_init;
}

void MTestInitFullDatatypes(void)
{
}

void MTestInitMinDatatypes(void)
{
}

void MTestInitBasicDatatypes(void)
{
}

/* MTestGetDatatypes sets a send and a receive type of the same type signature (count
 * elements of each) and returns 1, or returns 0 at the end of the sequence. */
int MTestGetDatatypes(MTestDatatype * s, MTestDatatype * r, MPI_Aint count)
{
    memset(s, 0, sizeof *s);
    memset(r, 0, sizeof *r);
    s->count = r->count = count;
    switch (dt_idx++) {
    case 0:
        basic(s, MPI_INT);
        basic(r, MPI_INT);
        break;
    case 1:
        basic(s, MPI_DOUBLE);
        basic(r, MPI_DOUBLE);
        break;
    case 2:
        basic(s, MPI_FLOAT_INT);
        basic(r, MPI_FLOAT_INT);
        break;
    case 3:
        basic(s, MPI_CHAR);
        basic(r, MPI_CHAR);
        break;
    case 4:
        basic(s, MPI_INT);
        basic(r, MPI_INT);
        s->isBasic = r->isBasic = 0;
        MPI_Type_dup(MPI_INT, &s->datatype);
        MPI_Type_set_name(s->datatype, "dup of MPI_INT");
        MPI_Type_dup(MPI_INT, &r->datatype);
        MPI_Type_set_name(r->datatype, "dup of MPI_INT");
        break;
    case 5:                    /* vector of count ints, stride 3 ints, sent as one element; received contiguous */
        s->nblock = count;
        s->blksize = sizeof(int);
        s->stride = 3 * sizeof(int);
        MPI_Type_vector(count, 1, 3, MPI_INT, &s->datatype);
        MPI_Type_commit(&s->datatype);
        MPI_Type_set_name(s->datatype, "int-vector");
        s->count = 1;
        s->InitBuf = vector_init;
        s->FreeBuf = free_buf;
        s->CheckBuf = vector_check;
        basic(r, MPI_INT);
        break;
    case 6:                    /* contiguous send; received into a vector */
        basic(s, MPI_INT);
        r->nblock = count;
        r->blksize = sizeof(int);
        r->stride = 2 * sizeof(int);
        MPI_Type_vector(count, 1, 2, MPI_INT, &r->datatype);
        MPI_Type_commit(&r->datatype);
        MPI_Type_set_name(r->datatype, "int-vector");
        r->count = 1;
        r->InitBuf = vector_init;
        r->FreeBuf = free_buf;
        r->CheckBuf = vector_check;
        break;
    case 7:{                   /* indexed send of count ints in blocks of 1, 2, 1, ...; received contiguous */
            int i, n = 0, d = 0, total = 0;
            s->index = malloc((count + 1) * sizeof(int));
            s->displs = malloc((count + 1) * sizeof(int));
            while (total < count) {
                int len = (n % 2) ? 2 : 1;
                if (len > count - total)
                    len = count - total;
                s->index[n] = len;
                s->displs[n] = d;
                d += len + 1;
                total += len;
                n++;
            }
            s->nblock = n;
            s->basesize = sizeof(int);
            MPI_Type_indexed(n, s->index, s->displs, MPI_INT, &s->datatype);
            MPI_Type_commit(&s->datatype);
            MPI_Type_set_name(s->datatype, "int-indexed");
            s->count = 1;
            s->InitBuf = indexed_init;
            s->FreeBuf = indexed_free;
            s->CheckBuf = indexed_check;
            basic(r, MPI_INT);
            (void) i;
            break;
        }
    case 8:{                   /* struct of two ints with a gap between (one predefined type,
                                 * so that accumulate may use it), resized to 16 bytes */
            int bl[2] = { 1, 1 };
            MPI_Aint disp[2] = { 0, 2 * sizeof(int) };
            MPI_Datatype types[2] = { MPI_INT, MPI_INT }, tmp;
            MPI_Type_create_struct(2, bl, disp, types, &tmp);
            MPI_Type_create_resized(tmp, 0, 4 * sizeof(int), &s->datatype);
            MPI_Type_free(&tmp);
            MPI_Type_commit(&s->datatype);
            MPI_Type_set_name(s->datatype, "int-int struct with gaps");
            s->InitBuf = indexed_init;
            s->CheckBuf = indexed_check;
            s->FreeBuf = indexed_free;
            s->basesize = sizeof(int);
            s->nblock = 2;
            s->index = malloc(2 * sizeof(int));
            s->displs = malloc(2 * sizeof(int));
            s->index[0] = s->index[1] = 1;
            s->displs[0] = 0;
            s->displs[1] = 2;
            *r = *s;
            MPI_Type_dup(s->datatype, &r->datatype);
            r->index = malloc(2 * sizeof(int));
            r->displs = malloc(2 * sizeof(int));
            memcpy(r->index, s->index, 2 * sizeof(int));
            memcpy(r->displs, s->displs, 2 * sizeof(int));
            r->InitBuf = recv_init;
            break;
        }
    default:
        dt_idx = 0;
        return 0;
    }
    if (r->InitBuf == contig_init)
        as_recv(r);
    if (r->InitBuf == vector_init)
        r->InitBuf = recv_init;
    return 1;
}

void MTestResetDatatypes(void)
{
    dt_idx = 0;
}

int MTestGetDatatypeIndex(void)
{
    return dt_idx;
}

void MTestFreeDatatype(MTestDatatype * t)
{
    if (t->FreeBuf)
        t->FreeBuf(t);
    if (!t->isBasic && t->datatype != MPI_DATATYPE_NULL) {
        int combiner, ni, na, nd;
        MPI_Type_get_envelope(t->datatype, &ni, &na, &nd, &combiner);
        if (combiner != MPI_COMBINER_NAMED)
            MPI_Type_free(&t->datatype);
    }
}

const char *MTestGetDatatypeName(MTestDatatype * t)
{
    static char name[4][MPI_MAX_OBJECT_NAME];
    static int sp;
    int len;
    sp = (sp + 1) % 4;
    MPI_Type_get_name(t->datatype, name[sp], &len);
    return name[sp];
}

int MTestCheckRecv(MPI_Status * status, MTestDatatype * r)
{
    int count, errs = 0;
    if (status && status != MPI_STATUS_IGNORE) {
        MPI_Get_count(status, r->datatype, &count);
        if (count != r->count && count != MPI_UNDEFINED) {
            printf("Count received %d but expected %ld\n", count, (long) r->count);
            errs++;
        }
    }
    if (r->CheckBuf)
        errs += r->CheckBuf(r);
    return errs;
}

/* ---- Windows ---------------------------------------------------------------------- */

static int win_idx;
static const char *win_name = "";
static void *win_mem[4];
static int win_free_kind;

/* MTestGetWin gives the next window of the sequence over MPI_COMM_WORLD (1024 bytes
 * at each process, displacement unit 1) and returns 1, or returns 0 at the end. */
int MTestGetWin(MPI_Win * win, int must_be_passive)
{
    const int size = 1024;
    void *base;
    (void) must_be_passive;
    win_free_kind = 0;
    switch (win_idx++) {
    case 0:
        base = malloc(size);
        win_mem[0] = base;
        MPI_Win_create(base, size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, win);
        win_name = "Window over malloc'ed memory";
        win_free_kind = 1;
        break;
    case 1:
        MPI_Alloc_mem(size, MPI_INFO_NULL, &base);
        win_mem[1] = base;
        MPI_Win_create(base, size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, win);
        win_name = "Window over MPI_Alloc_mem memory";
        win_free_kind = 2;
        break;
    case 2:
        MPI_Win_allocate(size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, win);
        win_name = "Window of MPI_Win_allocate";
        break;
    default:
        win_idx = 0;
        win_name = "";
        *win = MPI_WIN_NULL;
        return 0;
    }
    return 1;
}

const char *MTestGetWinName(void)
{
    return win_name;
}

void MTestFreeWin(MPI_Win * win)
{
    MPI_Win_free(win);
    if (win_free_kind == 1) {
        free(win_mem[0]);
        win_mem[0] = NULL;
    } else if (win_free_kind == 2) {
        MPI_Free_mem(win_mem[1]);
        win_mem[1] = NULL;
    }
    win_free_kind = 0;
}

static void rma_cleanup(void)
{
}

/* --- MTestArgList: -key=value arguments, a list of pairs --- */

/* MTestArgList is void, as MPICH's mtest_common.h (which the dtpools tests include)
 * declares it; the list is of these. */
struct argEntry {
    char *key, *value;
    struct argEntry *next;
};

MTestArgList *MTestArgListCreate(int argc, char *argv[])
{
    struct argEntry *head = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *eq;
        if (a[0] != '-' || (eq = strchr(a, '=')) == NULL)
            continue;
        struct argEntry *n = malloc(sizeof *n);
        n->key = strndup(a + 1, (size_t) (eq - a - 1));
        n->value = strdup(eq + 1);
        n->next = head;
        head = n;
    }
    return head;
}

/* MTestArgListCreate_arg reads the arguments of one string, -key=value words separated
 * by spaces (MPICH's MULTI_TESTS give run() its testlist line's arguments so). */
MTestArgList *MTestArgListCreate_arg(const char *arg)
{
    char *words[64];
    int n = 1;
    char *copy = arg ? strdup(arg) : NULL;
    words[0] = "";
    for (char *w = copy ? strtok(copy, " \t") : NULL; w && n < 64; w = strtok(NULL, " \t"))
        words[n++] = w;
    MTestArgList *head = MTestArgListCreate(n, words);
    free(copy);
    return head;
}

static const char *arg_lookup(MTestArgList *list, const char *key)
{
    for (struct argEntry *head = list; head; head = head->next)
        if (strcmp(head->key, key) == 0)
            return head->value;
    return NULL;
}

char *MTestArgListSearch(MTestArgList *head, const char *key)
{
    return (char *) arg_lookup(head, key);
}

char *MTestArgListGetString(MTestArgList *head, const char *key)
{
    const char *v = arg_lookup(head, key);
    if (v == NULL) {
        fprintf(stderr, "argument -%s=... is missing\n", key);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return (char *) v;
}

const char *MTestArgListGetString_with_default(MTestArgList *head, const char *key, const char *def)
{
    const char *v = arg_lookup(head, key);
    return v ? v : def;
}

int MTestArgListGetInt(MTestArgList *head, const char *key)
{
    return atoi(MTestArgListGetString(head, key));
}

int MTestArgListGetInt_with_default(MTestArgList *head, const char *key, int def)
{
    const char *v = arg_lookup(head, key);
    return v ? atoi(v) : def;
}

long MTestArgListGetLong(MTestArgList *head, const char *key)
{
    return atol(MTestArgListGetString(head, key));
}

long MTestArgListGetLong_with_default(MTestArgList *head, const char *key, long def)
{
    const char *v = arg_lookup(head, key);
    return v ? atol(v) : def;
}

void MTestArgListDestroy(MTestArgList *list)
{
    struct argEntry *head = list;
    while (head) {
        struct argEntry *n = head->next;
        free(head->key);
        free(head->value);
        free(head);
        head = n;
    }
}

/* --- Memory kinds (mtest_common.h's mtest_mem_type_e, read as an int): this harness
 * has host memory only, so every kind is plain malloc'ed memory, as MPICH's is when
 * it is built without a GPU. --- */
enum { MEM_UNSET, MEM_HOST, MEM_REG_HOST, MEM_DEVICE, MEM_SHARED, MEM_RANDOM, MEM_ALL };

int MTestArgListGetMemType(MTestArgList *head, const char *key)
{
    const char *m = arg_lookup(head, key);
    if (!m || strcmp(m, "host") == 0)
        return MEM_HOST;
    if (strcmp(m, "reg_host") == 0)
        return MEM_REG_HOST;
    if (strcmp(m, "device") == 0)
        return MEM_DEVICE;
    if (strcmp(m, "shared") == 0)
        return MEM_SHARED;
    if (strcmp(m, "random") == 0)
        return MEM_RANDOM;
    if (strcmp(m, "all") == 0)
        return MEM_ALL;
    return MEM_UNSET;
}

int MTest_memtype_random(void)
{
    return MEM_HOST;
}

const char *MTest_memtype_name(int m)
{
    static const char *names[] = { "unset", "host", "reg_host", "device", "shared", "random", "all" };
    return m >= 0 && m <= MEM_ALL ? names[m] : "invalid";
}

/* MTestIsBasicDtype: a named (predefined) type. */
int MTestIsBasicDtype(MPI_Datatype type)
{
    int ni, na, nt, combiner;
    MPI_Type_get_envelope(type, &ni, &na, &nt, &combiner);
    return combiner == MPI_COMBINER_NAMED;
}

/* MTestGetStressLevel: 1 when MPITEST_STRESS is set (tests then do more work), else 0,
 * as MPICH's. */
int MTestGetStressLevel(void)
{
    return getenv("MPITEST_STRESS") != NULL;
}

MPI_Aint MTestDefaultMaxBufferSize(void)
{
    const char *v = getenv("MPITEST_MAXBUFFER");
    return v ? (MPI_Aint) atol(v) : (MPI_Aint) 1 << 30;
}

void MTestAlloc(size_t size, int type, void **hostbuf, void **devicebuf, bool is_calloc, int device)
{
    void *p = is_calloc ? calloc(size ? size : 1, 1) : malloc(size ? size : 1);
    (void) type;
    (void) device;
    if (hostbuf)
        *hostbuf = p;
    if (devicebuf)
        *devicebuf = p;
}

void MTestFree(int type, void *hostbuf, void *devicebuf)
{
    (void) type;
    free(hostbuf ? hostbuf : devicebuf);
}

void MTestCopyContent(const void *sbuf, void *dbuf, size_t size, int type)
{
    (void) type;
    memmove(dbuf, sbuf, size);
}

void MTest_finalize_gpu(void)
{
}

void MTest_init_visibility_gpu(void)
{
}

/* MTestParseIntList and MTestParseStringList split a comma-separated list. */
int *MTestParseIntList(const char *str, int *num)
{
    int n = 1;
    for (const char *c = str; *c; c++)
        n += *c == ',';
    int *out = malloc(n * sizeof *out);
    const char *c = str;
    for (int i = 0; i < n; i++) {
        out[i] = atoi(c);
        while (*c && *c != ',')
            c++;
        if (*c)
            c++;
    }
    *num = n;
    return out;
}

char **MTestParseStringList(const char *str, int *num)
{
    int n = 1;
    for (const char *c = str; *c; c++)
        n += *c == ',';
    char **out = malloc(n * sizeof *out);
    const char *c = str;
    for (int i = 0; i < n; i++) {
        const char *e = c;
        while (*e && *e != ',')
            e++;
        out[i] = strndup(c, (size_t) (e - c));
        c = *e ? e + 1 : e;
    }
    *num = n;
    return out;
}

void MTestFreeStringList(char **str, int num)
{
    for (int i = 0; i < num; i++)
        free(str[i]);
    free(str);
}
