! Fortran `allocate` and `deallocate` inside differentiated procedures
! (issue 39, item 2): a local allocatable work array gets a shadow of its
! size, freed where the primal frees it. Both modes, against closed forms.
! (`move_alloc` and whole-array assignment to an allocatable call flang's
! runtime, which is refused with a clear error.)
module allocate_kernels
  implicit none
contains
  subroutine work_array(x, s)
    real(8), intent(in) :: x(3)
    real(8), intent(out) :: s
    real(8), allocatable :: t(:)
    integer :: k
    allocate (t(3))
    do k = 1, 3
      t(k) = x(k) * x(k)
    end do
    s = t(1) + 2 * t(2) + 3 * t(3)
    deallocate (t)
  end subroutine

end module

program check_allocate
  use iso_c_binding
  use enzyme
  use checks
  use allocate_kernels
  implicit none
  interface
    subroutine grad(f, x, dx, s, ds) bind(C, name="__enzyme_autodiff")
      import :: c_funptr, c_double
      type(c_funptr), value :: f
      real(c_double) :: x(3), dx(3), s, ds
    end subroutine
    subroutine tangent(f, x, tx, s, ts) bind(C, name="__enzyme_fwddiff")
      import :: c_funptr, c_double
      type(c_funptr), value :: f
      real(c_double) :: x(3), tx(3), s, ts
    end subroutine
  end interface
  real(8) :: x(3), dx(3), tx(3), s, ds, ts, want(3)
  integer :: i

  x = [0.5d0, -1.5d0, 2d0]
  dx = 0
  ds = 1
  call grad(c_funloc(work_array), x, dx, s, ds)
  want = [2 * x(1), 4 * x(2), 6 * x(3)]
  do i = 1, 3
    call check("allocate: d/dx", dx(i), want(i), 1d-12)
    tx = 0
    tx(i) = 1
    ts = 0
    call tangent(c_funloc(work_array), x, tx, s, ts)
    call check("allocate: forward vs reverse", ts, dx(i), 1d-12)
  end do

  call finish("allocate in differentiated code: all checks passed")
end program
