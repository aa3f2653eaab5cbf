/* An MPI program built through mpicc with MPICH_CC=enzyme-cc: each rank
 * differentiates its own part, and the gradients are summed with
 * MPI_Allreduce outside the differentiated code. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

static double f(double x) { return exp(-x * x) * x; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double x = 0.3 + rank, g = __enzyme_autodiff((void *)f, x), total = 0, want = 0;
  MPI_Allreduce(&g, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int r = 0; r < size; r++) {
    double y = 0.3 + r;
    want += exp(-y * y) * (1 - 2 * y * y);
  }
  int bad = fabs(total - want) > 1e-12;
  if (rank == 0) printf("mpi: %d ranks, gradient sum %.15g (want %.15g)\n", size, total, want);
  MPI_Finalize();
  return bad;
}
