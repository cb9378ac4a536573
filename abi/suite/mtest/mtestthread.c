/* mtestthread.c - mpigo's implementation of mpithreadtest.h. */
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include "mpithreadtest.h"

enum { MAX_THREADS = 64 };
static pthread_t started[MAX_THREADS];
static int nstarted;
static pthread_mutex_t startLock = PTHREAD_MUTEX_INITIALIZER;

void MTest_init_thread_pkg(void) {}
void MTest_finalize_thread_pkg(void) {}

int MTest_Start_thread(void *(*fn)(void *), void *arg) {
    int err;
    pthread_mutex_lock(&startLock);
    if (nstarted == MAX_THREADS) {
        pthread_mutex_unlock(&startLock);
        fprintf(stderr, "MTest_Start_thread: more than %d threads\n", MAX_THREADS);
        return 1;
    }
    err = pthread_create(&started[nstarted], NULL, fn, arg);
    if (!err) nstarted++;
    pthread_mutex_unlock(&startLock);
    return err;
}

int MTest_Join_threads(void) {
    int i, err = 0;
    pthread_mutex_lock(&startLock);
    for (i = 0; i < nstarted; i++) {
        int rc = pthread_join(started[i], NULL);
        if (rc) err = rc;
    }
    nstarted = 0;
    pthread_mutex_unlock(&startLock);
    return err;
}

int MTest_thread_lock_create(pthread_mutex_t *l) { return pthread_mutex_init(l, NULL); }
int MTest_thread_lock(pthread_mutex_t *l) { return pthread_mutex_lock(l); }
int MTest_thread_unlock(pthread_mutex_t *l) { return pthread_mutex_unlock(l); }
int MTest_thread_lock_free(pthread_mutex_t *l) { return pthread_mutex_destroy(l); }
int MTest_thread_yield(void) { return sched_yield(); }

/* A reusable barrier: the count of threads is given at each call (MTest's
 * interface); -1 means every thread started plus the caller's. */
static pthread_mutex_t barLock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t barCond = PTHREAD_COND_INITIALIZER;
static int barWaiting;
static unsigned long barGeneration;

int MTest_thread_barrier_init(void) {
    pthread_mutex_lock(&barLock);
    barWaiting = 0;
    pthread_mutex_unlock(&barLock);
    return 0;
}

int MTest_thread_barrier(int n) {
    if (n < 0) n = nstarted + 1;
    pthread_mutex_lock(&barLock);
    unsigned long gen = barGeneration;
    if (++barWaiting >= n) {
        barWaiting = 0;
        barGeneration++;
        pthread_cond_broadcast(&barCond);
    } else {
        while (gen == barGeneration) pthread_cond_wait(&barCond, &barLock);
    }
    pthread_mutex_unlock(&barLock);
    return 0;
}

int MTest_thread_barrier_free(void) { return 0; }
