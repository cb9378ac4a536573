/* constants.c - the library agrees with the values of mpi.h (which TestStandardABI
 * checks against the MPI 5.0 standard's tables): versions, handle conversions, the
 * predefined datatypes and attributes a program reaches through them. */
#include <stdint.h>
#include <string.h>
#include <time.h>
#include "check.h"

int main(int argc, char **argv) {
    OK(MPI_Init(&argc, &argv));
    int v, sv;
    OK(MPI_Get_version(&v, &sv));
    CHECK(v == 5 && sv == 0, "version %d.%d", v, sv);
    OK(MPI_Abi_get_version(&v, &sv));
    CHECK(v == 1 && sv == 0, "ABI version %d.%d", v, sv);
    CHECK(MPI_Comm_toint(MPI_COMM_WORLD) == 0x101 && MPI_Comm_fromint(0x102) == MPI_COMM_SELF, "toint");
    MPI_Comm dup;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK(MPI_Comm_fromint(MPI_Comm_toint(dup)) == dup, "a created handle round-trips");
    CHECK((intptr_t)dup > 4095, "a created handle is above the range the standard reserves (1 to 4095): %#lx", (long)(intptr_t)dup);
    int size, tsize;
    OK(MPI_Comm_size(dup, &size));
    OK(MPI_Type_size(MPI_LONG_DOUBLE, &tsize));
    CHECK(tsize == sizeof(long double), "MPI_LONG_DOUBLE size %d", tsize);
    OK(MPI_Type_size(MPI_DOUBLE_INT, &tsize));
    CHECK(tsize == 12, "MPI_DOUBLE_INT size %d", tsize);
    MPI_Aint lb, ext;
    OK(MPI_Type_get_extent(MPI_DOUBLE_INT, &lb, &ext));
    struct { double d; int i; } di;
    CHECK(lb == 0 && ext == sizeof di, "MPI_DOUBLE_INT extent %ld", (long)ext);
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    OK(MPI_Type_get_name(MPI_UNSIGNED_LONG_LONG, name, &len));
    CHECK(strcmp(name, "MPI_UNSIGNED_LONG_LONG") == 0 && len == (int)strlen(name), "name %s", name);
    OK(MPI_Type_size(MPI_CHARACTER, &tsize));
    OK(MPI_Type_get_name(MPI_CHARACTER, name, &len));
    CHECK(tsize == 1 && strcmp(name, "MPI_CHARACTER") == 0, "MPI_CHARACTER: %s of size %d", name, tsize);
    /* Every predefined datatype of mpi.h is the library's of that name. A handle that
     * mpi.h gives two names (MPI_LONG_LONG_INT and MPI_LONG_LONG, MPI_C_COMPLEX and
     * MPI_C_FLOAT_COMPLEX) has the standard's own: MPI 4.1 Table 3.2 lists the second
     * of each pair "as a synonym", and MPICH and Open MPI name them so. */
#define NAMED(t) {t, #t}
    struct { MPI_Datatype t; const char *name; } named[] = {
        NAMED(MPI_AINT), NAMED(MPI_COUNT), NAMED(MPI_OFFSET), NAMED(MPI_PACKED),
        NAMED(MPI_SHORT), NAMED(MPI_INT), NAMED(MPI_LONG), NAMED(MPI_LONG_LONG_INT),
        NAMED(MPI_UNSIGNED_SHORT), NAMED(MPI_UNSIGNED), NAMED(MPI_UNSIGNED_LONG),
        NAMED(MPI_UNSIGNED_LONG_LONG), NAMED(MPI_FLOAT), NAMED(MPI_C_COMPLEX),
        NAMED(MPI_DOUBLE), NAMED(MPI_C_DOUBLE_COMPLEX), NAMED(MPI_LONG_DOUBLE),
        NAMED(MPI_C_LONG_DOUBLE_COMPLEX), NAMED(MPI_C_BOOL), NAMED(MPI_WCHAR),
        NAMED(MPI_INT8_T), NAMED(MPI_UINT8_T), NAMED(MPI_CHAR), NAMED(MPI_SIGNED_CHAR),
        NAMED(MPI_UNSIGNED_CHAR), NAMED(MPI_BYTE), NAMED(MPI_INT16_T), NAMED(MPI_UINT16_T),
        NAMED(MPI_INT32_T), NAMED(MPI_UINT32_T), NAMED(MPI_INT64_T), NAMED(MPI_UINT64_T),
        NAMED(MPI_LOGICAL), NAMED(MPI_INTEGER), NAMED(MPI_REAL), NAMED(MPI_COMPLEX),
        NAMED(MPI_DOUBLE_PRECISION), NAMED(MPI_CHARACTER), NAMED(MPI_CXX_FLOAT_COMPLEX),
        NAMED(MPI_CXX_DOUBLE_COMPLEX), NAMED(MPI_CXX_LONG_DOUBLE_COMPLEX),
        NAMED(MPI_CXX_BOOL), NAMED(MPI_DOUBLE_COMPLEX), NAMED(MPI_LOGICAL1),
        NAMED(MPI_LOGICAL2), NAMED(MPI_LOGICAL4), NAMED(MPI_LOGICAL8), NAMED(MPI_LOGICAL16),
        NAMED(MPI_INTEGER1), NAMED(MPI_INTEGER2), NAMED(MPI_INTEGER4), NAMED(MPI_INTEGER8),
        NAMED(MPI_INTEGER16), NAMED(MPI_REAL2), NAMED(MPI_REAL4), NAMED(MPI_REAL8),
        NAMED(MPI_REAL16), NAMED(MPI_COMPLEX4), NAMED(MPI_COMPLEX8), NAMED(MPI_COMPLEX16),
        NAMED(MPI_COMPLEX32), NAMED(MPI_FLOAT_INT), NAMED(MPI_DOUBLE_INT),
        NAMED(MPI_LONG_INT), NAMED(MPI_2INT), NAMED(MPI_SHORT_INT),
        NAMED(MPI_LONG_DOUBLE_INT), NAMED(MPI_2REAL), NAMED(MPI_2DOUBLE_PRECISION),
        NAMED(MPI_2INTEGER),
    };
    for (size_t k = 0; k < sizeof named / sizeof named[0]; k++) {
        OK(MPI_Type_get_name(named[k].t, name, &len));
        CHECK(strcmp(name, named[k].name) == 0, "%s is the library's %s", named[k].name, name);
    }
    int *tagub, *universe, *appnum, *lastused, flag, flag2, flag3;
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tagub, &flag));
    CHECK(flag && *tagub >= 32767, "MPI_TAG_UB");
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &universe, &flag));
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag2));
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &flag3));
    CHECK(flag && flag2 && flag3 && *universe >= size && *appnum == 0 && *lastused >= MPI_ERR_LASTCODE,
          "MPI_UNIVERSE_SIZE %d (of %d), MPI_APPNUM %d, MPI_LASTUSEDCODE %d", *universe, size, *appnum, *lastused);
    OK(MPI_Comm_free(&dup));
    CHECK(dup == MPI_COMM_NULL, "Comm_free sets MPI_COMM_NULL");
    /* MPI_Wtime counts seconds on a clock that does not go back, in steps of MPI_Wtick. */
    double t0 = MPI_Wtime();
    struct timespec nap = {0, 20000000};
    nanosleep(&nap, NULL);
    double t1 = MPI_Wtime();
    CHECK(t0 >= 0 && t1 - t0 >= 0.02 && t1 - t0 < 10, "MPI_Wtime %.9f then %.9f around a 20 ms sleep", t0, t1);
    CHECK(MPI_Wtick() > 0 && MPI_Wtick() <= 1e-6, "MPI_Wtick %g", MPI_Wtick());
    OK(MPI_Finalize());
    int fin;
    OK(MPI_Finalized(&fin));
    CHECK(fin, "finalized");
    printf("OK constants\n");
    return 0;
}
