/*
 * enzyme/checkpoint.h: checkpointed time loops in reverse mode, with
 * Enzyme's interface (same names, markers, struct layouts and action
 * protocol), so code written for Enzyme's checkpointing compiles unchanged.
 *
 *   for (int64_t i = start; i < start + n; i++) step(i, args...);
 *
 * is written
 *
 *   __enzyme_checkpoint_for((void *)step, start, n,
 *                           enzyme_scheme, &EnzymeCkptRevolve, &config,
 *                           enzyme_checkpoint_region, x, sizeof(double) * m,
 *                           args...);
 *
 * Run as it is, it is that loop. Inside a function differentiated in reverse
 * mode, the tape of one step at a time is kept: the scheme says before which
 * steps the state is saved, which steps run again from a saved state, and
 * when a step is differentiated. Memory grows with the number of snapshots,
 * not with the number of steps; the price is steps run more than once.
 * In forward mode the loop is differentiated as any loop.
 *
 * The state: a snapshot holds the regions given by enzyme_checkpoint_region
 * (pointer, bytes) and every global variable the step writes. Everything a
 * step reads that an earlier step wrote must be in one of them; memory
 * outside them must not change between steps (the snapshot does not restore
 * it). `step` returns void, takes the step number (an integer) first and then
 * the arguments after the markers; pointers among them carry derivatives as
 * the caller's do, floats are active and get adjoints summed over the steps.
 *
 * Schemes (pass `enzyme_scheme, &scheme, &config`):
 *   EnzymeCkptRevolve   binomial checkpointing with config.snapshots slots:
 *                       the fewest recomputed steps for that memory
 *   EnzymeCkptPeriodic  config.snapshots segments: the start of each segment
 *                       is saved, and the steps of the segment being reversed
 *                       (sqrt(n) segments: O(sqrt n) memory, each step run
 *                       twice)
 *   EnzymeCkptStoreAll  a snapshot before every step
 * or one of your own, driven by the protocol below (Revolve's, as
 * Checkpointing.jl numbers it). Steps are numbered from 0; step j is called
 * with i = start + j.
 *   STORE      (iteration c, cpnum k): the state is the one before step c;
 *              save it into slot k.
 *   FORWARD    (startiteration a, iteration b): run steps a .. b-1.
 *   FIRSTUTURN (iteration b): the state is the one before step b-1, the last;
 *              ends the forward sweep (the last step runs without its tape).
 *   UTURN      (iteration b): the state is the one before step b-1:
 *              differentiate it (it runs with its tape, then its adjoint).
 *   RESTORE    (iteration c, cpnum k): load slot k, the state before step c.
 *   DONE       the schedule is complete (at once for n = 0).
 * The driver also stores into slot -2 (the state before the last step, at
 * FIRSTUTURN, restored to start the reverse sweep) and slot -1 (the state
 * after the loop, restored when the schedule is done).
 *
 * While loops: __enzyme_checkpoint_while((void *)step, enzyme_scheme, ...)
 * runs `int64_t i = 0; while (step(i++, args...));` (step returns an int:
 * whether to go on). The scheme's init gets nsteps = -1, and set_nsteps the
 * count once the loop has ended; the schedule goes on from the state after
 * the loop to its first turn. Of the reference schemes, EnzymeCkptStoreAll
 * takes while loops.
 *
 * Not supported here (a clear error): regions in device memory,
 * config.spill_dir; a scheme's set_paths is not called.
 */
#ifndef ENZYME_RS_CHECKPOINT_H
#define ENZYME_RS_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ENZYME_CKPT_ABI_VERSION 1

enum {
  ENZYME_CKPT_NONE = 0,
  ENZYME_CKPT_STORE = 1,
  ENZYME_CKPT_RESTORE = 2,
  ENZYME_CKPT_FORWARD = 3,
  ENZYME_CKPT_FIRSTUTURN = 4,
  ENZYME_CKPT_UTURN = 5,
  ENZYME_CKPT_ERROR = 6,
  ENZYME_CKPT_DONE = 7
};

typedef struct EnzymeCkptAction {
  int32_t flag;
  int64_t iteration;
  int64_t startiteration;
  int64_t cpnum;
} EnzymeCkptAction;

/* A piece of memory a snapshot holds. */
typedef struct EnzymeCkptRegion {
  void *ptr;
  uint64_t bytes;
  uint32_t addrspace;
  uint32_t flags;
} EnzymeCkptRegion;

typedef struct EnzymeCheckpointScheme {
  uint32_t version; /* ENZYME_CKPT_ABI_VERSION */
  /* nsteps: the number of steps (-1: not known, a while loop). */
  void *(*init)(void *data, int64_t nsteps, uint64_t snapshot_bytes);
  void (*next_action)(void *state, EnzymeCkptAction *out);
  void (*store)(void *state, int64_t slot, int64_t step, const EnzymeCkptRegion *regions, uint64_t nregions);
  void (*restore)(void *state, int64_t slot, int64_t step, const EnzymeCkptRegion *regions, uint64_t nregions);
  void (*set_nsteps)(void *state, int64_t nsteps);
  void (*finalize)(void *state);
  /* Instead of store/restore: the scheme copies the state itself from the
   * step's arguments (env: each argument after i, followed by its shadow if
   * it has one, in C struct layout). */
  void (*save_state)(void *state, int64_t slot, int64_t step, void *env);
  void (*load_state)(void *state, int64_t slot, int64_t step, void *env);
  void (*set_paths)(void *state, const int64_t *paths, uint64_t len);
} EnzymeCheckpointScheme;

extern int enzyme_scheme;
extern int enzyme_checkpoint_region;

void __enzyme_checkpoint_for(void *step, int64_t start, int64_t n, ...);
/* int64_t i = 0; while (step(i++, args...)); */
void __enzyme_checkpoint_while(void *step, ...);

typedef struct EnzymeCkptStats {
  int64_t forward_steps; /* steps run without their tape */
  int64_t taped_steps;   /* steps differentiated */
  int64_t stores;
  int64_t restores;
  int64_t max_slots; /* the most slots holding a snapshot at once */
  uint64_t max_bytes;
} EnzymeCkptStats;

typedef struct EnzymeCkptConfig {
  /* Revolve: snapshot slots. Periodic: segments. */
  int64_t snapshots;
  /* 1: a summary on stderr at the end; 2: every action too. */
  int verbose;
  const char *spill_dir; /* must be NULL here */
  uint64_t mem_budget;
  EnzymeCkptStats *stats; /* filled in at the end when not NULL */
} EnzymeCkptConfig;

/* ---- The reference schemes: a schedule computed at init as a list of
 * actions, and snapshots in memory. ---- */

typedef struct enzyme_rs_ckpt_schedule {
  const EnzymeCkptConfig *config;
  EnzymeCkptAction *actions;
  int64_t count, capacity, next;
  uint64_t bytes;
  /* Slot k + 2 holds slot k (the driver's -2 and -1 included). */
  void **slots;
  int64_t nslots, held;
  EnzymeCkptStats stats;
  /* A while loop still running (StoreAll): the next step, and whether the
   * state before it is stored yet. */
  int online, stored;
  int64_t pos;
} enzyme_rs_ckpt_schedule;

static inline void enzyme_rs_ckpt_fail(const char *why) {
  fprintf(stderr, "enzyme-rs checkpointing: %s\n", why);
  abort();
}

static inline void enzyme_rs_ckpt_push(enzyme_rs_ckpt_schedule *s, int32_t flag, int64_t start, int64_t iteration,
                                       int64_t slot) {
  if (s->count == s->capacity) {
    s->capacity = s->capacity ? 2 * s->capacity : 64;
    s->actions = (EnzymeCkptAction *)realloc(s->actions, (size_t)s->capacity * sizeof(EnzymeCkptAction));
    if (!s->actions)
      enzyme_rs_ckpt_fail("out of memory for the schedule");
  }
  EnzymeCkptAction *a = &s->actions[s->count++];
  a->flag = flag;
  a->startiteration = start;
  a->iteration = iteration;
  a->cpnum = slot;
}

/* Steps that s snapshots reverse with every step run at most r + 1 times:
 * the binomial coefficient (s + r choose s), saturated. */
static inline int64_t enzyme_rs_ckpt_reach(int64_t s, int64_t r) {
  double c = 1;
  for (int64_t k = 1; k <= s; k++) {
    c = c * (double)(r + k) / (double)k;
    if (c > 4e18)
      return INT64_MAX;
  }
  return (int64_t)(c + 0.5);
}

/* Reverse steps a .. b-1 with the state before step a current and held in
 * slot `held`, and `free_slots` more slots from `next_slot` on (binomial:
 * Griewank's treeverse). `first`: the forward sweep is still running. */
static inline void enzyme_rs_ckpt_binomial(enzyme_rs_ckpt_schedule *s, int64_t a, int64_t b, int64_t held,
                                           int64_t next_slot, int64_t free_slots, int first) {
  int64_t len = b - a;
  if (len == 1) {
    enzyme_rs_ckpt_push(s, first ? ENZYME_CKPT_FIRSTUTURN : ENZYME_CKPT_UTURN, a, b, held);
    return;
  }
  if (free_slots == 0) {
    /* No slot left: run forward from a to each step, last first. */
    for (int64_t j = b - 1; j >= a; j--) {
      if (j != b - 1)
        enzyme_rs_ckpt_push(s, ENZYME_CKPT_RESTORE, a, a, held);
      if (j > a)
        enzyme_rs_ckpt_push(s, ENZYME_CKPT_FORWARD, a, j, held);
      enzyme_rs_ckpt_push(s, j == b - 1 && first ? ENZYME_CKPT_FIRSTUTURN : ENZYME_CKPT_UTURN, j, j + 1, held);
    }
    return;
  }
  int64_t r = 0;
  while (enzyme_rs_ckpt_reach(free_slots, r) < len)
    r++;
  /* The right part, reversed with one slot fewer, takes as many steps as
   * it can with r repetitions; the left part the rest (at least one). */
  int64_t right = r > 0 ? enzyme_rs_ckpt_reach(free_slots - 1, r) : 1;
  int64_t left = len - right;
  if (left < 1)
    left = 1;
  if (left > len - 1)
    left = len - 1;
  int64_t m = a + left;
  enzyme_rs_ckpt_push(s, ENZYME_CKPT_FORWARD, a, m, held);
  enzyme_rs_ckpt_push(s, ENZYME_CKPT_STORE, m, m, next_slot);
  enzyme_rs_ckpt_binomial(s, m, b, next_slot, next_slot + 1, free_slots - 1, first);
  enzyme_rs_ckpt_push(s, ENZYME_CKPT_RESTORE, a, a, held);
  enzyme_rs_ckpt_binomial(s, a, m, held, next_slot, free_slots, 0);
}

/* Reverse segment a .. b-1 (its start current and held in slot `held`) by
 * saving the state before each of its steps in slots from `first_slot` on. */
static inline void enzyme_rs_ckpt_segment(enzyme_rs_ckpt_schedule *s, int64_t a, int64_t b, int64_t held,
                                          int64_t first_slot, int first) {
  /* (The segment's start is in `held` already.) */
  for (int64_t j = a; j < b - 1; j++) {
    int64_t slot = j == a ? held : first_slot + (j - a - 1);
    if (j != a)
      enzyme_rs_ckpt_push(s, ENZYME_CKPT_STORE, j, j, slot);
    enzyme_rs_ckpt_push(s, ENZYME_CKPT_FORWARD, j, j + 1, slot);
  }
  /* The state before the segment's last step is not needed again. */
  enzyme_rs_ckpt_push(s, first ? ENZYME_CKPT_FIRSTUTURN : ENZYME_CKPT_UTURN, b - 1, b, held);
  for (int64_t j = b - 2; j >= a; j--) {
    int64_t slot = j == a ? held : first_slot + (j - a - 1);
    enzyme_rs_ckpt_push(s, ENZYME_CKPT_RESTORE, j, j, slot);
    enzyme_rs_ckpt_push(s, ENZYME_CKPT_UTURN, j, j + 1, slot);
  }
}

static inline enzyme_rs_ckpt_schedule *enzyme_rs_ckpt_new_schedule(void *data, int64_t nsteps, uint64_t bytes,
                                                                   int while_loops) {
  const EnzymeCkptConfig *config = (const EnzymeCkptConfig *)data;
  if (!config)
    enzyme_rs_ckpt_fail("the scheme needs a configuration (enzyme_scheme, &scheme, &config)");
  if (config->spill_dir)
    enzyme_rs_ckpt_fail("config.spill_dir is not supported: snapshots are kept in memory");
  if (nsteps < 0 && !while_loops)
    enzyme_rs_ckpt_fail("Revolve and Periodic need the number of steps (__enzyme_checkpoint_for); a while loop "
                        "takes EnzymeCkptStoreAll");
  enzyme_rs_ckpt_schedule *s = (enzyme_rs_ckpt_schedule *)calloc(1, sizeof(*s));
  if (!s)
    enzyme_rs_ckpt_fail("out of memory");
  s->config = config;
  s->bytes = bytes;
  return s;
}

static inline void *enzyme_rs_ckpt_revolve_init(void *data, int64_t nsteps, uint64_t bytes) {
  enzyme_rs_ckpt_schedule *s = enzyme_rs_ckpt_new_schedule(data, nsteps, bytes, 0);
  int64_t slots = s->config->snapshots;
  if (slots < 1)
    enzyme_rs_ckpt_fail("Revolve needs config.snapshots >= 1");
  if (nsteps > 0) {
    enzyme_rs_ckpt_push(s, ENZYME_CKPT_STORE, 0, 0, 0);
    enzyme_rs_ckpt_binomial(s, 0, nsteps, 0, 1, slots - 1, 1);
  }
  enzyme_rs_ckpt_push(s, ENZYME_CKPT_DONE, 0, 0, -1);
  return s;
}

static inline void *enzyme_rs_ckpt_periodic_segments(void *data, int64_t nsteps, uint64_t bytes, int64_t k) {
  enzyme_rs_ckpt_schedule *s = enzyme_rs_ckpt_new_schedule(data, nsteps, bytes, 0);
  if (k < 1)
    enzyme_rs_ckpt_fail("Periodic needs config.snapshots >= 1 (the number of segments)");
  if (k > nsteps)
    k = nsteps;
  if (nsteps > 0) {
    /* Segment j covers steps j*n/k .. (j+1)*n/k - 1; its start is in slot j,
     * the steps of the segment being reversed in slots k on. */
    for (int64_t j = 0; j < k; j++) {
      int64_t a = j * nsteps / k, b = (j + 1) * nsteps / k;
      enzyme_rs_ckpt_push(s, ENZYME_CKPT_STORE, a, a, j);
      if (j + 1 < k)
        enzyme_rs_ckpt_push(s, ENZYME_CKPT_FORWARD, a, b, j);
    }
    for (int64_t j = k - 1; j >= 0; j--) {
      int64_t a = j * nsteps / k, b = (j + 1) * nsteps / k;
      if (j + 1 < k)
        enzyme_rs_ckpt_push(s, ENZYME_CKPT_RESTORE, a, a, j);
      enzyme_rs_ckpt_segment(s, a, b, j, k, j + 1 == k);
    }
  }
  enzyme_rs_ckpt_push(s, ENZYME_CKPT_DONE, 0, 0, -1);
  return s;
}

static inline void *enzyme_rs_ckpt_periodic_init(void *data, int64_t nsteps, uint64_t bytes) {
  return enzyme_rs_ckpt_periodic_segments(data, nsteps, bytes, ((const EnzymeCkptConfig *)data)->snapshots);
}

static inline void *enzyme_rs_ckpt_store_all_init(void *data, int64_t nsteps, uint64_t bytes) {
  if (nsteps >= 0)
    return enzyme_rs_ckpt_periodic_segments(data, nsteps, bytes, 1);
  /* A while loop: the state before each step goes into slot pos until the
   * loop ends (set_nsteps). */
  enzyme_rs_ckpt_schedule *s = enzyme_rs_ckpt_new_schedule(data, nsteps, bytes, 1);
  s->online = 1;
  return s;
}

static inline void enzyme_rs_ckpt_store_all_set_nsteps(void *state, int64_t n) {
  enzyme_rs_ckpt_schedule *s = (enzyme_rs_ckpt_schedule *)state;
  if (!s->online || n < 1 || n != s->pos)
    enzyme_rs_ckpt_fail("the while loop ended where the schedule did not expect it");
  s->online = 0;
  s->count = s->next = 0;
  /* From the state after the last step back to the one before it. */
  enzyme_rs_ckpt_push(s, ENZYME_CKPT_RESTORE, n - 1, n - 1, n - 1);
  enzyme_rs_ckpt_push(s, ENZYME_CKPT_FIRSTUTURN, n - 1, n, n - 1);
  for (int64_t j = n - 2; j >= 0; j--) {
    enzyme_rs_ckpt_push(s, ENZYME_CKPT_RESTORE, j, j, j);
    enzyme_rs_ckpt_push(s, ENZYME_CKPT_UTURN, j, j + 1, j);
  }
  enzyme_rs_ckpt_push(s, ENZYME_CKPT_DONE, 0, 0, -1);
}

static inline void enzyme_rs_ckpt_next(void *state, EnzymeCkptAction *out) {
  enzyme_rs_ckpt_schedule *s = (enzyme_rs_ckpt_schedule *)state;
  if (s->online) {
    /* Store before the step, then run it. */
    out->startiteration = out->iteration = out->cpnum = s->pos;
    if (!s->stored) {
      out->flag = ENZYME_CKPT_STORE;
    } else {
      out->flag = ENZYME_CKPT_FORWARD;
      out->iteration = ++s->pos;
      s->stats.forward_steps++;
    }
    s->stored = !s->stored;
    return;
  }
  if (s->next >= s->count)
    enzyme_rs_ckpt_fail("the schedule was asked for an action after it was done");
  *out = s->actions[s->next++];
  if (out->flag == ENZYME_CKPT_FORWARD)
    s->stats.forward_steps += out->iteration - out->startiteration;
  if (out->flag == ENZYME_CKPT_FIRSTUTURN || out->flag == ENZYME_CKPT_UTURN)
    s->stats.taped_steps++;
  if (s->config->verbose > 1)
    fprintf(stderr, "enzyme-rs checkpointing: action %d, steps %lld to %lld, slot %lld\n", (int)out->flag,
            (long long)out->startiteration, (long long)out->iteration, (long long)out->cpnum);
}

static inline void enzyme_rs_ckpt_put(void *state, int64_t slot, int64_t step, const EnzymeCkptRegion *regions,
                                      uint64_t nregions) {
  enzyme_rs_ckpt_schedule *s = (enzyme_rs_ckpt_schedule *)state;
  (void)step;
  if (slot < -2)
    enzyme_rs_ckpt_fail("a store into a negative slot");
  int64_t k = slot + 2;
  if (k >= s->nslots) {
    int64_t n = s->nslots ? s->nslots : 8;
    while (n <= k)
      n *= 2;
    s->slots = (void **)realloc(s->slots, (size_t)n * sizeof(void *));
    if (!s->slots)
      enzyme_rs_ckpt_fail("out of memory");
    for (int64_t j = s->nslots; j < n; j++)
      s->slots[j] = NULL;
    s->nslots = n;
  }
  if (!s->slots[k]) {
    s->slots[k] = malloc(s->bytes ? s->bytes : 1);
    if (!s->slots[k])
      enzyme_rs_ckpt_fail("out of memory for a snapshot");
    if (slot >= 0 && ++s->held > s->stats.max_slots) {
      s->stats.max_slots = s->held;
      s->stats.max_bytes = (uint64_t)s->held * s->bytes;
    }
  }
  char *p = (char *)s->slots[k];
  for (uint64_t r = 0; r < nregions; r++) {
    if (regions[r].addrspace)
      enzyme_rs_ckpt_fail("regions in device memory are not supported");
    memcpy(p, regions[r].ptr, regions[r].bytes);
    p += regions[r].bytes;
  }
  if (slot >= 0)
    s->stats.stores++;
}

static inline void enzyme_rs_ckpt_get(void *state, int64_t slot, int64_t step, const EnzymeCkptRegion *regions,
                                      uint64_t nregions) {
  enzyme_rs_ckpt_schedule *s = (enzyme_rs_ckpt_schedule *)state;
  (void)step;
  int64_t k = slot + 2;
  if (slot < -2 || k >= s->nslots || !s->slots[k])
    enzyme_rs_ckpt_fail("a restore of a slot never stored");
  const char *p = (const char *)s->slots[k];
  for (uint64_t r = 0; r < nregions; r++) {
    memcpy(regions[r].ptr, p, regions[r].bytes);
    p += regions[r].bytes;
  }
  if (slot >= 0)
    s->stats.restores++;
}

static inline void enzyme_rs_ckpt_finalize(void *state) {
  enzyme_rs_ckpt_schedule *s = (enzyme_rs_ckpt_schedule *)state;
  if (s->config->verbose > 0)
    fprintf(stderr,
            "enzyme-rs checkpointing: %lld steps run again, %lld differentiated, %lld stores, %lld restores, "
            "%lld slots (%llu bytes)\n",
            (long long)s->stats.forward_steps, (long long)s->stats.taped_steps, (long long)s->stats.stores,
            (long long)s->stats.restores, (long long)s->stats.max_slots, (unsigned long long)s->stats.max_bytes);
  if (s->config->stats)
    *s->config->stats = s->stats;
  for (int64_t k = 0; k < s->nslots; k++)
    free(s->slots[k]);
  free(s->slots);
  free(s->actions);
  free(s);
}

static const EnzymeCheckpointScheme EnzymeCkptRevolve = {
    ENZYME_CKPT_ABI_VERSION, enzyme_rs_ckpt_revolve_init, enzyme_rs_ckpt_next, enzyme_rs_ckpt_put,
    enzyme_rs_ckpt_get,      NULL,                        enzyme_rs_ckpt_finalize, NULL, NULL, NULL};
static const EnzymeCheckpointScheme EnzymeCkptPeriodic = {
    ENZYME_CKPT_ABI_VERSION, enzyme_rs_ckpt_periodic_init, enzyme_rs_ckpt_next, enzyme_rs_ckpt_put,
    enzyme_rs_ckpt_get,      NULL,                         enzyme_rs_ckpt_finalize, NULL, NULL, NULL};
static const EnzymeCheckpointScheme EnzymeCkptStoreAll = {ENZYME_CKPT_ABI_VERSION,
                                                          enzyme_rs_ckpt_store_all_init,
                                                          enzyme_rs_ckpt_next,
                                                          enzyme_rs_ckpt_put,
                                                          enzyme_rs_ckpt_get,
                                                          enzyme_rs_ckpt_store_all_set_nsteps,
                                                          enzyme_rs_ckpt_finalize,
                                                          NULL,
                                                          NULL,
                                                          NULL};

/* ---- The driver the derivatives call (weak: one copy per program). ---- */

/* Runs step i; returns whether a while loop goes on (1 for a for loop). */
typedef int (*enzyme_rs_ckpt_primal)(void *env, int64_t i);
/* Differentiates step i. */
typedef void (*enzyme_rs_ckpt_gradient)(void *env, int64_t i);

typedef struct enzyme_rs_ckpt_run {
  const EnzymeCheckpointScheme *scheme;
  void *state;
  EnzymeCkptRegion *regions;
  uint64_t nregions;
  int64_t start;
  int64_t nsteps; /* -1 while a while loop runs */
  void *env;
} enzyme_rs_ckpt_run;

static inline void enzyme_rs_ckpt_save(enzyme_rs_ckpt_run *run, int64_t slot, int64_t step) {
  if (run->scheme->store)
    run->scheme->store(run->state, slot, step, run->regions, run->nregions);
  else if (run->scheme->save_state)
    run->scheme->save_state(run->state, slot, step, run->env);
  else
    enzyme_rs_ckpt_fail("the scheme has neither store nor save_state");
}

static inline void enzyme_rs_ckpt_load(enzyme_rs_ckpt_run *run, int64_t slot, int64_t step) {
  if (run->scheme->restore)
    run->scheme->restore(run->state, slot, step, run->regions, run->nregions);
  else if (run->scheme->load_state)
    run->scheme->load_state(run->state, slot, step, run->env);
  else
    enzyme_rs_ckpt_fail("the scheme has neither restore nor load_state");
}

/* Steps a .. b-1. A while loop whose step says stop ends there: the scheme
 * is told the number of steps. */
static inline void enzyme_rs_ckpt_run_steps(enzyme_rs_ckpt_run *run, enzyme_rs_ckpt_primal primal, int64_t a,
                                            int64_t b) {
  if (a < 0 || a > b || (run->nsteps >= 0 && b > run->nsteps))
    enzyme_rs_ckpt_fail("the scheme asked for steps outside the loop");
  for (int64_t j = a; j < b; j++) {
    if (!primal(run->env, run->start + j) && run->nsteps < 0) {
      run->nsteps = j + 1;
      if (!run->scheme->set_nsteps)
        enzyme_rs_ckpt_fail("the scheme cannot take a while loop (it has no set_nsteps)");
      run->scheme->set_nsteps(run->state, run->nsteps);
      return;
    }
  }
}

/* The forward sweep: the loop runs to its end under the scheme's schedule
 * (nsteps -1: a while loop, run until its step says stop). */
__attribute__((weak, used)) void *enzyme_rs_ckpt_forward(const EnzymeCheckpointScheme *scheme, void *config,
                                                         int64_t start, int64_t nsteps,
                                                         const EnzymeCkptRegion *regions, uint64_t nregions,
                                                         void *env, enzyme_rs_ckpt_primal primal) {
  if (!scheme || scheme->version != ENZYME_CKPT_ABI_VERSION || !scheme->init || !scheme->next_action)
    enzyme_rs_ckpt_fail("not a checkpointing scheme of this version (ENZYME_CKPT_ABI_VERSION 1)");
  if (scheme->store == NULL && scheme->save_state == NULL)
    enzyme_rs_ckpt_fail("the scheme has neither store nor save_state");
  int is_while = nsteps < 0;
  enzyme_rs_ckpt_run *run = (enzyme_rs_ckpt_run *)calloc(1, sizeof(*run));
  if (!run)
    enzyme_rs_ckpt_fail("out of memory");
  uint64_t bytes = 0;
  run->regions = (EnzymeCkptRegion *)malloc((nregions ? nregions : 1) * sizeof(EnzymeCkptRegion));
  for (uint64_t r = 0; r < nregions; r++) {
    run->regions[r] = regions[r];
    bytes += regions[r].bytes;
  }
  run->scheme = scheme;
  run->nregions = nregions;
  run->start = start;
  run->nsteps = is_while ? -1 : nsteps;
  run->env = env;
  run->state = scheme->init(config, run->nsteps, bytes);
  for (;;) {
    EnzymeCkptAction a;
    scheme->next_action(run->state, &a);
    switch (a.flag) {
    case ENZYME_CKPT_STORE:
      enzyme_rs_ckpt_save(run, a.cpnum, a.iteration);
      break;
    case ENZYME_CKPT_FORWARD:
      if (run->nsteps >= 0 && is_while && a.iteration > run->nsteps)
        enzyme_rs_ckpt_fail("the scheme asked for steps past the end of the while loop");
      enzyme_rs_ckpt_run_steps(run, primal, a.startiteration, a.iteration);
      break;
    case ENZYME_CKPT_RESTORE:
      /* Back from the end of a while loop towards its first turn. */
      if (!is_while || run->nsteps < 0)
        enzyme_rs_ckpt_fail("a restore before the first turn");
      enzyme_rs_ckpt_load(run, a.cpnum, a.iteration);
      break;
    case ENZYME_CKPT_FIRSTUTURN:
      if (run->nsteps < 0 || a.iteration != run->nsteps)
        enzyme_rs_ckpt_fail("the first turn is not at the last step");
      enzyme_rs_ckpt_save(run, -2, run->nsteps - 1);
      enzyme_rs_ckpt_run_steps(run, primal, run->nsteps - 1, run->nsteps);
      enzyme_rs_ckpt_save(run, -1, run->nsteps);
      return run;
    case ENZYME_CKPT_DONE:
      if (run->nsteps != 0)
        enzyme_rs_ckpt_fail("the schedule ended before the loop did");
      return run;
    default:
      enzyme_rs_ckpt_fail("an action the forward sweep cannot take (a turn before the first)");
    }
  }
}

/* The reverse sweep: each step differentiated once, last first. */
__attribute__((weak, used)) void enzyme_rs_ckpt_reverse(void *handle, enzyme_rs_ckpt_primal primal,
                                                        enzyme_rs_ckpt_gradient gradient) {
  enzyme_rs_ckpt_run *run = (enzyme_rs_ckpt_run *)handle;
  if (run->nsteps > 0) {
    enzyme_rs_ckpt_load(run, -2, run->nsteps - 1);
    gradient(run->env, run->start + run->nsteps - 1);
    for (;;) {
      EnzymeCkptAction a;
      run->scheme->next_action(run->state, &a);
      if (a.flag == ENZYME_CKPT_DONE)
        break;
      switch (a.flag) {
      case ENZYME_CKPT_STORE:
        enzyme_rs_ckpt_save(run, a.cpnum, a.iteration);
        break;
      case ENZYME_CKPT_RESTORE:
        enzyme_rs_ckpt_load(run, a.cpnum, a.iteration);
        break;
      case ENZYME_CKPT_FORWARD:
        enzyme_rs_ckpt_run_steps(run, primal, a.startiteration, a.iteration);
        break;
      case ENZYME_CKPT_UTURN:
        if (a.iteration < 1 || a.iteration > run->nsteps)
          enzyme_rs_ckpt_fail("a turn outside the loop");
        gradient(run->env, run->start + a.iteration - 1);
        break;
      default:
        enzyme_rs_ckpt_fail("an action the reverse sweep cannot take");
      }
    }
    enzyme_rs_ckpt_load(run, -1, run->nsteps);
  }
  if (run->scheme->finalize)
    run->scheme->finalize(run->state);
  free(run->regions);
  free(run);
}

#ifdef __cplusplus
}
#endif

#endif
