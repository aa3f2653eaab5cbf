! MPI_Alltoall from Fortran in a differentiated subroutine: refused by name
! (it has no rule yet); main: mpi_fortran_refused_main.c.
subroutine fbad(x, out) bind(C, name="fbad")
  use iso_c_binding
  implicit none
  include 'mpif.h'
  real(c_double) :: x, out, y
  integer :: ierr
  call MPI_Alltoall(x, 1, MPI_DOUBLE_PRECISION, y, 1, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
  out = y * x
end subroutine
