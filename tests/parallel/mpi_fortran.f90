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

! The other collectives from Fortran: a ring shift by mpi_sendrecv, an
! mpi_allgather, and mpi_gather then mpi_scatter through rank 0.
subroutine fcollect(n, x, out) bind(C, name="fcollect")
  use iso_c_binding
  implicit none
  include 'mpif.h'
  integer(c_int), value :: n
  real(c_double) :: x(n), out
  real(c_double) :: shifted(8), all(128), sq(8), g(128), back(8)
  integer :: rank, nranks, ierr, next, prev, i, status(MPI_STATUS_SIZE)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  next = mod(rank + 1, nranks)
  prev = mod(rank + nranks - 1, nranks)
  call MPI_Sendrecv(x, n, MPI_DOUBLE_PRECISION, next, 3, shifted, n, MPI_DOUBLE_PRECISION, prev, 3, &
                    MPI_COMM_WORLD, status, ierr)
  call MPI_Allgather(x, n, MPI_DOUBLE_PRECISION, all, n, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
  do i = 1, n
    sq(i) = x(i) * x(i) + 0.01d0 * rank * i
  end do
  call MPI_Gather(sq, n, MPI_DOUBLE_PRECISION, g, n, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    do i = 1, n * nranks
      g(i) = sin(g(i))
    end do
  end if
  call MPI_Scatter(g, n, MPI_DOUBLE_PRECISION, back, n, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  out = 0
  do i = 1, n
    out = out + shifted(i) * x(i) + back(i) * x(mod(i, n) + 1)
  end do
  do i = 1, n * nranks
    out = out + cos(all(i)) * (rank + 1)
  end do
end subroutine

! Non-blocking from Fortran: a halo exchange by mpi_irecv/mpi_isend and
! mpi_waitall, then a receive polled with mpi_test and a send waited for
! with mpi_wait.
subroutine fnonblocking(n, x, out) bind(C, name="fnonblocking")
  use iso_c_binding
  implicit none
  include 'mpif.h'
  integer(c_int), value :: n
  real(c_double) :: x(n), out
  real(c_double) :: left, right, y, sent
  integer :: rank, nranks, ierr, next, prev, reqs(4), q(2)
  integer :: statuses(MPI_STATUS_SIZE, 4)
  logical :: done
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  next = mod(rank + 1, nranks)
  prev = mod(rank + nranks - 1, nranks)
  call MPI_Irecv(left, 1, MPI_DOUBLE_PRECISION, prev, 5, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Irecv(right, 1, MPI_DOUBLE_PRECISION, next, 6, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Isend(x(n), 1, MPI_DOUBLE_PRECISION, next, 5, MPI_COMM_WORLD, reqs(3), ierr)
  call MPI_Isend(x(1), 1, MPI_DOUBLE_PRECISION, prev, 6, MPI_COMM_WORLD, reqs(4), ierr)
  call MPI_Waitall(4, reqs, statuses, ierr)
  sent = x(2) * x(2)
  call MPI_Irecv(y, 1, MPI_DOUBLE_PRECISION, prev, 8, MPI_COMM_WORLD, q(1), ierr)
  call MPI_Isend(sent, 1, MPI_DOUBLE_PRECISION, next, 8, MPI_COMM_WORLD, q(2), ierr)
  done = .false.
  do while (.not. done)
    call MPI_Test(q(1), done, MPI_STATUS_IGNORE, ierr)
  end do
  call MPI_Wait(q(2), MPI_STATUS_IGNORE, ierr)
  out = left * x(1) * x(1) + sin(right) * x(n) + y * y * x(3)
end subroutine
