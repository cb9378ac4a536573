/* mpi1compat.h - the MPI-1 procedures MPI-3.0 removed, which older MPICH tests still
 * call, as their MPI-2 replacements. mpigo's mpi.h (the MPI 5.0 ABI) rightly lacks
 * them; the harness includes this before each test (-include). mpigo's own. */
#ifndef MPI1COMPAT_H_MPIGO
#define MPI1COMPAT_H_MPIGO
#include "mpi.h"
static inline int MPI_Type_extent(MPI_Datatype t, MPI_Aint *extent)
{
    MPI_Aint lb;
    return MPI_Type_get_extent(t, &lb, extent);
}
static inline int MPI_Type_lb(MPI_Datatype t, MPI_Aint *lb)
{
    MPI_Aint extent;
    return MPI_Type_get_extent(t, lb, &extent);
}
static inline int MPI_Type_ub(MPI_Datatype t, MPI_Aint *ub)
{
    MPI_Aint lb, extent;
    int err = MPI_Type_get_extent(t, &lb, &extent);
    *ub = lb + extent;
    return err;
}
static inline int MPI_Address(void *location, MPI_Aint *address)
{
    return MPI_Get_address(location, address);
}
static inline int MPI_Type_struct(int count, int *blocklens, MPI_Aint *displs,
                                  MPI_Datatype *types, MPI_Datatype *newtype)
{
    return MPI_Type_create_struct(count, blocklens, displs, types, newtype);
}
static inline int MPI_Type_hvector(int count, int blocklen, MPI_Aint stride,
                                   MPI_Datatype old, MPI_Datatype *newtype)
{
    return MPI_Type_create_hvector(count, blocklen, stride, old, newtype);
}
static inline int MPI_Type_hindexed(int count, int *blocklens, MPI_Aint *displs,
                                    MPI_Datatype old, MPI_Datatype *newtype)
{
    return MPI_Type_create_hindexed(count, blocklens, displs, old, newtype);
}
static inline int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler eh)
{
    return MPI_Comm_set_errhandler(comm, eh);
}
static inline int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *eh)
{
    return MPI_Comm_get_errhandler(comm, eh);
}
static inline int MPI_Errhandler_create(MPI_Comm_errhandler_function *fn, MPI_Errhandler *eh)
{
    return MPI_Comm_create_errhandler(fn, eh);
}
#endif
