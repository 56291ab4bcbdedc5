"""The compiled physics pipeline of the discrete MultibodyPlant (MuJoCo's mjModel / mjData / mj_step; MJX's
forward.py over smooth.py, collision_driver.py, constraint.py, solver.py).

`model.py` assembles the immutable Model from one part per stage; `data.py` holds one context's Data; the stages
(smooth, passive, actuation, collision, contact, constraint, solver, integrate) are numba functions over (Model,
Data); `forward.py` strings them into one compiled step. docs/design/pipeline.md describes the design and how a
feature is added.
"""
