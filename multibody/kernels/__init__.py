"""mallard.multibody.kernels: the compiled model arrays and the numba pipeline over them."""
from .compiled_model import CompiledModel
from .joint_kernels import (BALL_QUATERNION, BALL_RPY, JOINT_SIZES, PLANAR, PRISMATIC, QUATERNION_FLOATING, REVOLUTE,
                            RPY_FLOATING, SCREW, UNIVERSAL, WELD)

__all__ = ["BALL_QUATERNION", "BALL_RPY", "CompiledModel", "JOINT_SIZES", "PLANAR", "PRISMATIC", "QUATERNION_FLOATING", "REVOLUTE",
           "RPY_FLOATING", "SCREW", "UNIVERSAL", "WELD"]
