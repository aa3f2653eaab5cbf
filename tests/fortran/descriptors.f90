! Differentiated Fortran procedures whose dummies are assumed-shape (1-D and
! 2-D) and allocatable arrays: flang passes descriptors, and the interfaces
! of the entry points pass the shadows' descriptors the same way (no
! C-interoperable wrapper). Reverse against the analytic derivative, forward
! against reverse, array reductions (sum, maxval) inlined from -O1 up.
module descriptor_kernels
  implicit none
contains
  subroutine weighted_squares(a, w, y)
    real(8), intent(in) :: a(:, :)
    real(8), intent(in), allocatable :: w(:)
    real(8), intent(out) :: y(:)
    integer :: i, j
    do j = 1, size(a, 2)
      y(j) = 0
      do i = 1, size(a, 1)
        y(j) = y(j) + a(i, j) * a(i, j) * w(i)
      end do
    end do
  end subroutine

  subroutine reductions(x, s)
    real(8), intent(in) :: x(:)
    real(8), intent(out) :: s
    s = sum(x**2) + maxval(x) + sum(sin(x(2:)))
  end subroutine
end module

program check_descriptors
  use iso_c_binding
  use enzyme
  use checks
  use descriptor_kernels
  implicit none
  interface
    subroutine grad_ws(f, a, da, w, dw, y, dy) bind(C, name="__enzyme_autodiff_ws")
      import :: c_funptr, c_double
      type(c_funptr), value :: f
      real(c_double) :: a(:, :), da(:, :), y(:), dy(:)
      real(c_double), allocatable :: w(:), dw(:)
    end subroutine
    subroutine tangent_ws(f, a, ta, w, tw, y, ty) bind(C, name="__enzyme_fwddiff_ws")
      import :: c_funptr, c_double
      type(c_funptr), value :: f
      real(c_double) :: a(:, :), ta(:, :), y(:), ty(:)
      real(c_double), allocatable :: w(:), tw(:)
    end subroutine
    subroutine grad_red(f, x, dx, s, ds) bind(C, name="__enzyme_autodiff_red")
      import :: c_funptr, c_double
      type(c_funptr), value :: f
      real(c_double) :: x(:), dx(:), s, ds
    end subroutine
    subroutine tangent_red(f, x, tx, s, ts) bind(C, name="__enzyme_fwddiff_red")
      import :: c_funptr, c_double
      type(c_funptr), value :: f
      real(c_double) :: x(:), tx(:), s, ts
    end subroutine
  end interface
  real(8) :: a(2, 3), da(2, 3), ta(2, 3), y(3), dy(3), ty(3), x(4), dx(4), tx(4), s, ds, ts
  real(8), allocatable :: w(:), dw(:), tw(:)
  integer :: i, j, k

  a = reshape([1d0, 2d0, 3d0, 4d0, 5d0, 6d0], [2, 3])
  allocate (w(2), dw(2), tw(2))
  w = [0.5d0, 2d0]
  ! Reverse, one output at a time: d y(k) / d a(i, j) = 2 a(i, k) w(i) [j == k].
  do k = 1, 3
    da = 0
    dw = 0
    dy = 0
    dy(k) = 1
    call grad_ws(c_funloc(weighted_squares), a, da, w, dw, y, dy)
    do j = 1, 3
      do i = 1, 2
        call check("assumed-shape 2-D: d/da", da(i, j), merge(2 * a(i, k) * w(i), 0d0, j == k), 1d-12)
      end do
    end do
    do i = 1, 2
      call check("allocatable: d/dw", dw(i), a(i, k)**2, 1d-12)
    end do
    ! Forward, one input at a time, against the reverse row.
    do j = 1, 3
      do i = 1, 2
        ta = 0
        ta(i, j) = 1
        tw = 0
        ty = 0
        call tangent_ws(c_funloc(weighted_squares), a, ta, w, tw, y, ty)
        call check("2-D forward vs reverse", ty(k), merge(2 * a(i, k) * w(i), 0d0, j == k), 1d-12)
      end do
    end do
  end do

  x = [1d0, -2d0, 3d0, 0.5d0]
  dx = 0
  ds = 1
  call grad_red(c_funloc(reductions), x, dx, s, ds)
  do i = 1, 4
    call check("reductions: d/dx", dx(i), 2 * x(i) + merge(1d0, 0d0, i == 3) + merge(cos(x(i)), 0d0, i > 1), 1d-12)
    tx = 0
    tx(i) = 1
    ts = 0
    call tangent_red(c_funloc(reductions), x, tx, s, ts)
    call check("reductions: forward vs reverse", ts, dx(i), 1d-12)
  end do

  call finish("descriptor arguments: all checks passed")
end program
