! MPI_Isend/MPI_Wait from Fortran in a differentiated subroutine: refused by name
! (the non-blocking Fortran bindings have no rules yet); main: mpi_fortran_nonblocking_main.c.
subroutine fbad(x, out) bind(C, name="fbad")
  use iso_c_binding
  implicit none
  include 'mpif.h'
  real(c_double) :: x, out, y
  integer :: req, ierr
  call MPI_Isend(x, 1, MPI_DOUBLE_PRECISION, 0, 1, MPI_COMM_WORLD, req, ierr)
  call MPI_Recv(y, 1, MPI_DOUBLE_PRECISION, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  out = y * x
end subroutine
