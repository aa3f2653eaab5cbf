/* OpenMP: a LULESH-like explicit Lagrangian hydrodynamics step, in 1-D (our
 * own code, modelled on the proxy app's structure): an element loop
 * computing each element's volume, density, pressure and artificial
 * viscosity (only where it compresses), a node loop gathering the forces of
 * the two neighbouring elements into accelerations, velocities and
 * positions, and an element loop updating internal energies from the work
 * done; every loop a `parallel for`. The gradient of the final total energy
 * with respect to the initial velocities and energies (reverse mode), and one
 * tangent (forward mode), at 1 and 2 threads, checked first (gradient
 * against tangent, tangent against a central difference, 2 threads against
 * 1). Usage: hydro [--check]; prints markdown rows. Built by
 * bench/parallel.sh. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern int enzyme_const, enzyme_dup;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

enum { ELEMS = 4096, STEPS = 60 };
static const double GAMMA = 1.4, DT = 1e-4, QCOEF = 1.5;

typedef struct {
  double x[ELEMS + 1], v[ELEMS + 1]; /* nodes */
  double e[ELEMS], p[ELEMS], vol[ELEMS]; /* elements */
} mesh;

/* Total energy after STEPS steps (kinetic + internal), from the state in m. */
__attribute__((noinline)) double hydro(mesh *m, const double *elem_mass, const double *node_mass) {
  for (int s = 0; s < STEPS; s++) {
#pragma omp parallel for schedule(static)
    for (int k = 0; k < ELEMS; k++) {
      double vol = m->x[k + 1] - m->x[k], rho = elem_mass[k] / vol;
      double p = (GAMMA - 1) * rho * m->e[k];
      double dv = m->v[k + 1] - m->v[k];
      if (dv < 0) p += QCOEF * rho * dv * dv; /* artificial viscosity when compressing */
      m->p[k] = p, m->vol[k] = vol;
    }
#pragma omp parallel for schedule(static)
    for (int i = 0; i <= ELEMS; i++) {
      double left = i > 0 ? m->p[i - 1] : m->p[0], right = i < ELEMS ? m->p[i] : m->p[ELEMS - 1];
      m->v[i] += DT * (left - right) / node_mass[i];
      m->x[i] += DT * m->v[i];
    }
#pragma omp parallel for schedule(static)
    for (int k = 0; k < ELEMS; k++) {
      double vol = m->x[k + 1] - m->x[k];
      m->e[k] -= m->p[k] * (vol - m->vol[k]) / elem_mass[k];
    }
  }
  double total = 0;
  for (int i = 0; i <= ELEMS; i++) total += 0.5 * node_mass[i] * m->v[i] * m->v[i];
  for (int k = 0; k < ELEMS; k++) total += elem_mass[k] * m->e[k];
  return total;
}

static mesh M0, M, DM, TM;
static double EM[ELEMS], NM[ELEMS + 1];

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static double primal(void) {
  M = M0;
  return hydro(&M, EM, NM);
}

static void gradient(void) {
  M = M0;
  memset(&DM, 0, sizeof DM);
  __enzyme_autodiff((void *)hydro, &M, &DM, enzyme_const, EM, enzyme_const, NM);
}

/* The tangent in direction: velocities sin, energies cos. */
static void direction(mesh *d) {
  memset(d, 0, sizeof *d);
  for (int i = 0; i <= ELEMS; i++) d->v[i] = 0.1 * sin(0.01 * i);
  for (int k = 0; k < ELEMS; k++) d->e[k] = 0.1 * cos(0.02 * k);
}

static double tangent(void) {
  M = M0;
  direction(&TM);
  return __enzyme_fwddiff((void *)hydro, &M, &TM, enzyme_const, EM, enzyme_const, NM);
}

static double best_of(int what, int reps) {
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    if (what == 0)
      primal();
    else if (what == 1)
      tangent();
    else
      gradient();
    double t = now() - t0;
    if (t < best) best = t;
  }
  return best * 1e3;
}

int main(int argc, char **argv) {
  for (int i = 0; i <= ELEMS; i++) {
    M0.x[i] = (double)i / ELEMS;
    M0.v[i] = 0.05 * sin(6.0 * i / ELEMS);
    NM[i] = 1.0 / ELEMS;
  }
  for (int k = 0; k < ELEMS; k++) {
    M0.e[k] = 1.0 + (k < ELEMS / 2 ? 1.5 : 0); /* a shock tube */
    EM[k] = 1.0 / ELEMS;
  }
  int failures = 0;
  static mesh g1, dir;
  direction(&dir);
  for (int threads = 1; threads <= 2; threads++) {
    omp_set_num_threads(threads);
    gradient();
    double dot = 0;
    for (int i = 0; i <= ELEMS; i++) dot += DM.v[i] * dir.v[i];
    for (int k = 0; k < ELEMS; k++) dot += DM.e[k] * dir.e[k];
    double tan = tangent();
    if (!(fabs(dot - tan) <= 1e-10 * (1 + fabs(tan)))) {
      printf("FAIL %d threads: <grad, v> = %.17g, tangent %.17g\n", threads, dot, tan);
      failures++;
    }
    if (threads == 1) {
      g1 = DM;
      double h = 1e-6, p, m;
      mesh saved = M0;
      for (int i = 0; i <= ELEMS; i++) M0.v[i] += h * dir.v[i];
      for (int k = 0; k < ELEMS; k++) M0.e[k] += h * dir.e[k];
      p = primal();
      M0 = saved;
      for (int i = 0; i <= ELEMS; i++) M0.v[i] -= h * dir.v[i];
      for (int k = 0; k < ELEMS; k++) M0.e[k] -= h * dir.e[k];
      m = primal();
      M0 = saved;
      if (!(fabs((p - m) / (2 * h) - tan) <= 1e-6 * (1 + fabs(tan)))) {
        printf("FAIL tangent %.17g, central difference %.17g\n", tan, (p - m) / (2 * h));
        failures++;
      }
    } else {
      for (int k = 0; k < ELEMS; k++)
        if (!(fabs(DM.e[k] - g1.e[k]) <= 1e-12 * (1 + fabs(g1.e[k])))) {
          printf("FAIL energy gradient %d at 2 threads %.17g, at 1 thread %.17g\n", k, DM.e[k], g1.e[k]);
          failures++;
          break;
        }
    }
  }
  if (failures || (argc > 1 && strcmp(argv[1], "--check") == 0)) {
    printf("hydro: %s\n", failures ? "derivatives wrong" : "gradient agrees with tangent, differences and threads");
    return failures != 0;
  }
  for (int threads = 1; threads <= 2; threads++) {
    omp_set_num_threads(threads);
    double p = best_of(0, 5), t = best_of(1, 5), g = best_of(2, 5);
    printf("| hydro 1-D (LULESH-like), %d elements, %d steps | %d | %.2f | %.2f | %.2f | %.2f | %.2f |\n", ELEMS,
           STEPS, threads, p, t, t / p, g, g / p);
  }
  return 0;
}
