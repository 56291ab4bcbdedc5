"""mallard.gym: gymnasium environments around mallard simulations (mirrors pydrake.gym)."""
from .drake_gym_env import DrakeGymEnv
from .drake_vector_env import CopySimulator, DrakeVectorEnv
from .plant_vector_env import PlantVectorEnv

__all__ = ["CopySimulator", "DrakeGymEnv", "DrakeVectorEnv", "PlantVectorEnv"]
