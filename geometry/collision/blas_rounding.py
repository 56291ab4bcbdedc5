"""3-vector products in scalars, rounded as the BLAS calls numba makes for `a @ b` (ddot) and `R @ v`, `R.T @ v` (gemv)
on 3-vectors round them here: one product, then fused multiply-adds (checked against those calls on 900k random
vectors). The SDF kernels use them per vertex or per descent step, where the calls' overhead and temporaries cost
more than the arithmetic, and keep their results bit for bit."""
from __future__ import annotations

import llvmlite.ir as llvm_ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["dot3", "rotate_row", "rotate_t_row"]


@intrinsic
def _fma(typingctx, a, b, c):
    """a·b + c rounded once (LLVM's fma)."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(
            builder.module, llvm_ir.FunctionType(llvm_ir.DoubleType(), [llvm_ir.DoubleType()] * 3), "llvm.fma.f64")
        return builder.call(fn, args)
    return sig, codegen


@njit(cache=True, error_model="numpy", inline="always")
def dot3(a, b):
    """a·b of two 3-vectors, rounded as `a @ b` (the BLAS ddot numba calls) rounds it here: one product, then two
    fused multiply-adds; without the call's overhead (the plane scan does one per hull vertex)."""
    return _fma(a[2], b[2], _fma(a[1], b[1], a[0] * b[0]))


@njit(cache=True, error_model="numpy", inline="always")
def rotate_row(R, r, v):
    """(R @ v)[r] for a C-contiguous 3 × 3 R, rounded as the BLAS gemv numba calls rounds it here."""
    return _fma(R[r, 2], v[2], _fma(R[r, 0], v[0], R[r, 1] * v[1]))


@njit(cache=True, error_model="numpy", inline="always")
def rotate_t_row(R, r, v):
    """(R.T @ v)[r] for a C-contiguous 3 × 3 R (R.T a Fortran-ordered view), rounded as the BLAS gemv numba calls
    rounds it here."""
    return _fma(R[2, r], v[2], _fma(R[1, r], v[1], R[0, r] * v[0]))
