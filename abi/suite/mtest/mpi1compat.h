/* mpi1compat.h - the MPI-1 procedures MPI-3.0 removed, and those MPI-2.0 deprecated
 * (the attribute calls), which older MPICH tests still call, as their MPI-2
 * replacements. mpigo's mpi.h (the MPI 5.0 ABI) rightly lacks them: the ABI leaves out
 * what MPI-3.1 or earlier deprecated (MPI 5.0 §21.2.1). The harness includes this
 * before each test (-include). mpigo's own. */
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
static inline int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn,
                                    int *keyval, void *extra_state)
{
    return MPI_Comm_create_keyval((MPI_Comm_copy_attr_function *)copy_fn,
                                  (MPI_Comm_delete_attr_function *)delete_fn, keyval, extra_state);
}
static inline int MPI_Keyval_free(int *keyval)
{
    return MPI_Comm_free_keyval(keyval);
}
static inline int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return MPI_Comm_set_attr(comm, keyval, attribute_val);
}
static inline int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return MPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}
static inline int MPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return MPI_Comm_delete_attr(comm, keyval);
}
#endif
