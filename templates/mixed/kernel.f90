! The Fortran half: a kernel over an array, callable from C (bind(C)).
subroutine smooth_energy(n, x, e) bind(C)
  use iso_c_binding
  implicit none
  integer(c_int), value :: n
  real(c_double), intent(in) :: x(n)
  real(c_double), intent(out) :: e
  integer :: i
  e = 0
  do i = 2, n
    e = e + (x(i) - x(i - 1))**2 + 0.1d0 * sin(x(i))
  end do
end subroutine
