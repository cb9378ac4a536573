/* mpitestconf.h - the configuration MPICH's test programs include, written for mpigo's
 * C ABI (what MPICH's configure would find on Linux with gcc and a non-MPICH MPI).
 * Part of mpigo's harness for MPICH's test suite (abi/suite/run-mpich.sh); no MPICH
 * code. */
#ifndef MPITESTCONF_H_MPIGO
#define MPITESTCONF_H_MPIGO

#define USE_STRICT_MPI 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_STDARG_H 1
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_LONG_LONG 1
#define HAVE_LONG_LONG_INT 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_MPI_TYPE_CREATE_STRUCT 1
#define HAVE_PTHREAD_H 1
#define HAVE_PTHREAD_CREATE 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
#define HAVE_INT8_T 1
#define HAVE_INT16_T 1
#define HAVE_INT32_T 1
#define HAVE_INT64_T 1
#define HAVE_UINT8_T 1
#define HAVE_UINT16_T 1
#define HAVE_UINT32_T 1
#define HAVE_UINT64_T 1
#define HAVE__BOOL 1
#define HAVE_FLOAT__COMPLEX 1
#define HAVE_DOUBLE__COMPLEX 1
#define HAVE_LONG_DOUBLE__COMPLEX 1
#define SIZEOF_INT 4
#define SIZEOF_LONG 8
#define SIZEOF_LONG_LONG 8
#define SIZEOF_VOID_P 8
#define SIZEOF_MPI_OFFSET 8
#define SIZEOF_MPI_AINT 8
#define STDC_HEADERS 1

/* MPICH's configure defines these when a program that names the type builds against
 * mpi.h (MPI 2.1 mentions MPI_INTEGER16 in one place only, and some MPIs lack it);
 * the standard ABI's mpi.h has all three. */
#define HAVE_MPI_INTEGER16 1
#define HAVE_MPI_REAL16 1
#define HAVE_MPI_COMPLEX32 1

/* MPICH's configure defines these when mpi.h has MPI-IO and no ROMIO MPIO_Request
 * (io/async.c then uses MPI_Request and MPI_Wait, as the standard does). */
#define HAVE_MPI_IO 1
#define MPIO_USES_MPI_REQUEST 1

/* Newer tests mark buffers as initialised for valgrind. */
#include <string.h>
#define MTEST_VG_MEM_INIT(addr_, size_) memset((addr_), 0, (size_))

#endif
