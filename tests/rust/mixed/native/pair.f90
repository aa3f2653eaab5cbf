! The Fortran part: a pair potential, called from C.
function pair(r) bind(C) result(e)
  use iso_c_binding
  implicit none
  real(c_double), value :: r
  real(c_double) :: e
  e = (1d0 / r)**12 - 2d0 * (1d0 / r)**6
end function
