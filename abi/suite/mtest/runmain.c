/* runmain.c - the main of MPICH's newer single-test sources, which define
 * int run(const char *arg) in place of main (MPICH links them one by one or many in
 * one program). mpigo's own, for its harness of MPICH's test suite. */
#include "mpitest.h"

int run(const char *arg);

int main(int argc, char **argv)
{
    int errs;
    MTest_Init(&argc, &argv);
    errs = run(argc > 1 ? argv[1] : NULL);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
