! MPI's Fortran bindings (include 'mpif.h') at the edges of what a program
! passes, in differentiated subroutines: a halo exchange with MPI_PROC_NULL
! past the end ranks (mpi_sendrecv with MPI_STATUS_IGNORE, mpi_send and
! mpi_recv reading the status, mpi_isend and mpi_irecv with mpi_waitall
! and MPI_STATUSES_IGNORE); receives from MPI_ANY_SOURCE with MPI_ANY_TAG
! (mpi_recv into a buffer longer than the message, mpi_irecv around a ring
! completed by mpi_waitall) whose statuses are read; zero counts in every
! call. Where no neighbour sends, a ghost keeps a value that depends on x.
! The main program is mpi_fortran_edges_main.c.
! The neighbours in a line of ranks: none (MPI_PROC_NULL) past the ends.
subroutine neighbours(left, right)
  implicit none
  include 'mpif.h'
  integer :: left, right, rank, nranks, ierr
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  left = rank - 1
  right = rank + 1
  if (rank == 0) left = MPI_PROC_NULL
  if (rank == nranks - 1) right = MPI_PROC_NULL
end subroutine

subroutine fhalo_edges(n, x, out) bind(C, name="fhalo_edges")
  use iso_c_binding
  implicit none
  include 'mpif.h'
  integer(c_int), value :: n
  real(c_double) :: x(n), out
  real(c_double) :: u(0:16)
  integer :: rank, ierr, left, right, i, status(MPI_STATUS_SIZE)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call neighbours(left, right)
  do i = 1, n
    u(i) = x(i) * (1 + 0.2d0 * x(i))
  end do
  u(0) = 0.5d0 * x(1) * x(1)
  u(n + 1) = sin(x(n))
  call MPI_Sendrecv(u(n), 1, MPI_DOUBLE_PRECISION, right, 1, u(0), 1, MPI_DOUBLE_PRECISION, left, 1, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  if (mod(rank, 2) == 0) then
    call MPI_Send(u(1), 1, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, ierr)
    call MPI_Recv(u(n + 1), 1, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, status, ierr)
  else
    call MPI_Recv(u(n + 1), 1, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, status, ierr)
    call MPI_Send(u(1), 1, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, ierr)
  end if
  out = 0
  do i = 1, n
    out = out + (u(i - 1) - 2 * u(i) + u(i + 1))**2 * (1 + 0.5d0 * u(i))
  end do
  if (status(MPI_SOURCE) == MPI_PROC_NULL) out = 1.5d0 * out
end subroutine

! The halo exchange by mpi_irecv and mpi_isend with MPI_PROC_NULL past the
! ends, mpi_waitall ignoring the statuses; then a ring by mpi_irecv from
! MPI_ANY_SOURCE with MPI_ANY_TAG (tags 30 + rank), mpi_waitall with
! statuses, which are read.
subroutine fnonblocking_edges(n, x, out) bind(C, name="fnonblocking_edges")
  use iso_c_binding
  implicit none
  include 'mpif.h'
  integer(c_int), value :: n
  real(c_double) :: x(n), out
  real(c_double) :: gl, gr, mine, got
  integer :: rank, nranks, ierr, left, right, reqs(4), q(2), statuses(MPI_STATUS_SIZE, 2)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call neighbours(left, right)
  gl = 0.5d0 * x(1) * x(1)
  gr = sin(x(n))
  call MPI_Irecv(gl, 1, MPI_DOUBLE_PRECISION, left, 5, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Irecv(gr, 1, MPI_DOUBLE_PRECISION, right, 6, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Isend(x(n), 1, MPI_DOUBLE_PRECISION, right, 5, MPI_COMM_WORLD, reqs(3), ierr)
  call MPI_Isend(x(1), 1, MPI_DOUBLE_PRECISION, left, 6, MPI_COMM_WORLD, reqs(4), ierr)
  call MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE, ierr)
  mine = gl * x(2) + gr * gr
  got = x(3)
  call MPI_Irecv(got, 1, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, q(1), ierr)
  call MPI_Isend(mine, 1, MPI_DOUBLE_PRECISION, mod(rank + 1, nranks), 30 + rank, MPI_COMM_WORLD, q(2), ierr)
  call MPI_Waitall(2, q, statuses, ierr)
  out = got * got * (statuses(MPI_TAG, 1) - 29) * (1 + statuses(MPI_SOURCE, 1)) + cos(got) * x(4) + gl * gr
end subroutine

! Every rank's values to rank 0, which takes them by mpi_recv from
! MPI_ANY_SOURCE with MPI_ANY_TAG (tags 10 + rank) into a buffer of two,
! one arriving (the other keeps a value that depends on x), and weighs each
! by the source and tag its status names; the sends completed by mpi_wait
! with MPI_STATUS_IGNORE.
subroutine fany_source(n, x, out) bind(C, name="fany_source")
  use iso_c_binding
  implicit none
  include 'mpif.h'
  integer(c_int), value :: n
  real(c_double) :: x(n), out
  real(c_double) :: mine, v(2)
  integer :: rank, nranks, ierr, k, req, status(MPI_STATUS_SIZE)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  mine = x(1) * x(2) + sin(x(3))
  out = x(2) * x(3)
  call MPI_Isend(mine, 1, MPI_DOUBLE_PRECISION, 0, 10 + rank, MPI_COMM_WORLD, req, ierr)
  if (rank == 0) then
    do k = 1, nranks
      v(1) = 0
      v(2) = x(1) * x(n)
      call MPI_Recv(v(1), 2, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
      out = out + sin(v(1)) * (status(MPI_TAG) - 9) * (1 + 0.5d0 * status(MPI_SOURCE)) + v(2) * v(2) * k
    end do
  end if
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
end subroutine

! Zero counts in every call, beside a ring shift of one value.
subroutine fzero_counts(n, x, out) bind(C, name="fzero_counts")
  use iso_c_binding
  implicit none
  include 'mpif.h'
  integer(c_int), value :: n
  real(c_double) :: x(n), out
  real(c_double) :: a(2), b(2), all(2), got
  integer :: rank, nranks, ierr, next, prev, q(2)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  next = mod(rank + 1, nranks)
  prev = mod(rank + nranks - 1, nranks)
  a(1) = x(1) * x(2)
  a(2) = x(3)
  b(1) = x(4)
  b(2) = sin(x(5))
  call MPI_Sendrecv(x(1), 0, MPI_DOUBLE_PRECISION, next, 40, a(1), 0, MPI_DOUBLE_PRECISION, prev, 40, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE, ierr)
  call MPI_Sendrecv(x(2), 1, MPI_DOUBLE_PRECISION, next, 41, got, 1, MPI_DOUBLE_PRECISION, prev, 41, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Irecv(a(1), 0, MPI_DOUBLE_PRECISION, prev, 42, MPI_COMM_WORLD, q(1), ierr)
  call MPI_Isend(b(1), 0, MPI_DOUBLE_PRECISION, next, 42, MPI_COMM_WORLD, q(2), ierr)
  call MPI_Waitall(2, q, MPI_STATUSES_IGNORE, ierr)
  call MPI_Send(b(1), 0, MPI_DOUBLE_PRECISION, MPI_PROC_NULL, 43, MPI_COMM_WORLD, ierr)
  call MPI_Recv(b(1), 0, MPI_DOUBLE_PRECISION, MPI_PROC_NULL, 43, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Bcast(a(1), 0, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(a(1), b(1), 0, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Reduce(a(1), b(1), 0, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  call MPI_Allgather(a(1), 0, MPI_DOUBLE_PRECISION, all(1), 0, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
  call MPI_Gather(a(1), 0, MPI_DOUBLE_PRECISION, all(1), 0, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  call MPI_Scatter(all(1), 0, MPI_DOUBLE_PRECISION, b(1), 0, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  out = a(1) * a(2) + b(1) * b(2) + got * got * x(3)
end subroutine
