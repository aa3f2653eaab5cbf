/* Differentiates mpi_fortran_refused.f90's fbad, which must be refused. */
#include <mpi.h>
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
void fbad(double *x, double *out);
int main(int c, char **v) { MPI_Init(&c, &v); double x = 1, dx = 0, o, d = 1; __enzyme_autodiff((void *)fbad, enzyme_dup, &x, &dx, enzyme_dup, &o, &d); MPI_Finalize(); return 0; }
