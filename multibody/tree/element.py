"""Common base of every multibody element: name, index, model instance and owning plant."""
from __future__ import annotations

import functools
import weakref

from mallard.systems.framework.portable import PortableAttributes
from mallard.systems.framework.weak_owner import WeakAttribute

# A weak reference to the handle given to users of each element (see MultibodyElement), by id() of the element
# the plant stores; an entry lives as long as the user holds the handle (which keeps the plant, hence that
# element and its id, alive).
_handles: "dict[int, weakref.ref]" = {}


def _forget(key: int, ref: weakref.ref) -> None:
    if _handles.get(key) is ref:
        del _handles[key]


def _register(key: int, handle) -> None:
    _handles[key] = weakref.ref(handle, functools.partial(_forget, key))


class MultibodyElement(PortableAttributes):
    """An element of a MultibodyPlant (body, frame, joint, actuator, force element); callables it holds (random
    distributions) pickle by value, as the framework's do.

    Ownership, as pydrake's: the plant holds its elements and each points back to it weakly, so reference
    counting alone frees a plant nobody holds (no reference cycle). What the plant's accessors give users is a
    *handle*: an object of the element's class sharing the element's attribute dict (so it is the element in
    every respect but `is`), which also holds the plant strongly, as pybind's keep_alive does: a body you hold
    keeps its plant alive. While a user holds a handle, every accessor returns that same handle. Elements compare
    equal (and hash) by that shared dict, so a handle and the stored element are interchangeable as keys.
    """

    __slots__ = ("_keep_plant", "_stored")  # set on handles only: the plant kept alive, the element stored in it

    _kind = "element"
    _plant = WeakAttribute()  # the owning plant, held weakly (systems/framework/weak_owner.py)

    def __eq__(self, other) -> bool:
        return self is other or (isinstance(other, MultibodyElement) and other.__dict__ is self.__dict__)

    def __hash__(self) -> int:
        return id(self.__dict__)

    def __init__(self, name: str, model_instance=None):
        if not isinstance(name, str):
            raise ValueError(f"{self._kind} name must be a str, got {type(name).__name__}")
        self._name = name
        self._model_instance = model_instance
        self._index = None
        self._plant = None

    def name(self) -> str:
        """The element's name (unique within its model instance and kind)."""
        return self._name

    def index(self):
        """The element's typed index in its plant."""
        if self._index is None:
            raise RuntimeError(f"{self._kind} '{self._name}' has not been added to a MultibodyPlant yet")
        return self._index

    def model_instance(self):
        """The ModelInstanceIndex this element belongs to."""
        return self._model_instance

    def scoped_name(self):
        """The ScopedName '<model instance name>::<name>'."""
        from .scoped_name import ScopedName
        plant = self.GetParentPlant()
        return ScopedName.Make(plant.GetModelInstanceName(self._model_instance), self._name) or \
            ScopedName.Join(plant.GetModelInstanceName(self._model_instance), self._name)

    def is_ephemeral(self) -> bool:
        """True for elements the plant added itself at Finalize (the floating joints of free bodies)."""
        return bool(getattr(self, "_ephemeral", False))

    def GetParentPlant(self):
        """The MultibodyPlant that owns this element."""
        plant = self._plant
        if plant is None:
            if self._plant_ref is not None:
                raise RuntimeError(f"{self._kind} '{self._name}': its MultibodyPlant was deleted; keep a reference "
                                   "to the plant (or to its Diagram) while you use its elements")
            raise RuntimeError(f"{self._kind} '{self._name}' is not part of a MultibodyPlant; add it first")
        return plant

    def _attach(self, plant, index) -> None:
        if self._plant is not None:
            raise RuntimeError(f"{self._kind} '{self._name}' already belongs to a MultibodyPlant")
        self._plant = plant
        self._index = index
        # The elements this one refers to (a joint's frames, an actuator's joint), by their stored objects, not
        # the user's handles, which would keep the plant in a reference cycle.
        attributes = self.__dict__
        for key, value in list(attributes.items()):
            if isinstance(value, MultibodyElement):
                attributes[key] = stored(value)

    def __repr__(self) -> str:
        """pydrake's form, e.g. <RevoluteJoint name='elbow' index=1 model_instance=2> (force elements are unnamed)."""
        index = "None" if self._index is None else int(self._index)
        instance = "None" if self._model_instance is None else int(self._model_instance)
        name = "" if self._kind == "force element" else f" name='{self._name}'"
        return f"<{type(self).__name__}{name} index={index} model_instance={instance}>"


def held(element):
    """The handle users get for `element` (see MultibodyElement); lists and tuples element-wise. Anything else,
    and an element of no plant, is returned as is."""
    kind = type(element)
    if kind is list or kind is tuple:
        return kind(held(e) for e in element)
    if not isinstance(element, MultibodyElement) or getattr(element, "_keep_plant", None) is not None:
        return element
    ref = _handles.get(id(element))
    handle = None if ref is None else ref()
    if handle is None:
        plant = element._plant
        if plant is None:
            return element
        handle = object.__new__(kind)
        handle.__dict__ = element.__dict__
        handle._keep_plant, handle._stored = plant, element
        _register(id(element), handle)
    return handle


def stored(element):
    """The element object the plant stores for `element` (a handle or the element itself)."""
    return getattr(element, "_stored", element)


def adopt(element, plant):
    """For a plant adding a user-constructed `element` (already attached): the object to store, a new one sharing
    its dict; the user's object becomes its handle (so it keeps the plant alive and accessors return it)."""
    inner = object.__new__(type(element))
    inner.__dict__ = element.__dict__
    element._keep_plant, element._stored = plant, inner
    _register(id(inner), element)
    return inner


def hands_out(cls: type, names: tuple) -> type:
    """Wraps `cls`'s methods `names` so that the elements they return are handles (`held`)."""
    for name in names:
        method = getattr(cls, name)

        @functools.wraps(method)
        def wrapper(*args, __method=method, **kwargs):
            return held(__method(*args, **kwargs))

        setattr(cls, name, wrapper)
    return cls
