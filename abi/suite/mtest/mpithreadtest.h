/* mpithreadtest.h - the thread part of the MTest interface MPICH's threads tests
 * call, written for mpigo's harness from its declarations: POSIX threads, a lock
 * type and a barrier of a given number of threads. */
#ifndef MPITHREADTEST_H
#define MPITHREADTEST_H
#include <pthread.h>

#define MTEST_THREAD_RETURN_TYPE void *
#define MTEST_THREAD_HANDLE pthread_t
#define MTEST_THREAD_LOCK_TYPE pthread_mutex_t
#define MTEST_THREAD_RETVAL_IGN NULL
#define MTEST_THREAD_RETURN_EXPRESSION return NULL
/* C11 atomics, as MPICH's configure finds them (HAVE_ATOMIC). */
#define MTEST_ATOMIC _Atomic

int MTest_Start_thread(MTEST_THREAD_RETURN_TYPE (*fn)(void *), void *arg);
int MTest_Join_threads(void);
int MTest_thread_lock_create(MTEST_THREAD_LOCK_TYPE *lock);
int MTest_thread_lock(MTEST_THREAD_LOCK_TYPE *lock);
int MTest_thread_unlock(MTEST_THREAD_LOCK_TYPE *lock);
int MTest_thread_lock_free(MTEST_THREAD_LOCK_TYPE *lock);
int MTest_thread_yield(void);
int MTest_thread_barrier_init(void);
int MTest_thread_barrier(int nthreads);
int MTest_thread_barrier_free(void);
/* Set up and take down the thread package, around MPI's own use; POSIX threads need
 * neither. */
void MTest_init_thread_pkg(void);
void MTest_finalize_thread_pkg(void);
#endif
