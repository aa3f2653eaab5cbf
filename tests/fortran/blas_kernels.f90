! Fortran calling BLAS (dgemv, dgemm) inside differentiated code, as flang
! passes the character arguments (with hidden lengths); differentiated by the
! rules in wrappers/rules/fortran/blas.c. Called from blas_main.c.
module blas_kernels
  use iso_c_binding
  implicit none
contains
  subroutine products(x, y) bind(C)
    real(c_double), intent(in) :: x(5)
    real(c_double), intent(out) :: y(2)
    real(c_double) :: a(3, 4), b(4, 2), c(3, 2), v(4), w(3), alpha, beta
    integer :: i, j
    do j = 1, 4
      do i = 1, 3
        a(i, j) = sin(x(mod(i + j, 5) + 1) * i) + 0.2d0 * x(mod(i * j, 5) + 1)
      end do
      v(j) = x(j) * x(j + 1)
      b(j, 1) = cos(x(j))
      b(j, 2) = x(mod(j + 2, 5) + 1) * j
    end do
    w = [x(1), x(3), x(5)]
    c = 0.5d0
    alpha = x(2) + 0.3d0
    beta = x(4) * x(1)
    call dgemv('N', 3, 4, alpha, a, 3, v, 1, beta, w, 1)
    call dgemv('T', 3, 4, 1.5d0, a, 3, w, 1, 0.0d0, v, 1)
    call dgemm('N', 'N', 3, 2, 4, alpha, a, 3, b, 4, beta, c, 3)
    y(1) = sum(v * v) + w(2)
    y(2) = sum(c * c * reshape([1d0, 2d0, 3d0, 4d0, 5d0, 6d0], [3, 2]))
  end subroutine
end module
