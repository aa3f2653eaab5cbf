! Both modes through Fortran `parallel do` loops (flang outlines the region and
! passes its shared variables in one struct); the main program is
! openmp_fortran_main.c.
subroutine smooth(n, x, y) bind(C, name="smooth")
  use iso_c_binding
  integer(c_int), value :: n
  real(c_double) :: x(n), y(n)
  integer :: i
  !$omp parallel do schedule(static)
  do i = 1, n
    y(i) = sin(x(i)) * x(i) + x(mod(i, n) + 1) ** 2
  end do
  !$omp end parallel do
end subroutine

subroutine pairs(n, x, z) bind(C, name="pairs")
  use iso_c_binding
  integer(c_int), value :: n
  real(c_double) :: x(n), z(n, n)
  integer :: i, j
  !$omp parallel do collapse(2) schedule(dynamic, 2)
  do j = 1, n
    do i = 1, n
      z(i, j) = exp(-0.1d0 * x(i) * x(j)) + x(j)
    end do
  end do
  !$omp end parallel do
end subroutine
