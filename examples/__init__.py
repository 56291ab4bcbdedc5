"""mallard.examples (pydrake.examples): the small textbook systems Drake's examples and tutorials import. The
runnable scripts of this folder (quickstart.py, acrobot_lqr.py, ...) are not part of the module."""
from .acrobot import (AcrobotInput, AcrobotParams, AcrobotPlant, AcrobotSpongController, AcrobotState,
                      SpongControllerParams)
from .pendulum import PendulumInput, PendulumParams, PendulumPlant, PendulumState
from .van_der_pol import VanDerPolOscillator

__all__ = ["AcrobotInput", "AcrobotParams", "AcrobotPlant", "AcrobotSpongController", "AcrobotState",
           "PendulumInput", "PendulumParams", "PendulumPlant", "PendulumState", "SpongControllerParams",
           "VanDerPolOscillator"]
