/* Checkpointed time loops (enzyme/checkpoint.h): `__enzyme_checkpoint_for`
 * with the Revolve, Periodic and StoreAll schemes and one scheme of the
 * test's own (driven through the action protocol, counting what it is
 * asked). The integration: m coupled nonlinear oscillators, x (positions
 * and velocities, updated in place), a parameter vector p (read only,
 * with a shadow), a float parameter k passed by value (its adjoint summed
 * over the steps), and a global step counter the step writes (held by the
 * snapshots without being named). Every gradient is checked against the
 * same loop without checkpointing (reverse mode, exact up to rounding),
 * against forward mode (one direction per input), and against central
 * differences; the schemes' statistics against their schedules' shapes. */
#include <enzyme/checkpoint.h>
#include <string.h>
#include "check.h"

#define M 4
#define STEPS 200
#define DT 0.01

static long steps_taken; /* written by the step: the snapshots hold it */

static void step(int64_t i, double *x, const double *p, double k) {
  double a[M];
  /* The step number enters (a forcing that grows with time), and so does
   * the global, which a restore must bring back for the step to be the same. */
  double force = 0.1 * sin(0.05 * (double)i) + 1e-4 * (double)(steps_taken % 7);
  for (int j = 0; j < M; j++) {
    double left = j > 0 ? x[j - 1] : 0, right = j + 1 < M ? x[j + 1] : 0;
    a[j] = -p[j] * sin(x[j]) + k * (left + right - 2 * x[j]) + force;
  }
  for (int j = 0; j < M; j++) {
    x[M + j] += DT * a[j];
    x[j] += DT * x[M + j];
  }
  steps_taken++;
}

static const EnzymeCheckpointScheme *scheme;
static EnzymeCkptConfig config;

static double plain(double *x, const double *p, double k) {
  steps_taken = 0;
  for (int64_t i = 0; i < STEPS; i++)
    step(i, x, p, k);
  double s = 0;
  for (int j = 0; j < 2 * M; j++)
    s += x[j] * x[j] * (1 + 0.1 * j);
  return s;
}

static double checkpointed(double *x, const double *p, double k) {
  steps_taken = 0;
  __enzyme_checkpoint_for((void *)step, 0, STEPS, enzyme_scheme, scheme, &config, enzyme_checkpoint_region, x,
                          sizeof(double) * 2 * M, x, p, k);
  double s = 0;
  for (int j = 0; j < 2 * M; j++)
    s += x[j] * x[j] * (1 + 0.1 * j);
  return s;
}

/* A scheme of the test's own: store before every step, as a plain list of
 * actions, with its snapshot copies counted. */
typedef struct {
  EnzymeCkptAction *list;
  int64_t count, next;
  uint64_t bytes;
  char *slots;
  int64_t stores, restores;
} own_state;

static own_state *last_own;

static void *own_init(void *data, int64_t n, uint64_t bytes) {
  (void)data;
  own_state *s = calloc(1, sizeof *s);
  s->list = calloc((size_t)(4 * n + 2), sizeof(EnzymeCkptAction));
  s->bytes = bytes;
  s->slots = calloc((size_t)(n + 2), bytes ? bytes : 1);
  int64_t c = 0;
  for (int64_t j = 0; j + 1 < n; j++) {
    s->list[c++] = (EnzymeCkptAction){ENZYME_CKPT_STORE, j, j, j};
    s->list[c++] = (EnzymeCkptAction){ENZYME_CKPT_FORWARD, j + 1, j, j};
  }
  if (n > 0)
    s->list[c++] = (EnzymeCkptAction){ENZYME_CKPT_FIRSTUTURN, n, n - 1, -1};
  for (int64_t j = n - 2; j >= 0; j--) {
    s->list[c++] = (EnzymeCkptAction){ENZYME_CKPT_RESTORE, j, j, j};
    s->list[c++] = (EnzymeCkptAction){ENZYME_CKPT_UTURN, j + 1, j, j};
  }
  s->list[c++] = (EnzymeCkptAction){ENZYME_CKPT_DONE, 0, 0, -1};
  s->count = c;
  last_own = s;
  return s;
}
static void own_next(void *state, EnzymeCkptAction *out) {
  own_state *s = state;
  *out = s->list[s->next++];
}
static char *own_slot(own_state *s, int64_t slot) { return s->slots + (size_t)(slot + 2) * s->bytes; }
static void own_store(void *state, int64_t slot, int64_t step, const EnzymeCkptRegion *r, uint64_t n) {
  own_state *s = state;
  (void)step;
  char *p = own_slot(s, slot);
  for (uint64_t j = 0; j < n; p += r[j].bytes, j++)
    memcpy(p, r[j].ptr, r[j].bytes);
  s->stores++;
}
static void own_restore(void *state, int64_t slot, int64_t step, const EnzymeCkptRegion *r, uint64_t n) {
  own_state *s = state;
  (void)step;
  const char *p = own_slot(s, slot);
  for (uint64_t j = 0; j < n; p += r[j].bytes, j++)
    memcpy(r[j].ptr, p, r[j].bytes);
  s->restores++;
}
static int64_t own_stores, own_restores, own_actions;
static void own_finalize(void *state) {
  own_state *s = state;
  own_stores = s->stores, own_restores = s->restores, own_actions = s->next;
  free(s->list);
  free(s->slots);
  free(s);
}
static const EnzymeCheckpointScheme own = {ENZYME_CKPT_ABI_VERSION, own_init, own_next, own_store, own_restore,
                                           NULL, own_finalize, NULL, NULL, NULL};

/* The same schedule, the scheme copying the state itself from the step's
 * arguments (save_state/load_state): each argument after i followed by its
 * shadow if it has one. */
typedef struct {
  double *x, *dx;
  const double *p, *dp;
  double k;
} step_env;
static int64_t env_saves;
static void own_save(void *state, int64_t slot, int64_t step, void *env) {
  step_env *e = env;
  own_state *s = state;
  (void)step;
  if (e->x == NULL || e->dx == NULL || e->p == NULL || e->dp == NULL || e->k != 0.7)
    abort();
  memcpy(own_slot(s, slot), e->x, s->bytes);
  env_saves++;
}
static void own_load(void *state, int64_t slot, int64_t step, void *env) {
  step_env *e = env;
  (void)step;
  memcpy(e->x, own_slot(state, slot), ((own_state *)state)->bytes);
}
static void *own_env_init(void *data, int64_t n, uint64_t bytes) {
  (void)bytes;
  return own_init(data, n, sizeof(double) * 2 * M + sizeof(long));
}
static const EnzymeCheckpointScheme own_env = {ENZYME_CKPT_ABI_VERSION, own_env_init, own_next, NULL, NULL, NULL,
                                               own_finalize, own_save, own_load, NULL};

static void start_state(double *x, double *p) {
  for (int j = 0; j < M; j++) {
    x[j] = 0.3 + 0.2 * j;
    x[M + j] = 0.1 * (j % 2 ? -1 : 1);
    p[j] = 1.0 + 0.25 * j;
  }
}

typedef double (*loss_fn)(double *, const double *, double);

/* The gradient of `f` in x (at the start), p and k. */
static void gradient(loss_fn f, double *gx, double *gp, double *gk) {
  double x[2 * M], p[M];
  start_state(x, p);
  memset(gx, 0, sizeof(double) * 2 * M);
  memset(gp, 0, sizeof(double) * M);
  *gk = __enzyme_autodiff((void *)f, enzyme_dup, x, gx, enzyme_dup, p, gp, enzyme_out, 0.7);
}

/* A step numbered by an `int`, with a pointer that carries no derivative
 * (enzyme_const), in a checkpointed loop called three times from a loop of
 * the caller (each call's schedule kept until its reverse), plus an empty one. */
static void step_int(int i, double *y, const double *c) {
  y[0] = y[0] + 0.05 * sin(y[1] + c[0] * i);
  y[1] = y[1] * (1 - 0.01 * c[1]) + 0.02 * y[0] * y[0];
}

static double rounds_plain(double *y, const double *c) {
  for (int r = 0; r < 3; r++) {
    for (int i = 10 * r; i < 10 * r + 10; i++)
      step_int(i, y, c);
    y[1] += 0.1 * y[0];
  }
  return y[0] * y[1];
}

static double rounds_checkpointed(double *y, const double *c) {
  static EnzymeCkptConfig two = {2, 0, NULL, 0, NULL};
  for (int r = 0; r < 3; r++) {
    __enzyme_checkpoint_for((void *)step_int, 10 * r, 10, enzyme_scheme, &EnzymeCkptRevolve, &two,
                            enzyme_checkpoint_region, y, 2 * sizeof(double), y, c);
    __enzyme_checkpoint_for((void *)step_int, 0, 0, enzyme_scheme, &EnzymeCkptRevolve, &two,
                            enzyme_checkpoint_region, y, 2 * sizeof(double), y, c);
    y[1] += 0.1 * y[0];
  }
  return y[0] * y[1];
}

static void check_rounds(void) {
  const double c[2] = {0.3, 2.0};
  double y[2] = {0.4, 0.9}, dy[2] = {0};
  double z[2] = {0.4, 0.9}, dz[2] = {0};
  __enzyme_autodiff((void *)rounds_plain, enzyme_dup, y, dy, enzyme_const, c);
  __enzyme_autodiff((void *)rounds_checkpointed, enzyme_dup, z, dz, enzyme_const, c);
  CHECK("rounds: d/dy0 against no checkpointing", dz[0], dy[0], 1e-11);
  CHECK("rounds: d/dy1 against no checkpointing", dz[1], dy[1], 1e-11);
  for (int j = 0; j < 2; j++) {
    double h = 1e-6, a[2] = {0.4, 0.9}, b[2] = {0.4, 0.9};
    a[j] += h, b[j] -= h;
    double fd = (rounds_plain(a, c) - rounds_plain(b, c)) / (2 * h);
    CHECK("rounds: central difference", dz[j], fd, 1e-6);
    double t[2] = {0.4, 0.9}, dt[2] = {0};
    dt[j] = 1;
    double tan = __enzyme_fwddiff((void *)rounds_checkpointed, enzyme_dup, t, dt, enzyme_const, c);
    CHECK("rounds: forward against reverse", tan, dz[j], 1e-10);
  }
}

/* A while loop (`__enzyme_checkpoint_while`, StoreAll): halve the step size
 * until the state settles; the number of steps is known only at the end. */
static int settle(int64_t i, double *y, const double *tol) {
  double old = y[0];
  y[0] = y[0] - 0.3 * (y[0] * y[0] * y[0] - y[1]) / (1 + 0.01 * (double)i);
  return fabs(y[0] - old) > *tol && i < 1000;
}

static double settle_plain(double *y, const double *tol) {
  int64_t i = 0;
  while (settle(i++, y, tol))
    ;
  return y[0] * y[0];
}

static EnzymeCkptStats settle_stats; /* filled in when the reverse sweep ends */
static double settle_checkpointed(double *y, const double *tol) {
  static EnzymeCkptConfig cfg = {0, 0, NULL, 0, &settle_stats};
  __enzyme_checkpoint_while((void *)settle, enzyme_scheme, &EnzymeCkptStoreAll, &cfg, enzyme_checkpoint_region, y,
                            2 * sizeof(double), y, tol);
  return y[0] * y[0];
}

static void check_while(void) {
  const double tol = 1e-9;
  double y[2] = {1.0, 2.0}, dy[2] = {0}, z[2] = {1.0, 2.0}, dz[2] = {0};
  __enzyme_autodiff((void *)settle_plain, enzyme_dup, y, dy, enzyme_const, &tol);
  __enzyme_autodiff((void *)settle_checkpointed, enzyme_dup, z, dz, enzyme_const, &tol);
  CHECK("while: d/dy0 against no checkpointing", dz[0], dy[0], 1e-11);
  CHECK("while: d/dy1 against no checkpointing", dz[1], dy[1], 1e-11);
  CHECK("while: the loop's end state", z[0], y[0], 1e-15);
  int64_t n = 0;
  double w[2] = {1.0, 2.0};
  while (settle(n++, w, &tol))
    ;
  CHECK("while: each step differentiated once", (double)settle_stats.taped_steps, (double)n, 0);
  /* The fixed point of y0 -> y0^3 = y1: d(y0^2)/dy1 = 2 y0 / (3 y0^2). */
  CHECK("while: d/dy1 against the fixed point's", dz[1], 2 * y[0] / (3 * y[0] * y[0]), 1e-6);
  double t[2] = {1.0, 2.0}, dt[2] = {0, 1};
  double tan = __enzyme_fwddiff((void *)settle_checkpointed, enzyme_dup, t, dt, enzyme_const, &tol);
  CHECK("while: forward against reverse", tan, dz[1], 1e-10);
}

/* Forward vector mode (two lanes) over a checkpointed loop: a loop there. */
typedef struct {
  double a, b;
} lanes2;
lanes2 __enzyme_fwddiff_2(void *, ...);
extern int enzyme_width, enzyme_dupv;
static void check_vector(void) {
  const double c[2] = {0.3, 2.0};
  double y[2] = {0.4, 0.9}, dy[2][2] = {{1, 0}, {0, 1}};
  lanes2 t = __enzyme_fwddiff_2((void *)rounds_checkpointed, enzyme_width, 2, enzyme_dupv, sizeof dy[0], y,
                                &dy[0][0], enzyme_const, c);
  double z[2] = {0.4, 0.9}, dz[2] = {0};
  __enzyme_autodiff((void *)rounds_plain, enzyme_dup, z, dz, enzyme_const, c);
  CHECK("forward vector mode, lane 0, against reverse", t.a, dz[0], 1e-10);
  CHECK("forward vector mode, lane 1, against reverse", t.b, dz[1], 1e-10);
}

int main(void) {
  check_rounds();
  check_vector();
  check_while();
  double rx[2 * M], rp[M], rk;
  gradient(plain, rx, rp, &rk);

  EnzymeCkptStats stats;
  struct {
    const char *name;
    const EnzymeCheckpointScheme *scheme;
    int64_t snapshots;
  } cases[] = {
      {"revolve(3)", &EnzymeCkptRevolve, 3},   {"revolve(14)", &EnzymeCkptRevolve, 14},
      {"revolve(1)", &EnzymeCkptRevolve, 1},   {"periodic(14)", &EnzymeCkptPeriodic, 14},
      {"store all", &EnzymeCkptStoreAll, 0},   {"own scheme", &own, 0},
      {"own scheme copying the arguments", &own_env, 0},
  };
  for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    scheme = cases[c].scheme;
    config = (EnzymeCkptConfig){cases[c].snapshots, 0, NULL, 0, &stats};
    memset(&stats, 0, sizeof stats);
    double gx[2 * M], gp[M], gk;
    gradient(checkpointed, gx, gp, &gk);
    char what[96];
    for (int j = 0; j < 2 * M; j++) {
      snprintf(what, sizeof what, "%s: d/dx%d against no checkpointing", cases[c].name, j);
      CHECK(what, gx[j], rx[j], 1e-11);
    }
    for (int j = 0; j < M; j++) {
      snprintf(what, sizeof what, "%s: d/dp%d against no checkpointing", cases[c].name, j);
      CHECK(what, gp[j], rp[j], 1e-11);
    }
    snprintf(what, sizeof what, "%s: d/dk against no checkpointing", cases[c].name);
    CHECK(what, gk, rk, 1e-11);
    /* Each step differentiated once; memory as the scheme promises. */
    if (cases[c].scheme == &own_env) {
      CHECK("own scheme copying the arguments: saves", (double)env_saves, STEPS + 1, 0);
    } else if (cases[c].scheme == &own) {
      CHECK("own scheme: stores (one per step but the last, two of the driver's)", (double)own_stores, STEPS + 1, 0);
      CHECK("own scheme: restores (one per step but the last, two of the driver's)", (double)own_restores,
            STEPS + 1, 0);
      CHECK("own scheme: every action taken", (double)own_actions, 4 * STEPS - 2, 0);
    } else {
      snprintf(what, sizeof what, "%s: steps differentiated", cases[c].name);
      CHECK(what, (double)stats.taped_steps, STEPS, 0);
      if (cases[c].scheme == &EnzymeCkptRevolve) {
        snprintf(what, sizeof what, "%s: snapshots held at most", cases[c].name);
        CHECK(what, (double)(stats.max_slots <= cases[c].snapshots), 1, 0);
      }
    }
    /* The primal state after the gradient is the loop's final state. */
    double x[2 * M], p[M], y[2 * M], q[M];
    start_state(x, p);
    start_state(y, q);
    double want = plain(x, p, 0.7), got = checkpointed(y, q, 0.7);
    snprintf(what, sizeof what, "%s: the loop run as it is", cases[c].name);
    CHECK(what, got, want, 1e-14);
  }
  /* Forward mode over the checkpointed loop (a loop), and differences. */
  scheme = &EnzymeCkptRevolve;
  config = (EnzymeCkptConfig){3, 0, NULL, 0, NULL};
  for (int j = 0; j < 2 * M + M + 1; j++) {
    double x[2 * M], p[M], dx[2 * M] = {0}, dp[M] = {0}, dk = 0;
    start_state(x, p);
    if (j < 2 * M)
      dx[j] = 1;
    else if (j < 3 * M)
      dp[j - 2 * M] = 1;
    else
      dk = 1;
    double t = __enzyme_fwddiff((void *)checkpointed, enzyme_dup, x, dx, enzyme_dup, p, dp, 0.7, dk);
    double r = j < 2 * M ? rx[j] : j < 3 * M ? rp[j - 2 * M] : rk;
    char what[64];
    snprintf(what, sizeof what, "forward against reverse, input %d", j);
    CHECK(what, t, r, 1e-10);
    /* Central difference of the plain loop. */
    double h = 1e-6, xa[2 * M], pa[M], xb[2 * M], pb[M], ka = 0.7, kb = 0.7;
    start_state(xa, pa);
    start_state(xb, pb);
    if (j < 2 * M)
      xa[j] += h, xb[j] -= h;
    else if (j < 3 * M)
      pa[j - 2 * M] += h, pb[j - 2 * M] -= h;
    else
      ka += h, kb -= h;
    double fd = (plain(xa, pa, ka) - plain(xb, pb, kb)) / (2 * h);
    snprintf(what, sizeof what, "central difference, input %d", j);
    CHECK(what, r, fd, 1e-6);
  }
  if (check_failures) {
    printf("%d of %d checks failed\n", check_failures, check_count);
    return 1;
  }
  printf("checkpointed loops: %d checks passed\n", check_count);
  return 0;
}
