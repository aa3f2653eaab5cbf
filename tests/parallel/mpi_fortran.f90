! MPI's Fortran bindings (include 'mpif.h') in a differentiated Fortran
! subroutine: mpi_bcast of parameters, a ring of mpi_send/mpi_recv (with a
! status and with MPI_STATUS_IGNORE), mpi_allreduce sum and max, and an
! mpi_reduce product in place at the root. The main program is
! mpi_fortran_main.c.
subroutine fmodel(n, x, p, out) bind(C, name="fmodel")
  use iso_c_binding
  implicit none
  include 'mpif.h'
  integer(c_int), value :: n
  real(c_double) :: x(n), p(2), out
  integer :: rank, nranks, ierr, next, prev, i, status(MPI_STATUS_SIZE)
  real(c_double) :: local, total, top, left, prod
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call MPI_Bcast(p, 2, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  next = mod(rank + 1, nranks)
  prev = mod(rank + nranks - 1, nranks)
  if (nranks == 1) then
    left = x(n)
  else if (mod(rank, 2) == 0) then
    call MPI_Send(x(n), 1, MPI_DOUBLE_PRECISION, next, 7, MPI_COMM_WORLD, ierr)
    call MPI_Recv(left, 1, MPI_DOUBLE_PRECISION, prev, 7, MPI_COMM_WORLD, status, ierr)
  else
    call MPI_Recv(left, 1, MPI_DOUBLE_PRECISION, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Send(x(n), 1, MPI_DOUBLE_PRECISION, next, 7, MPI_COMM_WORLD, ierr)
  end if
  local = sin(left) * x(1) * p(2)
  do i = 1, n
    local = local + x(i) * x(i) * p(1) + cos(x(i))
  end do
  call MPI_Allreduce(local, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(local, top, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  prod = 1 + 0.1d0 * local
  if (rank == 0) then
    call MPI_Reduce(MPI_IN_PLACE, prod, 1, MPI_DOUBLE_PRECISION, MPI_PROD, 0, MPI_COMM_WORLD, ierr)
  else
    call MPI_Reduce(prod, prod, 1, MPI_DOUBLE_PRECISION, MPI_PROD, 0, MPI_COMM_WORLD, ierr)
  end if
  out = total * p(2) + 0.3d0 * top
  if (rank == 0) out = out + prod
end subroutine
