"""Common base of every multibody element: name, index, model instance and owning plant."""
from __future__ import annotations

from mallard.systems.framework.portable import PortableAttributes


class MultibodyElement(PortableAttributes):
    """An element of a MultibodyPlant (body, frame, joint, actuator, force element); callables it holds (random
    distributions) pickle by value, as the framework's do."""

    _kind = "element"

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
        if self._plant is None:
            raise RuntimeError(f"{self._kind} '{self._name}' is not part of a MultibodyPlant; add it first")
        return self._plant

    def _attach(self, plant, index) -> None:
        if self._plant is not None:
            raise RuntimeError(f"{self._kind} '{self._name}' already belongs to a MultibodyPlant")
        self._plant = plant
        self._index = index

    def __repr__(self) -> str:
        """pydrake's form, e.g. <RevoluteJoint name='elbow' index=1 model_instance=2> (force elements are unnamed)."""
        index = "None" if self._index is None else int(self._index)
        instance = "None" if self._model_instance is None else int(self._model_instance)
        name = "" if self._kind == "force element" else f" name='{self._name}'"
        return f"<{type(self).__name__}{name} index={index} model_instance={instance}>"
