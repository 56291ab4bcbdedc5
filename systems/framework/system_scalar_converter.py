"""Scalar conversion in a double-only framework: `SystemScalarConverter` and `System.ToScalarType[T]`.

pydrake converts systems between double, AutoDiffXd and Expression. mallard computes in double only (Linearize
works by finite differences), so every request for another scalar type is a clear "double precision only"
error, and converting to float gives an independent double copy (`Clone()`).
"""
from __future__ import annotations

from typing import Any, Callable

from mallard.common.scalar_template import check_scalar_type, double_only_error

__all__ = ["SystemScalarConverter", "ScalarConversionMethod"]


class _DoubleOnlyClassProperty:
    """A class attribute that raises the double-only error when read (SupportedScalars, ...)."""

    def __init__(self, what: str) -> None:
        self._what = what

    def __get__(self, obj, owner):
        raise double_only_error(f"SystemScalarConverter.{self._what}")


class _ConvertibleQuery:
    """`converter.IsConvertible[T, U]()`: only float -> float, which is always true."""

    def __getitem__(self, pair) -> Callable[[], bool]:
        T, U = pair
        check_scalar_type("SystemScalarConverter.IsConvertible", T)
        check_scalar_type("SystemScalarConverter.IsConvertible", U)
        return lambda: True


class SystemScalarConverter:
    """The scalar converter of a system; in mallard it converts only to double (a copy)."""

    SupportedScalars = _DoubleOnlyClassProperty("SupportedScalars")
    SupportedConversionPairs = _DoubleOnlyClassProperty("SupportedConversionPairs")

    @property
    def IsConvertible(self) -> _ConvertibleQuery:
        return _ConvertibleQuery()

    def __repr__(self) -> str:
        return "SystemScalarConverter(double only)"


class _BoundConversion:
    """`system.ToScalarType[T]` (bound) or `Cls.ToScalarType[T]` (unbound: takes the system)."""

    def __init__(self, system: Any, maybe: bool) -> None:
        self._system, self._maybe = system, maybe

    def __getitem__(self, T: Any) -> Callable:
        name = "ToScalarTypeMaybe" if self._maybe else "ToScalarType"
        check_scalar_type(name, T)
        if self._system is not None:
            return self._system.Clone
        return lambda system: system.Clone()


class ScalarConversionMethod:
    """The descriptor behind `System.ToScalarType` / `ToScalarTypeMaybe`."""

    def __init__(self, maybe: bool) -> None:
        self._maybe = maybe

    def __get__(self, obj, owner) -> _BoundConversion:
        return _BoundConversion(obj, self._maybe)
