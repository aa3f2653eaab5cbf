! expect: cannot differentiate call to flang's runtime (`_FortranAMoveAlloc`)
! expect: move_alloc.f90:19:5
! expect: `move_alloc` hands an allocation over inside flang's runtime
! Fortran's move_alloc inside a differentiated procedure (issue 39, item 2):
! flang hands the allocation over in its runtime, which has no derivative,
! so it is refused, with a hint that fits (not "compile with -O1").
module moves
  implicit none
contains
  subroutine moved(x, s)
    real(8), intent(in) :: x(3)
    real(8), intent(out) :: s
    real(8), allocatable :: t(:), u(:)
    integer :: k
    allocate (t(3))
    do k = 1, 3
      t(k) = x(k) * x(k)
    end do
    call move_alloc(t, u)
    s = u(1) + 2 * u(2) + 3 * u(3)
  end subroutine
end module

program check_move_alloc
  use iso_c_binding
  use moves
  implicit none
  interface
    subroutine grad(f, x, dx, s, ds) bind(C, name="__enzyme_autodiff")
      import :: c_funptr, c_double
      type(c_funptr), value :: f
      real(c_double) :: x(3), dx(3), s, ds
    end subroutine
  end interface
  real(8) :: x(3), dx(3), s, ds
  x = [1d0, 2d0, 3d0]
  dx = 0
  ds = 1
  call grad(c_funloc(moved), x, dx, s, ds)
  print *, dx
end program
