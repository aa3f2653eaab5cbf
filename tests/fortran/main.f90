! Gradients of the kernels, reverse against the analytic derivative or
! finite differences, forward against reverse.
program check_kernels
  use iso_c_binding
  use enzyme
  use checks
  use kernels
  implicit none
  interface
    real(c_double) function grad_wave(f, x) bind(C, name="__enzyme_autodiff_wave")
      import :: c_double, c_funptr
      type(c_funptr), value :: f
      real(c_double), value :: x
    end function
    real(c_double) function tangent_wave(f, x, dx) bind(C, name="__enzyme_fwddiff_wave")
      import :: c_double, c_funptr
      type(c_funptr), value :: f
      real(c_double), value :: x, dx
    end function
    subroutine grad_norm(f, n, x, dx, r, dr) bind(C, name="__enzyme_autodiff_norm")
      import :: c_double, c_funptr, c_int
      type(c_funptr), value :: f
      integer(c_int), value :: n
      real(c_double) :: x(*), dx(*), r, dr
    end subroutine
    subroutine tangent_norm(f, n, x, dx, r, dr) bind(C, name="__enzyme_fwddiff_norm")
      import :: c_double, c_funptr, c_int
      type(c_funptr), value :: f
      integer(c_int), value :: n
      real(c_double) :: x(*), dx(*), r, dr
    end subroutine
    subroutine grad_relax(f, n, u, du) bind(C, name="__enzyme_autodiff_relax")
      import :: c_double, c_funptr, c_int
      type(c_funptr), value :: f
      integer(c_int), value :: n
      real(c_double) :: u(*), du(*)
    end subroutine
    subroutine grad_diffs(f, n, x, dx, r, dr) bind(C, name="__enzyme_autodiff_diffs")
      import :: c_double, c_funptr, c_int
      type(c_funptr), value :: f
      integer(c_int), value :: n
      real(c_double) :: x(*), dx(*), r, dr
    end subroutine
    subroutine tangent_diffs(f, n, x, dx, r, dr) bind(C, name="__enzyme_fwddiff_diffs")
      import :: c_double, c_funptr, c_int
      type(c_funptr), value :: f
      integer(c_int), value :: n
      real(c_double) :: x(*), dx(*), r, dr
    end subroutine
    subroutine grad_centred(f, x, dx, mu, dmu) bind(C, name="__enzyme_autodiff_centred")
      import :: c_double, c_funptr
      type(c_funptr), value :: f
      real(c_double) :: x(*), dx(*), mu(*), dmu(*)
    end subroutine
    real(c_double) function tangent_centred(f, x, dx, mu, dmu) bind(C, name="__enzyme_fwddiff_centred")
      import :: c_double, c_funptr
      type(c_funptr), value :: f
      real(c_double) :: x(*), dx(*), mu(*), dmu(*)
    end function
  end interface
  integer, parameter :: n = 5
  real(c_double) :: x0, g, t, want, h
  real(c_double) :: x(n), dx(n), tx(n), r, dr, tr, rp, rm, u(n), du(n), up(n), um(n)
  integer :: i
  h = 1d-6

  do i = 0, 4
    x0 = -1.0d0 + 0.55d0 * i
    g = grad_wave(c_funloc(wave), x0)
    t = tangent_wave(c_funloc(wave), x0, 1.0d0)
    want = cos(x0) * x0**2 + 2 * x0 * sin(x0) - exp(-x0)
    call check("wave reverse vs analytic", g, want, 1d-12)
    call check("wave forward vs reverse", t, g, 1d-12)
  end do

  x = [0.5d0, -1.0d0, 2.0d0, 0.25d0, 1.5d0]
  dx = 0
  dr = 1
  call grad_norm(c_funloc(norm), n, x, dx, r, dr)
  do i = 1, n
    call check("norm reverse vs analytic", dx(i), x(i) / sqrt(sum(x**2)) + i, 1d-12)
    tx = 0
    tx(i) = 1
    tr = 0
    call tangent_norm(c_funloc(norm), n, x, tx, r, tr)
    call check("norm forward vs reverse", tr, dx(i), 1d-12)
  end do

  ! relax: the sum of the final state, by finite differences per entry
  u = x
  du = 1
  call grad_relax(c_funloc(relax), n, u, du)
  do i = 1, n
    up = x
    up(i) = up(i) + h
    um = x
    um(i) = um(i) - h
    call relax(n, up)
    call relax(n, um)
    call check("relax reverse vs finite difference", du(i), (sum(up) - sum(um)) / (2 * h), 1d-6)
  end do

  ! diffs (an automatic array): reverse against finite differences, forward against reverse
  dx = 0
  dr = 1
  call grad_diffs(c_funloc(diffs), n, x, dx, r, dr)
  do i = 1, n
    up = x
    up(i) = up(i) + h
    um = x
    um(i) = um(i) - h
    call diffs(n, up, rp)
    call diffs(n, um, rm)
    call check("diffs reverse vs finite difference", dx(i), (rp - rm) / (2 * h), 1d-6)
    tx = 0
    tx(i) = 1
    tr = 0
    call tangent_diffs(c_funloc(diffs), n, x, tx, r, tr)
    call check("diffs forward vs reverse", tr, dx(i), 1d-12)
  end do

  ! centred (a local array filled, then read): every partial against finite
  ! differences, forward against reverse
  block
    real(c_double) :: cx(6), cdx(6), cmu(24), cdmu(24), ctx(6), ctmu(24), sp, sm, keep
    integer :: j
    cx = [(0.3d0 + 0.17d0 * j - 0.05d0 * j * j, j = 0, 5)]
    cmu = [(0.4d0 * sin(1.3d0 * j + 0.2d0), j = 0, 23)]
    cdx = 0
    cdmu = 0
    call grad_centred(c_funloc(centred), cx, cdx, cmu, cdmu)
    do j = 1, 30
      ctx = 0
      ctmu = 0
      if (j <= 6) then
        keep = cx(j)
        cx(j) = keep + h
        sp = centred(cx, cmu)
        cx(j) = keep - h
        sm = centred(cx, cmu)
        cx(j) = keep
        call check("centred reverse vs finite difference", cdx(j), (sp - sm) / (2 * h), 1d-6)
        ctx(j) = 1
      else
        keep = cmu(j - 6)
        cmu(j - 6) = keep + h
        sp = centred(cx, cmu)
        cmu(j - 6) = keep - h
        sm = centred(cx, cmu)
        cmu(j - 6) = keep
        call check("centred reverse vs finite difference", cdmu(j - 6), (sp - sm) / (2 * h), 1d-6)
        ctmu(j - 6) = 1
      end if
      tr = tangent_centred(c_funloc(centred), cx, ctx, cmu, ctmu)
      if (j <= 6) then
        call check("centred forward vs reverse", tr, cdx(j), 1d-12)
      else
        call check("centred forward vs reverse", tr, cdmu(j - 6), 1d-12)
      end if
    end do
  end block

  call finish("fortran kernels: all checks passed")
end program
