! Kernels differentiated from Fortran: a scalar function (by value), an
! explicit-shape array, and an assumed-shape array reached through a helper.
module kernels
  use iso_c_binding
  implicit none
contains
  function wave(x) bind(C) result(y)
    real(c_double), value :: x
    real(c_double) :: y
    y = sin(x) * x**2 + exp(-x)
  end function

  ! r = sqrt(sum(x**2)) + sum(i * x(i)) (the second part through an assumed-shape helper)
  subroutine norm(n, x, r) bind(C)
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double), intent(out) :: r
    r = sqrt(sum(x**2)) + weighted(x)
  end subroutine

  function weighted(x) result(s)
    real(c_double), intent(in) :: x(:)
    real(c_double) :: s
    integer :: i
    s = 0
    do i = 1, size(x)
      s = s + x(i) * i
    end do
  end function

  ! In place: 50 explicit Euler steps of u' = -u**3 + u on each entry.
  subroutine relax(n, u) bind(C)
    integer(c_int), value :: n
    real(c_double), intent(inout) :: u(n)
    integer :: k
    do k = 1, 50
      u = u + 0.01d0 * (u - u**3)
    end do
  end subroutine

  ! An automatic array: flang makes d a run-time-size stack array.
  subroutine diffs(n, x, r) bind(C)
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double), intent(out) :: r
    real(c_double) :: d(n - 1)
    integer :: i
    do i = 1, n - 1
      d(i) = sin(x(i + 1)) - x(i)**2
    end do
    r = 0
    do i = 1, n - 1
      r = r + d(i) * d(i) * i
    end do
  end subroutine

  ! A local array filled by one loop and read by the next (GMM's centred
  ! points), per component: the reverse sweep computes xc(i) again from x and
  ! mu instead of taping it (1-based indices: the store's address is
  ! xc - 8 + 8 i one way, the load's another).
  function centred(x, mu) bind(C) result(s)
    real(c_double), intent(in) :: x(6), mu(24)
    real(c_double) :: s, xc(6), q
    integer :: k, i
    s = 0
    do k = 1, 4
      do i = 1, 6
        xc(i) = x(i) - mu((k - 1) * 6 + i) * (1 + 0.1d0 * k)
      end do
      q = 0
      do i = 1, 6
        q = q + exp(0.2d0 * xc(i)) * xc(i)
      end do
      s = s + log(1 + q * q)
    end do
  end function
end module kernels
