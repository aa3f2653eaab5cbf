/* Checkpointed time loops: the gradient of a 10^4-step integration (a chain
 * of M nonlinear oscillators, semi-implicit Euler, state updated in place)
 * with respect to the initial state and the parameters, taped whole (plain
 * reverse mode) and under enzyme/checkpoint.h's schemes.
 * Usage: integrate VARIANT   prints "ms peak_MB recomputed_steps slots"
 *        integrate --check   checks every variant against plain reverse mode
 *                            (1e-10) and plain reverse mode against central
 *                            differences (1e-6), with fewer steps
 * VARIANT: primal, plain, revolve10, revolve100, periodic100, storeall. */
#include <enzyme/checkpoint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

#define M 64
#define DT 1e-3

static int64_t steps = 10000;

static void step(int64_t i, double *x, const double *p) {
  double a[M];
  double force = 0.1 * sin(1e-3 * (double)i);
  for (int j = 0; j < M; j++) {
    double left = j > 0 ? x[j - 1] : 0, right = j + 1 < M ? x[j + 1] : 0;
    a[j] = -p[j] * sin(x[j]) + 0.5 * (left + right - 2 * x[j]) - 0.01 * x[M + j] + force;
  }
  for (int j = 0; j < M; j++) {
    x[M + j] += DT * a[j];
    x[j] += DT * x[M + j];
  }
}

static double loss(const double *x) {
  double s = 0;
  for (int j = 0; j < 2 * M; j++)
    s += x[j] * x[j];
  return s;
}

static double plain(double *x, const double *p) {
  for (int64_t i = 0; i < steps; i++)
    step(i, x, p);
  return loss(x);
}

static const EnzymeCheckpointScheme *scheme;
static EnzymeCkptConfig config;

static double checkpointed(double *x, const double *p) {
  __enzyme_checkpoint_for((void *)step, 0, steps, enzyme_scheme, scheme, &config, enzyme_checkpoint_region, x,
                          sizeof(double) * 2 * M, x, p);
  return loss(x);
}

static void start(double *x, double *p) {
  for (int j = 0; j < M; j++) {
    x[j] = 0.5 * sin(0.3 * j);
    x[M + j] = 0;
    p[j] = 1 + 0.01 * j;
  }
}

static void gradient(double (*f)(double *, const double *), double *gx, double *gp) {
  double x[2 * M], p[M];
  start(x, p);
  memset(gx, 0, sizeof(double) * 2 * M);
  memset(gp, 0, sizeof(double) * M);
  __enzyme_autodiff((void *)f, enzyme_dup, x, gx, enzyme_dup, p, gp);
}

static int choose(const char *v) {
  if (!strcmp(v, "revolve10"))
    scheme = &EnzymeCkptRevolve, config.snapshots = 10;
  else if (!strcmp(v, "revolve100"))
    scheme = &EnzymeCkptRevolve, config.snapshots = 100;
  else if (!strcmp(v, "periodic100"))
    scheme = &EnzymeCkptPeriodic, config.snapshots = 100;
  else if (!strcmp(v, "storeall"))
    scheme = &EnzymeCkptStoreAll, config.snapshots = 0;
  else
    return 0;
  return 1;
}

static int check(void) {
  const char *variants[] = {"revolve10", "revolve100", "periodic100", "storeall"};
  int bad = 0;
  steps = 1000;
  double rx[2 * M], rp[M];
  gradient(plain, rx, rp);
  for (int j = 0; j < 3 * M; j += 17) {
    double h = 1e-6, xa[2 * M], pa[M], xb[2 * M], pb[M];
    start(xa, pa);
    start(xb, pb);
    if (j < 2 * M)
      xa[j] += h, xb[j] -= h;
    else
      pa[j - 2 * M] += h, pb[j - 2 * M] -= h;
    double fd = (plain(xa, pa) - plain(xb, pb)) / (2 * h), g = j < 2 * M ? rx[j] : rp[j - 2 * M];
    if (!(fabs(fd - g) <= 1e-6 * (1 + fabs(g))))
      printf("plain: input %d: %.15g, central difference %.15g\n", j, g, fd), bad++;
  }
  for (unsigned v = 0; v < 4; v++) {
    choose(variants[v]);
    double gx[2 * M], gp[M];
    gradient(checkpointed, gx, gp);
    for (int j = 0; j < 3 * M; j++) {
      double g = j < 2 * M ? gx[j] : gp[j - 2 * M], r = j < 2 * M ? rx[j] : rp[j - 2 * M];
      if (!(fabs(g - r) <= 1e-10 * (1 + fabs(r))))
        printf("%s: input %d: %.15g, plain reverse %.15g\n", variants[v], j, g, r), bad++;
    }
  }
  printf("checkpointed integration: %s\n", bad ? "FAILED" : "gradients agree");
  return bad != 0;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  if (!strcmp(argv[1], "--check"))
    return check();
  int primal = !strcmp(argv[1], "primal"), whole = !strcmp(argv[1], "plain");
  if (!primal && !whole && !choose(argv[1]))
    return 2;
  EnzymeCkptStats stats = {0};
  config.stats = &stats;
  double best = 1e30, sink = 0;
  for (int r = 0; r < 3; r++) {
    double t0 = now_ms();
    if (primal) {
      double x[2 * M], p[M];
      start(x, p);
      sink += plain(x, p);
    } else {
      double gx[2 * M], gp[M];
      gradient(whole ? plain : checkpointed, gx, gp);
      sink += gx[0];
    }
    double t = now_ms() - t0;
    if (t < best)
      best = t;
  }
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  printf("%.2f %.1f %lld %lld %s\n", best, u.ru_maxrss / 1024.0, (long long)stats.forward_steps,
         (long long)stats.max_slots, sink == sink ? "" : "nan");
  return 0;
}
