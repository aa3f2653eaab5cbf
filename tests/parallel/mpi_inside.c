/* Differentiating non-blocking communication (not done yet): refused. */
#include <mpi.h>
double __enzyme_autodiff(void *, ...);

static double exchange(double x) {
  double y = 0;
  MPI_Request r[2];
  MPI_Isend(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &r[0]);
  MPI_Irecv(&y, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &r[1]);
  MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  return y * x;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double g = __enzyme_autodiff((void *)exchange, 2.0);
  MPI_Finalize();
  return (int)g;
}
