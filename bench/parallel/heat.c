/* OpenMP: a 2-D heat equation (explicit steps, 5-point stencil, periodic
 * rows split over threads by `parallel for`) and the gradient of a weighted
 * sum of the final field with respect to the initial field and the
 * diffusivity, by reverse mode, and one tangent by forward mode. Timed at
 * 1 and 2 threads (omp_set_num_threads) after the derivatives are checked:
 * gradient against tangent (<w, J v> = <J^T w, v>), tangent against a
 * central difference, and each at 2 threads against 1 thread.
 * Usage: heat [--check]; prints markdown rows. Built by bench/parallel.sh. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern int enzyme_const, enzyme_dup, enzyme_dupnoneed;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

enum { G = 192, STEPS = 24 };

/* `steps` steps from u (G x G), ping-ponging with tmp; the result in u. */
__attribute__((noinline)) void heat(double *u, double *tmp, const double *kappa, int steps) {
  for (int s = 0; s < steps; s++) {
    const double *from = s % 2 ? tmp : u;
    double *to = s % 2 ? u : tmp;
    /* Read once per step (the compiler cannot hoist it: `to` might alias it). */
    const double k = kappa[0];
#pragma omp parallel for schedule(static)
    for (int i = 0; i < G; i++) {
      int up = (i + G - 1) % G, down = (i + 1) % G;
      for (int j = 0; j < G; j++) {
        int l = (j + G - 1) % G, r = (j + 1) % G;
        double c = from[i * G + j];
        double lap = from[up * G + j] + from[down * G + j] + from[i * G + l] + from[i * G + r] - 4 * c;
        to[i * G + j] = c + k * lap - 0.01 * c * c * c;
      }
    }
  }
  if (steps % 2)
    for (int k = 0; k < G * G; k++) u[k] = tmp[k];
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static double *U0, *W, *V;
static double K = 0.2;

/* The primal: the weighted sum of the final field. */
static double primal(void) {
  double *u = malloc(sizeof(double) * G * G), *tmp = malloc(sizeof(double) * G * G);
  memcpy(u, U0, sizeof(double) * G * G);
  heat(u, tmp, &K, STEPS);
  double s = 0;
  for (int k = 0; k < G * G; k++) s += W[k] * u[k];
  free(u), free(tmp);
  return s;
}

/* Reverse mode: the gradient of <W, u_final> into gu (and gk). */
static void gradient(double *gu, double *gk) {
  double *u = malloc(sizeof(double) * G * G), *tmp = malloc(sizeof(double) * G * G);
  double *dtmp = calloc(G * G, sizeof(double));
  memcpy(u, U0, sizeof(double) * G * G);
  memcpy(gu, W, sizeof(double) * G * G);
  *gk = 0;
  __enzyme_autodiff((void *)heat, u, gu, tmp, dtmp, &K, gk, enzyme_const, STEPS);
  free(u), free(tmp), free(dtmp);
}

/* Forward mode: <W, J V> for the direction V in the initial field. */
static double tangent(void) {
  double *u = malloc(sizeof(double) * G * G), *tmp = malloc(sizeof(double) * G * G);
  double *du = malloc(sizeof(double) * G * G), *dtmp = calloc(G * G, sizeof(double));
  double dk = 0;
  memcpy(u, U0, sizeof(double) * G * G);
  memcpy(du, V, sizeof(double) * G * G);
  __enzyme_fwddiff((void *)heat, u, du, tmp, dtmp, &K, &dk, enzyme_const, STEPS);
  double s = 0;
  for (int k = 0; k < G * G; k++) s += W[k] * du[k];
  free(u), free(tmp), free(du), free(dtmp);
  return s;
}

static double best_of(void (*f)(void), int reps) {
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    f();
    double t = now() - t0;
    if (t < best) best = t;
  }
  return best * 1e3;
}

static double sink;
static double *GU;
static void run_primal(void) { sink += primal(); }
static void run_gradient(void) {
  double gk;
  gradient(GU, &gk);
  sink += gk;
}
static void run_tangent(void) { sink += tangent(); }

int main(int argc, char **argv) {
  U0 = malloc(sizeof(double) * G * G), W = malloc(sizeof(double) * G * G), V = malloc(sizeof(double) * G * G);
  GU = malloc(sizeof(double) * G * G);
  for (int k = 0; k < G * G; k++) {
    U0[k] = 0.5 + 0.4 * sin(0.05 * k) * cos(0.003 * k);
    W[k] = 1 + 0.5 * cos(0.01 * k);
    V[k] = sin(0.07 * k);
  }
  int failures = 0;
  double g1k = 0, *g1 = malloc(sizeof(double) * G * G);
  for (int threads = 1; threads <= 2; threads++) {
    omp_set_num_threads(threads);
    double gk, dot = 0;
    gradient(GU, &gk);
    for (int k = 0; k < G * G; k++) dot += GU[k] * V[k];
    double tan = tangent();
    if (!(fabs(dot - tan) <= 1e-10 * (1 + fabs(tan)))) {
      printf("FAIL %d threads: <J^T w, v> = %.17g, <w, J v> = %.17g\n", threads, dot, tan);
      failures++;
    }
    if (threads == 1) {
      memcpy(g1, GU, sizeof(double) * G * G);
      g1k = gk;
      double h = 1e-4; /* the sum of 36864 terms: a smaller step drowns in rounding */
      for (int k = 0; k < G * G; k++) U0[k] += h * V[k];
      double p = primal();
      for (int k = 0; k < G * G; k++) U0[k] -= 2 * h * V[k];
      double m = primal();
      for (int k = 0; k < G * G; k++) U0[k] += h * V[k];
      if (!(fabs((p - m) / (2 * h) - tan) <= 1e-6 * (1 + fabs(tan)))) {
        printf("FAIL tangent %.17g, central difference %.17g\n", tan, (p - m) / (2 * h));
        failures++;
      }
    } else {
      for (int k = 0; k < G * G; k++)
        if (!(fabs(GU[k] - g1[k]) <= 1e-12 * (1 + fabs(g1[k])))) {
          printf("FAIL gradient entry %d at 2 threads %.17g, at 1 thread %.17g\n", k, GU[k], g1[k]);
          failures++;
          break;
        }
      if (!(fabs(gk - g1k) <= 1e-11 * (1 + fabs(g1k)))) {
        printf("FAIL diffusivity gradient at 2 threads %.17g, at 1 thread %.17g\n", gk, g1k);
        failures++;
      }
    }
  }
  if (failures || (argc > 1 && strcmp(argv[1], "--check") == 0)) {
    printf("heat: %s\n", failures ? "derivatives wrong" : "gradient agrees with tangent, differences and threads");
    return failures != 0;
  }
  for (int threads = 1; threads <= 2; threads++) {
    omp_set_num_threads(threads);
    double p = best_of(run_primal, 5), g = best_of(run_gradient, 5), t = best_of(run_tangent, 5);
    printf("| heat 2-D, %d x %d, %d steps | %d | %.2f | %.2f | %.2f | %.2f | %.2f |\n", G, G, STEPS, threads, p, t,
           t / p, g, g / p);
  }
  return 0;
}
