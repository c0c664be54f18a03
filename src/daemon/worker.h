/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Short jobs off the event loop: a write to a sysfs attribute the kernel acts on before it
 * returns (an LU's "rescan"), a module load. Each may block in the kernel for as long as the
 * device or the module's init takes, which the loop must never do. Jobs run in the worker's
 * threads, in submission order per thread; each one's completion comes back to the loop through
 * an eventfd. A job past its deadline is reported as -ETIMEDOUT at the deadline, in the loop;
 * whatever it returns later is dropped (its data is freed then).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

typedef struct Worker Worker;

/* In a worker thread: do the blocking part; 0 or -errno. */
typedef int (*WorkerRunFn)(void *data);
/* In the loop's thread: the result, or -ETIMEDOUT at the deadline. May be NULL. */
typedef void (*WorkerDoneFn)(void *data, int r);
/* Frees @data, in whichever thread lets go of the job last. May be NULL. */
typedef void (*WorkerFreeFn)(void *data);

/* @n_threads (at least 1) run jobs; 1 serialises them (libkmod's context is not shared). */
int worker_new(sd_event *e, const char *name, unsigned n_threads, Worker **ret);

/*
 * worker_submit() - run @run(@data) in a worker thread, then @done(@data, r) in the loop, then
 * @free_data(@data). @timeout_usec (0: none) bounds the time from submission to the result.
 * On failure @data is freed here. Returns 0 or -errno.
 */
int worker_submit(Worker *w, WorkerRunFn run, WorkerDoneFn done, WorkerFreeFn free_data, void *data,
                  uint64_t timeout_usec);

/* Worker threads alive in the process, those of abandoned workers included. */
unsigned worker_live_threads(void);

/* Jobs submitted and not reported yet. */
size_t worker_n_pending(const Worker *w);
/* Jobs that passed their deadline, since creation. */
uint64_t worker_n_timed_out(const Worker *w);

/* A grace that never ends: worker_shutdown() waits for the running jobs however long. */
#define WORKER_WAIT_FOREVER UINT64_MAX

/*
 * worker_shutdown() - drop the queued jobs (their done callbacks are not called, nor those of
 * jobs that finished unreported), wait @grace_usec at most for the running ones, and free @w.
 * Threads still in the kernel after that are left running, detached, with what they use:
 * -ETIMEDOUT then (the process is about to exit), 0 otherwise. NULL is fine.
 */
int worker_shutdown(Worker *w, uint64_t grace_usec);
