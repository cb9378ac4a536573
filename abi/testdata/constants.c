/* constants.c - the library agrees with the values of mpi.h (which TestStandardABI
 * checks against the MPI 5.0 standard's tables): versions, handle conversions, the
 * predefined datatypes and attributes a program reaches through them. */
#include <stdint.h>
#include <string.h>
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
    int *tagub, *universe, *appnum, *lastused, flag, flag2, flag3;
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tagub, &flag));
    CHECK(flag && *tagub >= 32767, "MPI_TAG_UB");
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &universe, &flag));
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag2));
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &flag3));
    CHECK(flag && flag2 && flag3 && *universe == size && *appnum == 0 && *lastused >= MPI_ERR_LASTCODE,
          "MPI_UNIVERSE_SIZE %d (of %d), MPI_APPNUM %d, MPI_LASTUSEDCODE %d", *universe, size, *appnum, *lastused);
    OK(MPI_Comm_free(&dup));
    CHECK(dup == MPI_COMM_NULL, "Comm_free sets MPI_COMM_NULL");
    OK(MPI_Finalize());
    int fin;
    OK(MPI_Finalized(&fin));
    CHECK(fin, "finalized");
    printf("OK constants\n");
    return 0;
}
