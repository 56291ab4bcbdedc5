"""Context: time, state, parameters, fixed input values and cache of one system (or diagram).

The root context owns one flat array for all continuous state and one for all discrete state; every
leaf context holds views into them (DESIGN §3). The root also keeps the coarse version counters that
cached values are checked against. Contexts are plain Python objects: Clone() and pickle work.
"""
from __future__ import annotations

import copy
from typing import Any

import numpy as np

from .basic_vector import BasicVector, VectorBase
from .cache import new_slot
from .dependency import K_ACC, K_P, K_TIME, K_U, K_XA, K_XC, K_XD, NUM_KINDS
from .state import AbstractValues, ContinuousState, DiscreteValues, Parameters, State, check_size
from .context_text import context_to_string
from mallard.common.value import AbstractValue

__all__ = ["ContextBase", "Context", "LeafContext", "DiagramContext"]

_TRANSIENT = ("_root", "_parent", "_continuous", "_discrete", "_abstract_values", "_params", "_state",
              "_input_sources", "_sources_version", "_scratch_state", "_leaf_contexts", "_xc", "_xd",
              "_xc_scratch", "_xd_scratch", "_versions", "_vsum", "_wiring_version", "_derivs_slot",
              "_derivs", "_xcdot_slot", "_deriv_views")


class ContextBase:
    """The scalar-independent part of a context (pydrake's ContextBase): its system's name, port counts and
    cache controls. `Context` adds time, state and parameters."""

    def GetSystemName(self) -> str:
        return self._pathname.rsplit("::", 1)[-1]

    def GetSystemPathname(self) -> str:
        return self._pathname

    def num_input_ports(self) -> int:
        return len(self._fixed_inputs)

    def num_output_ports(self) -> int:
        return self._num_output_ports

    # ----- caching controls (the whole tree shares its root's) -----------------------------------
    def DisableCaching(self) -> None:
        self._root._caching = False

    def EnableCaching(self) -> None:
        self._root._caching = True

    def SetAllCacheEntriesOutOfDate(self) -> None:
        self._root._bump(K_ACC)

    def FreezeCache(self) -> None:
        self._root._frozen = True

    def UnfreezeCache(self) -> None:
        self._root._frozen = False

    def is_cache_frozen(self) -> bool:
        return self._root._frozen


class Context(ContextBase):
    """Common API of leaf and diagram contexts (pydrake's `Context`)."""

    def __init__(self, system_id: int, pathname: str, num_inputs: int, num_outputs: int) -> None:
        self._system_id = system_id
        self._pathname = pathname
        self._fixed_inputs: list = [None] * num_inputs
        self._num_output_ports = num_outputs
        self._time = 0.0
        self._accuracy: float | None = None
        self._caching = True
        self._frozen = False
        self._root: Context | None = None
        self._parent: Context | None = None

    # ----- root bookkeeping -------------------------------------------------------------------
    def _make_root(self) -> None:
        """Allocates the flat state arrays and binds every context of this tree to them."""
        nxc, nxd = self._count_sizes()
        self._root = self
        self._parent = None
        self._xc = np.zeros(nxc)
        self._xd = np.zeros(nxd)
        self._xc_scratch = np.zeros(nxc)
        self._xd_scratch = np.zeros(nxd)
        self._versions = [0] * NUM_KINDS
        self._vsum = 0
        self._wiring_version = 0
        self._derivs_slot = None
        self._leaf_contexts: list[LeafContext] = []
        self._bind(self, None, 0, 0)

    def _bump(self, kind: int) -> None:
        """Marks every cached value that depends on `kind` as out of date (root only)."""
        root = self._root
        root._versions[kind] += 1
        root._vsum += 1

    def _require_root(self, what: str) -> "Context":
        if self._root is not self:
            raise RuntimeError(f"{what} may only be called on a root context; this context belongs to "
                               f"subsystem {self._pathname} (use the diagram's root context)")
        return self

    def is_root_context(self) -> bool:
        return self._root is self

    # ----- time and accuracy -------------------------------------------------------------------
    def get_time(self) -> float:
        return self._root._time

    def SetTime(self, time_sec: float) -> None:
        root = self._require_root("SetTime")
        root._time = float(time_sec)
        root._versions[K_TIME] += 1
        root._vsum += 1

    def PerturbTime(self, time: float, true_time: float) -> None:
        self.SetTime(time)

    def SetAccuracy(self, accuracy: float | None) -> None:
        root = self._require_root("SetAccuracy")
        if accuracy is not None and not accuracy > 0:
            raise ValueError(f"SetAccuracy: accuracy must be positive (or None), got {accuracy}")
        root._accuracy = None if accuracy is None else float(accuracy)
        root._bump(K_ACC)

    def get_accuracy(self) -> float | None:
        return self._root._accuracy

    # ----- continuous state ----------------------------------------------------------------------
    def num_continuous_states(self) -> int:
        return self._continuous.size()

    def get_continuous_state(self) -> ContinuousState:
        return self._continuous

    def get_mutable_continuous_state(self) -> ContinuousState:
        self._root._bump(K_XC)
        return self._continuous

    def get_continuous_state_vector(self) -> VectorBase:
        return self._continuous._vector

    def get_mutable_continuous_state_vector(self) -> VectorBase:
        self._root._bump(K_XC)
        return self._continuous._vector

    def SetContinuousState(self, xc: Any) -> None:
        vec = self._continuous._vector
        vec._data[:] = check_size(xc, vec.size(), f"SetContinuousState on {self._pathname}")
        self._root._bump(K_XC)

    def SetTimeAndContinuousState(self, time: float, xc: Any) -> None:
        self.SetTime(time)
        self.SetContinuousState(xc)

    # ----- discrete state ------------------------------------------------------------------------
    def num_discrete_state_groups(self) -> int:
        return self._discrete.num_groups()

    def get_discrete_state(self, index: int | None = None):
        return self._discrete if index is None else self._discrete.get_vector(index)

    def get_mutable_discrete_state(self, index: int | None = None):
        self._root._bump(K_XD)
        return self._discrete if index is None else self._discrete.get_vector(index)

    def get_discrete_state_vector(self) -> VectorBase:
        return self._discrete._only(f"get_discrete_state_vector on {self._pathname}")

    def get_mutable_discrete_state_vector(self) -> VectorBase:
        self._root._bump(K_XD)
        return self._discrete._only(f"get_mutable_discrete_state_vector on {self._pathname}")

    def SetDiscreteState(self, *args: Any, group_index: int | None = None, xd: Any = None) -> None:
        """`SetDiscreteState(xd)` (one group), `SetDiscreteState(group_index, xd)` or `(DiscreteValues)`."""
        if group_index is not None:
            args = (group_index,) + args
        if xd is not None:
            args = args + (xd,)
        if len(args) == 1 and isinstance(args[0], DiscreteValues):
            self._discrete.SetFrom(args[0])
        elif len(args) == 1:
            group = self._discrete._only(f"SetDiscreteState on {self._pathname}")
            group._data[:] = check_size(args[0], group.size(), f"SetDiscreteState on {self._pathname}")
        else:
            group = self._discrete._group(int(args[0]))
            group._data[:] = check_size(args[1], group.size(), f"SetDiscreteState({args[0]}) on {self._pathname}")
        self._root._bump(K_XD)

    # ----- abstract state ------------------------------------------------------------------------
    def num_abstract_states(self) -> int:
        return self._abstract_values.size()

    def get_abstract_state(self, index: int | None = None):
        return self._abstract_values if index is None else self._abstract_values.get_value(index)

    def get_mutable_abstract_state(self, index: int | None = None):
        self._root._bump(K_XA)
        return self._abstract_values if index is None else self._abstract_values.get_value(index)

    def SetAbstractState(self, index: int, value: Any) -> None:
        target = self._abstract_values.get_value(index)
        target.set_value(value.get_value() if isinstance(value, AbstractValue) else value)
        self._root._bump(K_XA)

    # ----- whole state ---------------------------------------------------------------------------
    def get_state(self) -> State:
        return self._state

    def get_mutable_state(self) -> State:
        root = self._root
        for kind in (K_XC, K_XD, K_XA):
            root._bump(kind)
        return self._state

    def num_total_states(self) -> int:
        return self.num_continuous_states() + sum(g.size() for g in self._discrete._groups)

    def is_stateless(self) -> bool:
        return self.num_continuous_states() == 0 and self.num_discrete_state_groups() == 0 \
            and self.num_abstract_states() == 0

    def has_only_continuous_state(self) -> bool:
        return self.num_continuous_states() > 0 and self.num_discrete_state_groups() == 0 \
            and self.num_abstract_states() == 0

    def has_only_discrete_state(self) -> bool:
        return self.num_continuous_states() == 0 and self.num_discrete_state_groups() > 0 \
            and self.num_abstract_states() == 0

    # ----- parameters ----------------------------------------------------------------------------
    def get_parameters(self) -> Parameters:
        return self._params

    def get_mutable_parameters(self) -> Parameters:
        self._root._bump(K_P)
        return self._params

    def num_numeric_parameter_groups(self) -> int:
        return self._params.num_numeric_parameter_groups()

    def num_abstract_parameters(self) -> int:
        return self._params.num_abstract_parameters()

    def get_numeric_parameter(self, index: int) -> VectorBase:
        return self._params.get_numeric_parameter(index)

    def get_mutable_numeric_parameter(self, index: int) -> VectorBase:
        self._root._bump(K_P)
        return self._params.get_numeric_parameter(index)

    def get_abstract_parameter(self, index: int) -> AbstractValue:
        return self._params.get_abstract_parameter(index)

    def get_mutable_abstract_parameter(self, index: int) -> AbstractValue:
        self._root._bump(K_P)
        return self._params.get_abstract_parameter(index)

    # ----- copying -------------------------------------------------------------------------------
    def SetTimeStateAndParametersFrom(self, source: "Context") -> None:
        root = self._root
        if root is self:
            self.SetTime(source.get_time())
            root._accuracy = source.get_accuracy()
        self.SetStateAndParametersFrom(source)

    def SetStateAndParametersFrom(self, source: "Context") -> None:
        if source._continuous.size() != self._continuous.size() or \
                source.num_discrete_state_groups() != self.num_discrete_state_groups():
            raise ValueError(f"SetStateAndParametersFrom: the source context of {source._pathname} does not "
                             f"have the same shape as this context of {self._pathname}")
        self._continuous._vector._data[:] = source._continuous._vector._data
        self._discrete.SetFrom(source._discrete)
        self._abstract_values.SetFrom(source._abstract_values)
        self._params.SetFrom(source._params)
        for kind in (K_XC, K_XD, K_XA, K_P):
            self._root._bump(kind)

    def Clone(self) -> "Context":
        """A deep, independent copy (a root context of the same shape, time, state and fixed inputs)."""
        clone = copy.deepcopy(self)
        if clone._root is None:
            clone._make_root()
        return clone

    def __getstate__(self) -> dict:
        state = {k: v for k, v in self.__dict__.items() if k not in _TRANSIENT}
        state["_time"] = self.get_time() if self._root is not None else self._time
        state["_accuracy"] = self.get_accuracy() if self._root is not None else self._accuracy
        state["_was_root"] = self._root is self
        self._save_locals(state)
        return state

    def __setstate__(self, state: dict) -> None:
        was_root = state.pop("_was_root", False)
        self.__dict__.update(state)
        self._root = None
        self._parent = None
        if was_root:
            self._make_root()

    def __str__(self) -> str:
        return context_to_string(self)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._pathname}, time={self.get_time() if self._root else self._time})"


class LeafContext(Context):
    """The context of one LeafSystem: views into the root arrays plus its own abstract data and cache."""

    def __init__(self, system_id: int, pathname: str, num_inputs: int, num_outputs: int, nq: int, nv: int, nz: int,
                 group_values: list[np.ndarray], abstract_state: list[AbstractValue],
                 numeric_parameters: list[BasicVector], abstract_parameters: list[AbstractValue],
                 num_cache_slots: int) -> None:
        super().__init__(system_id, pathname, num_inputs, num_outputs)
        self._nq, self._nv, self._nz = nq, nv, nz
        self._xc_local = np.zeros(nq + nv + nz)
        self._xd_locals = [np.array(g, dtype=float) for g in group_values]
        self._abstract = abstract_state
        self._numeric_params = numeric_parameters
        self._abstract_params = abstract_parameters
        self._cache = [new_slot() for _ in range(num_cache_slots)]

    def _count_sizes(self) -> tuple[int, int]:
        return self._nq + self._nv + self._nz, sum(len(g) for g in self._xd_locals)

    def _save_locals(self, state: dict) -> None:
        if self._root is not None:
            state["_xc_local"] = self._continuous._vector._data.copy()
            state["_xd_locals"] = [g._data.copy() for g in self._discrete._groups]
        state["_cache"] = [new_slot(slot[2]) for slot in self._cache]

    def _bind(self, root: Context, parent: Context | None, xc_off: int, xd_off: int) -> tuple[int, int]:
        self._root, self._parent = root, parent
        n = self._nq + self._nv + self._nz
        xc = root._xc[xc_off:xc_off + n]
        xc[:] = self._xc_local
        self._continuous = ContinuousState(BasicVector._wrap(xc, root, K_XC), self._nq, self._nv, self._nz)
        scratch_xc = ContinuousState(BasicVector._wrap(root._xc_scratch[xc_off:xc_off + n]), self._nq, self._nv, self._nz)
        groups, scratch_groups = [], []
        for local in self._xd_locals:
            view = root._xd[xd_off:xd_off + len(local)]
            view[:] = local
            groups.append(BasicVector._wrap(view, root, K_XD))
            scratch_groups.append(BasicVector._wrap(root._xd_scratch[xd_off:xd_off + len(local)]))
            xd_off += len(local)
        self._discrete = DiscreteValues(groups)
        self._abstract_values = AbstractValues(self._abstract, root, K_XA)
        for p in self._numeric_params:
            p._owner, p._kind = root, K_P
        self._params = Parameters(self._numeric_params, AbstractValues(self._abstract_params, root, K_P))
        self._state = State(self._continuous, self._discrete, self._abstract_values)
        self._scratch_state = State(scratch_xc, DiscreteValues(scratch_groups), AbstractValues([]))
        self._input_sources = [None] * len(self._fixed_inputs)
        self._sources_version = -1
        root._leaf_contexts.append(self)
        return xc_off + n, xd_off


class DiagramContext(Context):
    """The context of a Diagram: one subcontext per subsystem, in subsystem order."""

    def __init__(self, system_id: int, pathname: str, num_inputs: int, num_outputs: int,
                 children: list[Context]) -> None:
        super().__init__(system_id, pathname, num_inputs, num_outputs)
        self._children = children
        self._cache = []

    def _count_sizes(self) -> tuple[int, int]:
        nxc = nxd = 0
        for child in self._children:
            a, b = child._count_sizes()
            nxc, nxd = nxc + a, nxd + b
        return nxc, nxd

    def _save_locals(self, state: dict) -> None:
        pass

    def _bind(self, root: Context, parent: Context | None, xc_off: int, xd_off: int) -> tuple[int, int]:
        self._root, self._parent = root, parent
        start = xc_off
        q_idx, v_idx, z_idx = [], [], []
        groups, abstract, numeric, abstract_params = [], [], [], []
        for child in self._children:
            c0 = xc_off - start
            xc_off, xd_off = child._bind(root, self, xc_off, xd_off)
            cs = child._continuous
            nq, nv, nz = cs.num_q(), cs.num_v(), cs.num_z()
            if cs._q_index is None:
                q_idx.extend(range(c0, c0 + nq))
                v_idx.extend(range(c0 + nq, c0 + nq + nv))
                z_idx.extend(range(c0 + nq + nv, c0 + nq + nv + nz))
            else:
                q_idx.extend(c0 + cs._q_index)
                v_idx.extend(c0 + cs._v_index)
                z_idx.extend(c0 + cs._z_index)
            groups.extend(child._discrete._groups)
            abstract.extend(child._abstract_values._values)
            numeric.extend(child._params._numeric)
            abstract_params.extend(child._params._abstract._values)
        vec = BasicVector._wrap(root._xc[start:xc_off], root, K_XC)
        as_idx = lambda idx: np.array(idx, dtype=np.intp)  # noqa: E731
        self._continuous = ContinuousState(vec, len(q_idx), len(v_idx), len(z_idx),
                                           q_index=as_idx(q_idx), v_index=as_idx(v_idx), z_index=as_idx(z_idx))
        self._discrete = DiscreteValues(groups)
        self._abstract_values = AbstractValues(abstract, root, K_XA)
        self._params = Parameters(numeric, AbstractValues(abstract_params, root, K_P))
        self._state = State(self._continuous, self._discrete, self._abstract_values)
        self._input_sources = [None] * len(self._fixed_inputs)
        self._sources_version = -1
        return xc_off, xd_off

    def num_subcontexts(self) -> int:
        return len(self._children)


def fixed_inputs_changed(context: Context) -> None:
    """Called when a fixed input value is set or replaced: re-resolves input wiring and caches."""
    root = context._root
    root._wiring_version += 1
    root._bump(K_U)
