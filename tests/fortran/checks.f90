! The checks the Fortran test programs share: a relative tolerance with an
! absolute floor of the same size, failures counted and reported at the end.
module checks
  implicit none
  integer :: failures = 0
contains
  subroutine check(what, got, expected, tol)
    character(*), intent(in) :: what
    real(8), intent(in) :: got, expected, tol
    ! Written so that a NaN fails.
    if (.not. (abs(got - expected) <= tol * (1 + abs(expected)))) then
      failures = failures + 1
      print '(a, a, es24.16, a, es24.16)', what, ": got ", got, ", want ", expected
    end if
  end subroutine

  ! Stops with a failure status if any check failed, else prints `passed`.
  subroutine finish(passed)
    character(*), intent(in) :: passed
    if (failures > 0) then
      print '(i0, a)', failures, " checks failed"
      stop 1
    end if
    print '(a)', passed
  end subroutine
end module
