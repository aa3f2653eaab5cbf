/* Differentiating an MPI call without a derivative rule yet: refused. */
#include <mpi.h>
double __enzyme_autodiff(void *, ...);

static double exchange(double x) {
  double in[64], out[64];
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int k = 0; k < size && k < 64; k++) out[k] = x * k;
  MPI_Alltoall(out, 1, MPI_DOUBLE, in, 1, MPI_DOUBLE, MPI_COMM_WORLD);
  return in[0] * x;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double g = __enzyme_autodiff((void *)exchange, 2.0);
  MPI_Finalize();
  return (int)g;
}
