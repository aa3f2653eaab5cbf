/* Differentiating a function that communicates: refused. */
#include <mpi.h>
double __enzyme_autodiff(void *, ...);

static double global_sum(double x) {
  double s = 0;
  MPI_Allreduce(&x, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return s * x;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double g = __enzyme_autodiff((void *)global_sum, 2.0);
  MPI_Finalize();
  return (int)g;
}
