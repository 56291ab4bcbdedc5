"""pydrake.common.cpp_template: objects that map template parameters to instantiations, as C++ templates do.

`TemplateClass("Value")[float]` is the class `Value[float]`; `template[None]` is the first instantiation added;
`template(*args)` tries the instantiations in order. Instantiations can be deferred (`add_instantiations`,
`define`): the function that makes one runs the first time it is asked for. mallard's scalar-type templates
(`MultibodyPlant_[float]`) and `Value` are built on these classes.
"""
from __future__ import annotations

import inspect
import sys
import types
import warnings
from typing import Any, Callable, Iterable

__all__ = ["TemplateBase", "TemplateClass", "TemplateFunction", "TemplateMethod", "get_or_init"]


def _caller_module(depth: int = 2) -> types.ModuleType | None:
    """The module of the frame `depth` levels up (the scope a template is created in)."""
    frame = inspect.currentframe()
    for _ in range(depth):
        frame = frame.f_back if frame is not None else None
    return sys.modules.get(frame.f_globals.get("__name__")) if frame is not None else None


def _param_canonical(param: tuple) -> tuple:
    """Parameters as the template keys them: Python's own numeric types stand for numpy's scalar types."""
    out = []
    for p in param:
        name = getattr(p, "__name__", None)
        if isinstance(p, type) and getattr(p, "__module__", "") == "numpy":
            p = {"float64": float, "int64": int, "bool_": bool, "object_": object}.get(name, p)
        out.append(p)
    return tuple(out)


def _param_name(p: Any) -> str:
    """How a parameter is written inside `Name[...]`: a type by its name, a literal by its repr."""
    if isinstance(p, type):
        return p.__name__
    name = getattr(p, "__name__", None)
    return name if isinstance(name, str) else repr(p)


def get_or_init(scope: Any, name: str, template_cls: type, *args, **kwargs) -> "TemplateBase":
    """The template `name` of `scope`, created as `template_cls(name, *args, scope=scope, **kwargs)` and set on
    `scope` when it has none."""
    template = getattr(scope, name, None)
    if template is None:
        template = template_cls(name, *args, scope=scope, **kwargs)
        setattr(scope, name, template)
    return template


class _Deferred:
    """Marks an instantiation whose making function has not run yet."""


_DEFERRED = _Deferred()


class TemplateBase:
    """Maps parameter tuples (types or literals) to instantiations, in the order they were added.

    mallard extension (keyword-only, for templates over any Python type such as `Value`): `on_demand(param)`
    makes the instantiation of parameters never added instead of raising, and `deduce(*args, **kwargs)` picks the
    parameters a call instantiates instead of trying each instantiation in turn."""

    _deferred = _DEFERRED

    def __init__(self, name: str, allow_default: bool = True, scope: Any = None, *,
                 on_demand: Callable[[tuple], Any] | None = None, deduce: Callable[..., Any] | None = None) -> None:
        self.name = name
        self._on_demand, self._deduce = on_demand, deduce
        self.param_list: list[tuple] = []
        self._allow_default = allow_default
        self._instantiation_map: dict = {}
        self._instantiation_alias_map: dict = {}
        self._scope = scope if scope is not None else _caller_module()
        self._instantiation_func: Callable | None = None
        self._deprecation_map: dict = {}
        self.__doc__ = ""

    def __getitem__(self, *param: Any) -> Any:
        """`template[T]`, `template[T0, T1]`, `template[(T0, T1)]`, `template[[T0, T1]]`, `template[None]`."""
        return self.get_instantiation(param[0] if len(param) == 1 else param)[0]

    def __call__(self, *args, **kwargs) -> Any:
        """Calls the first instantiation that accepts the arguments (pseudo argument deduction)."""
        if not args and not kwargs:
            raise TypeError(f"{self.name}: incompatible function arguments for template: Cannot call without "
                            "arguments")
        result = self._call_internal(*args, **kwargs)
        if result is None:
            raise TypeError(f"{self.name}: incompatible function arguments for template: No compatible "
                            "instantiations")
        return result

    def _call_internal(self, *args, **kwargs) -> Any:
        if self._deduce is not None:
            return self[self._deduce(*args, **kwargs)](*args, **kwargs)
        for param in self.param_list:
            try:
                return self.get_instantiation(param)[0](*args, **kwargs)
            except TypeError:
                continue
        return None

    def get_module_name(self) -> str:
        """The name of the module this template belongs to (e.g. "mallard.common.value")."""
        if isinstance(self._scope, types.ModuleType):
            return self._scope.__name__
        raise RuntimeError(f"Unable to resolve `get_module_name` for a scope that is not a module: {self._scope}")

    def get_instantiation(self, param: Any = None, throw_error: bool = True) -> tuple[Any, tuple]:
        """(instantiation, resolved parameters); RuntimeError for parameters never added (unless not
        `throw_error`, then the instantiation is None)."""
        param = self._param_resolve(param)
        if self._on_demand is not None and param not in self._instantiation_map:
            self.add_instantiation(param, self._on_demand(param))
        instantiation = self._instantiation_map.get(param)
        if instantiation is _DEFERRED:
            instantiation = self._instantiation_func(param)
            self._add_instantiation_internal(param, instantiation, skip_rename=False)
            instantiation = self._instantiation_map[param]
        elif instantiation is None and throw_error:
            raise RuntimeError(f"Invalid instantiation: {self._instantiation_name(param)}")
        deprecation = self._deprecation_map.get(param)
        if deprecation is not None:
            warnings.warn(deprecation, DeprecationWarning, stacklevel=3)
        return instantiation, param

    def add_instantiation(self, param: Any, instantiation: Any, skip_rename: bool = False) -> tuple:
        """Registers `instantiation` for `param` (RuntimeError when `param` already has one)."""
        param = self._param_resolve(param)
        if param in self._instantiation_map:
            raise RuntimeError(f"Parameter instantiation already registered: {param}")
        self.param_list.append(param)
        self._add_instantiation_internal(param, instantiation, skip_rename)
        return param

    def _add_instantiation_internal(self, param: tuple, instantiation: Any, skip_rename: bool) -> None:
        if instantiation is None:
            raise ValueError(f"{self.name}: an instantiation cannot be None")
        if instantiation is not _DEFERRED:
            added = self._on_add(param, instantiation, skip_rename)
            if added is not instantiation:
                self._instantiation_alias_map[instantiation] = added
            instantiation = added
        self._instantiation_map[param] = instantiation

    def add_instantiations(self, instantiation_func: Callable, param_list: Iterable) -> None:
        """Registers `param_list`, each made by `instantiation_func(param)` the first time it is asked for (once
        per template)."""
        if self._instantiation_func is not None:
            raise RuntimeError("`add_instantiations` cannot be called multiple times.")
        self._instantiation_func = instantiation_func
        for param in param_list:
            self.add_instantiation(param, _DEFERRED)

    def deprecate_instantiation(self, param: Any, message: str, *, date: str | None = None) -> tuple[Any, tuple]:
        """Makes asking for `param` warn with `message` (and the removal `date`, "YYYY-MM-DD", when given)."""
        param = self._param_resolve(param)
        if param in self._deprecation_map:
            raise RuntimeError(f"Deprecation already registered: {self._instantiation_name(param)}")
        instantiation, param = self.get_instantiation(param)
        text = message if date is None else f"{message} The deprecated code will be removed from Drake on or after {date}."
        self._deprecation_map[param] = text
        return instantiation, param

    def get_param_set(self, instantiation: Any) -> set:
        """Every parameter tuple that maps to `instantiation`."""
        return {param for param, value in self._instantiation_map.items() if value == instantiation}

    def is_instantiation(self, obj: Any) -> bool:
        """True when `obj` is one of this template's instantiations."""
        obj = self._instantiation_alias_map.get(obj, obj)
        return any(self.get_instantiation(param)[0] is obj for param in self.param_list)

    def _param_resolve(self, param: Any) -> tuple:
        if param is None:
            if not self._allow_default or not self.param_list:
                raise RuntimeError(f"{self.name}: no default instantiation")
            return self.param_list[0]
        if isinstance(param, list):
            param = tuple(param)
        elif not isinstance(param, tuple):
            param = (param,)
        return _param_canonical(param)

    def _instantiation_name(self, param: Any) -> str:
        """The display name of an instantiation, e.g. "Value[float]"."""
        return f"{self.name}[{','.join(_param_name(p) for p in self._param_resolve(param))}]"

    def _full_name(self) -> str:
        return f"{getattr(self._scope, '__name__', self._scope)}.{self.name}"

    def __str__(self) -> str:
        return f"<{type(self).__name__} {self._full_name()}>"

    __repr__ = __str__

    def _on_add(self, param: tuple, instantiation: Any, skip_rename: bool) -> Any:
        return instantiation

    @classmethod
    def define(cls, name: str, param_list: Iterable, *args, scope: Any = None, **kwargs) -> Callable:
        """Decorator: the decorated function `f(param)` makes the instantiations of a new template `name`."""
        template = cls(name, *args, scope=scope if scope is not None else _caller_module(), **kwargs)

        def decorator(instantiation_func: Callable) -> "TemplateBase":
            template.add_instantiations(instantiation_func, param_list)
            return template

        return decorator


class TemplateClass(TemplateBase):
    """A template whose instantiations are classes, renamed `Name[T]` in the template's module."""

    def __init__(self, name: str, *, scope: Any = None, **kwargs) -> None:
        super().__init__(name, scope=scope if scope is not None else _caller_module(), **kwargs)

    def _on_add(self, param: tuple, cls: type, skip_rename: bool) -> type:
        if not skip_rename:
            cls._original_name = cls.__name__
            cls._original_qualname = getattr(cls, "__qualname__", cls.__name__)
            cls.__name__ = cls.__qualname__ = self._instantiation_name(param)
            if isinstance(self._scope, types.ModuleType):
                cls.__module__ = self._scope.__name__
        return cls

    def is_subclass_of_instantiation(self, obj: type) -> type | None:
        """The first instantiation `obj` derives from, or None."""
        for param in self.param_list:
            instantiation = self.get_instantiation(param)[0]
            if isinstance(obj, type) and issubclass(obj, instantiation):
                return instantiation
        return None


def _renamed(f: Callable, module: str, name: str, qualname: str) -> Callable:
    """`f` under a new name (builtins and bound methods, whose names are read-only, are wrapped)."""
    if isinstance(f, (types.MethodType, types.BuiltinMethodType, types.BuiltinFunctionType)):
        original = f

        def f(*args, **kwargs):
            return original(*args, **kwargs)

        f.__doc__ = original.__doc__
    f.__module__, f.__name__, f.__qualname__ = module, name, qualname
    return f


class TemplateFunction(TemplateBase):
    """A template whose instantiations are functions, renamed `name[T]`."""

    def _on_add(self, param: tuple, func: Callable, skip_rename: bool) -> Callable:
        name = self._instantiation_name(param)
        return _renamed(func, getattr(self._scope, "__name__", str(self._scope)), name, name)


class TemplateMethod(TemplateBase):
    """A template of methods of class `cls`; `obj.method[T]` is bound to obj."""

    def __init__(self, name: str, cls: type, scope: Any = None, **kwargs) -> None:
        super().__init__(name, scope=scope if scope is not None else _caller_module(), **kwargs)
        self._cls = cls

    def _on_add(self, param: tuple, func: Callable, skip_rename: bool) -> Callable:
        name = self._instantiation_name(param)
        return _renamed(func, self._cls.__module__, name, f"{self._cls.__qualname__}.{name}")

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        return self if obj is None else _BoundTemplateMethod(self, obj)

    def __set__(self, obj: Any, value: Any) -> None:
        raise RuntimeError("Read-only property")

    def _full_name(self) -> str:
        return f"{self._cls.__name__}.{self.name}"

    def __str__(self) -> str:
        return f"<unbound TemplateMethod {self._full_name()}>"


class _BoundTemplateMethod:
    """`obj.method` of a TemplateMethod: `[T]` gives the instantiation bound to obj."""

    def __init__(self, template: TemplateMethod, obj: Any) -> None:
        self._tpl, self._obj = template, obj

    def __getitem__(self, param: Any) -> Callable:
        return types.MethodType(self._tpl[param], self._obj)

    def __str__(self) -> str:
        return f"<bound TemplateMethod {self._tpl._full_name()} of {self._obj}>"
