/* mpitest.h - the MTest interface MPICH's test programs call, declared and implemented
 * (mtest.c) by mpigo for its harness of MPICH's test suite. The interface follows
 * MPICH's test/mpi/include/mpitest.h so that the tests compile unchanged; the code is
 * mpigo's own (no MPICH code), smaller: fewer communicators, datatypes and windows
 * are offered to the tests' loops than MPICH's own support offers. */
#ifndef MPITEST_H_INCLUDED
#define MPITEST_H_INCLUDED

#include "mpitestconf.h"
#include "mpi.h"
/* Newer MPICH tests start threads having included mpitest.h only. */
#include "mpithreadtest.h"
/* Newer MPICH tests rely on mpitest.h for these. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h> /* MPICH's mpitest.h brings bool */
/* The newer tests' memory kinds and list parsing, declared by MPICH's own
 * mtest_common.h where the sources have it (mtest.c implements them for host memory). */
#if defined(__has_include)
#if __has_include("mtest_common.h")
#include "mtest_common.h"
#endif
#endif

void MTest_Init(int *argc, char ***argv);
void MTest_Init_thread(int *argc, char ***argv, int required, int *provided);
void MTest_Finalize(int errs);
void MTestPrintError(int errcode);
void MTestPrintErrorMsg(const char msg[], int errcode);
void MTestPrintfMsg(int level, const char format[], ...);
void MTestError(const char msg[]);
int MTestReturnValue(int errs);
void MTestSleep(int sec);
void MTestGetDbgInfo(int *dbgflag, int *verbose);

/* A datatype offered to a test, with its buffer and the routines that fill and check
 * it. Field names are the ones the tests use. */
typedef struct _MTestDatatype {
    MPI_Datatype datatype;
    void *buf;
    MPI_Aint count;
    int isBasic;
    int printErrors;
    int nblock, *index;
    MPI_Aint stride, blksize, *displ_in_bytes;
    int *displs, basesize;
    MPI_Datatype *old_datatypes;
    int arr_sizes[2], arr_subsizes[2], arr_starts[2], order;
    void *(*InitBuf) (struct _MTestDatatype *);
    void *(*FreeBuf) (struct _MTestDatatype *);
    int (*CheckBuf) (struct _MTestDatatype *);
} MTestDatatype;

#define MTEST_DATATYPE_FOR_EACH_COUNT(count) \
        for (count = 1; count <= 262144; count *= 8)

void MTestInitFullDatatypes(void);
void MTestInitMinDatatypes(void);
void MTestInitBasicDatatypes(void);
int MTestCheckRecv(MPI_Status *, MTestDatatype *);
int MTestGetDatatypes(MTestDatatype *, MTestDatatype *, MPI_Aint);
void MTestResetDatatypes(void);
void MTestFreeDatatype(MTestDatatype *);
const char *MTestGetDatatypeName(MTestDatatype *);
int MTestGetDatatypeIndex(void);

int MTestGetIntracomm(MPI_Comm *, int);
int MTestGetIntracommGeneral(MPI_Comm *, int, int);
int MTestGetIntercomm(MPI_Comm *, int *, int);
int MTestGetComm(MPI_Comm *, int);
int MTestTestIntercomm(MPI_Comm intercomm);
int MTestTestIntracomm(MPI_Comm intracomm);
int MTestTestComm(MPI_Comm comm);
const char *MTestGetIntracommName(void);
const char *MTestGetIntercommName(void);
void MTestFreeComm(MPI_Comm *);

int MTestSpawnPossible(int *);

/* Arguments of the form -key=value (newer tests' MTestArgList). */
typedef void MTestArgList; /* as MPICH's mtest_common.h has it */
MTestArgList *MTestArgListCreate(int argc, char *argv[]);
MTestArgList *MTestArgListCreate_arg(const char *arg);
int MTestIsBasicDtype(MPI_Datatype type);
int MTestGetStressLevel(void);
void MTestCommRandomize(void);
char *MTestArgListGetString(MTestArgList *head, const char *key);
const char *MTestArgListGetString_with_default(MTestArgList *head, const char *key, const char *def);
int MTestArgListGetInt(MTestArgList *head, const char *key);
int MTestArgListGetInt_with_default(MTestArgList *head, const char *key, int def);
long MTestArgListGetLong(MTestArgList *head, const char *key);
long MTestArgListGetLong_with_default(MTestArgList *head, const char *key, long def);
void MTestArgListDestroy(MTestArgList *head);

int MTestGetWin(MPI_Win *, int);
const char *MTestGetWinName(void);
void MTestFreeWin(MPI_Win *);

#ifndef MTEST_MPI_VERSION
#define MTEST_MPI_VERSION MPI_VERSION
#endif
#ifndef MTEST_MPI_SUBVERSION
#define MTEST_MPI_SUBVERSION MPI_SUBVERSION
#endif
#define MTEST_HAVE_MIN_MPI_VERSION(major_, minor_) \
    ((MTEST_MPI_VERSION == (major_) && MTEST_MPI_SUBVERSION >= (minor_)) || \
     (MTEST_MPI_VERSION > (major_)))

/* MTestCheckStatus counts the differences of a receive's status from what was
 * expected: its count (for a predefined element type), source and tag (unless ANY). */
static inline int MTestCheckStatus(MPI_Status *st, MPI_Datatype el_type, int exp_count, int exp_source,
                                   int exp_tag, bool verbose)
{
    int errs = 0, count;
    if (MTestIsBasicDtype(el_type)) {
        MPI_Get_count(st, el_type, &count);
        if (count != exp_count) {
            errs++;
            if (verbose)
                printf("Status expect count %d, got %d\n", exp_count, count);
        }
    }
    if (exp_source != MPI_ANY_SOURCE && st->MPI_SOURCE != exp_source) {
        errs++;
        if (verbose)
            printf("Status expect source %d, got %d\n", exp_source, st->MPI_SOURCE);
    }
    if (exp_tag != MPI_ANY_TAG && st->MPI_TAG != exp_tag) {
        errs++;
        if (verbose)
            printf("Status expect tag %d, got %d\n", exp_tag, st->MPI_TAG);
    }
    return errs;
}
#endif
