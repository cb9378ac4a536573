/* runmain.c - the main of MPICH's newer single-test sources, which define
 * int run(const char *arg) in place of main (MPICH links them one by one or many in
 * one program). mpigo's own, for its harness of MPICH's test suite. */
#include "mpitest.h"

int run(const char *arg);

int main(int argc, char **argv)
{
    int errs;
    MTest_Init(&argc, &argv);
    /* run() takes its arguments as one string, the words joined by spaces. */
    size_t len = 1;
    for (int i = 1; i < argc; i++)
        len += strlen(argv[i]) + 1;
    char *arg = calloc(len, 1);
    for (int i = 1; i < argc; i++) {
        if (i > 1)
            strcat(arg, " ");
        strcat(arg, argv[i]);
    }
    errs = run(argc > 1 ? arg : NULL);
    free(arg);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
