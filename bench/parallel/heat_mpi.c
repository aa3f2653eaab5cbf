/* MPI: a 1-D heat equation (explicit steps with a cubic sink) on a ring of
 * cells split over the ranks, halos exchanged with MPI_Send/MPI_Recv every
 * step, and the gradient of the global weighted sum of the final field
 * (MPI_Allreduce) with respect to the initial field, by reverse mode; one
 * tangent by forward mode. The derivatives are checked first (gradient
 * against tangent summed over ranks, tangent against a central
 * difference). Usage: mpiexec -n R heat_mpi [--check]; rank 0 prints a
 * markdown row. Built by bench/parallel.sh. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_const, enzyme_dup;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

enum { CELLS = 1 << 16, STEPS = 40 };

/* u has n local cells plus a halo at each end (u[0], u[n + 1]). */
__attribute__((noinline)) double heat(double *u, double *tmp, const double *w, int n, int rank, int size) {
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  for (int s = 0; s < STEPS; s++) {
    double *from = s % 2 ? tmp : u, *to = s % 2 ? u : tmp;
    if (size == 1) {
      from[0] = from[n], from[n + 1] = from[1];
    } else if (rank % 2 == 0) {
      MPI_Send(&from[n], 1, MPI_DOUBLE, next, 0, MPI_COMM_WORLD);
      MPI_Recv(&from[0], 1, MPI_DOUBLE, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&from[1], 1, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD);
      MPI_Recv(&from[n + 1], 1, MPI_DOUBLE, next, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&from[0], 1, MPI_DOUBLE, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&from[n], 1, MPI_DOUBLE, next, 0, MPI_COMM_WORLD);
      MPI_Recv(&from[n + 1], 1, MPI_DOUBLE, next, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&from[1], 1, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD);
    }
    for (int i = 1; i <= n; i++) {
      double c = from[i];
      to[i] = c + 0.2 * (from[i - 1] - 2 * c + from[i + 1]) - 0.01 * c * c * c;
    }
  }
  double local = 0, total;
  for (int i = 1; i <= n; i++) local += w[i] * u[i];
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

static int rank, size, n;
static double *U0, *W, *V, *U, *T, *DU, *DT;

static double primal(void) {
  memcpy(U, U0, (n + 2) * sizeof(double));
  return heat(U, T, W, n, rank, size);
}

static void gradient(void) {
  memcpy(U, U0, (n + 2) * sizeof(double));
  memset(DU, 0, (n + 2) * sizeof(double));
  memset(DT, 0, (n + 2) * sizeof(double));
  /* Every rank seeds 1: the result is the same on all, counted once each. */
  __enzyme_autodiff((void *)heat, U, DU, T, DT, enzyme_const, W, enzyme_const, n, enzyme_const, rank,
                    enzyme_const, size);
}

static double tangent(void) {
  memcpy(U, U0, (n + 2) * sizeof(double));
  memcpy(DU, V, (n + 2) * sizeof(double));
  memset(DT, 0, (n + 2) * sizeof(double));
  return __enzyme_fwddiff((void *)heat, U, DU, T, DT, enzyme_const, W, enzyme_const, n, enzyme_const, rank,
                          enzyme_const, size);
}

static double sum_over_ranks(double v) {
  double s;
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

static double best_of(int what, int reps) {
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (what == 0)
      primal();
    else if (what == 1)
      tangent();
    else
      gradient();
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    if (t < best) best = t;
  }
  return best * 1e3;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  n = CELLS / size;
  double *bufs[7];
  for (int k = 0; k < 7; k++) bufs[k] = calloc(n + 2, sizeof(double));
  U0 = bufs[0], W = bufs[1], V = bufs[2], U = bufs[3], T = bufs[4], DU = bufs[5], DT = bufs[6];
  for (int i = 1; i <= n; i++) {
    long g = (long)rank * n + i;
    U0[i] = 0.5 + 0.4 * sin(0.001 * g);
    W[i] = 1 + 0.5 * cos(0.01 * g);
    V[i] = sin(0.07 * g);
  }
  gradient();
  double dot = 0;
  for (int i = 1; i <= n; i++) dot += DU[i] * V[i];
  /* Each rank's copy of the result was seeded: the gradient is size times one. */
  double rev = sum_over_ranks(dot) / size, fwd = tangent();
  double h = 1e-4;
  for (int i = 1; i <= n; i++) U0[i] += h * V[i];
  double p = primal();
  for (int i = 1; i <= n; i++) U0[i] -= 2 * h * V[i];
  double m = primal();
  for (int i = 1; i <= n; i++) U0[i] += h * V[i];
  double fd = (p - m) / (2 * h);
  int ok = fabs(rev - fwd) <= 1e-9 * (1 + fabs(fwd)) && fabs(fwd - fd) <= 1e-6 * (1 + fabs(fd));
  if (!ok || (argc > 1 && strcmp(argv[1], "--check") == 0)) {
    if (rank == 0)
      printf("heat_mpi (%d ranks): %s (reverse %.15g, forward %.15g, difference %.15g)\n", size,
             ok ? "gradient agrees with tangent and differences" : "FAIL", rev, fwd, fd);
    MPI_Finalize();
    return !ok;
  }
  double tp = best_of(0, 5), tt = best_of(1, 5), tg = best_of(2, 5);
  if (rank == 0)
    printf("| heat 1-D over ranks, %d cells, %d steps | %d | %.2f | %.2f | %.2f | %.2f | %.2f |\n", CELLS, STEPS,
           size, tp, tt, tt / tp, tg, tg / tp);
  MPI_Finalize();
  return 0;
}
