"""mallard.multibody.contact: soft-constraint contact and constraint models and their solvers.

MuJoCo-parameterized rows (ConstraintAssembler -> ConstraintProblem), Drake point-contact
materials on the same solver (SapContactProblem), the solvers (SolveConstraints: Newton, CG,
PGS), Drake's continuous compliant point contact, and the ContactResults value classes.

One discrete step (MJCF parameters), given kinematics from the plant and collision engine::

    asm = ConstraintAssembler(nv)
    asm.AddEquality("connect", J_eq, residual, diagA, solref, solimp, name="loop", Jdot_v=jdv)
    asm.AddFrictionLoss(J_row, frictionloss, dof_invweight, solref, solimp, name="knee")
    asm.AddLimit(J_row, dist, margin, dof_invweight, solref, solimp, name="knee")
    asm.SetContacts(J_contact, dist, condim, friction, solref, solimp, includemargin, tran, rot)
    problem = asm.Build(v, time_step, cone="pyramidal", impratio=1.0)
    result = SolveConstraints(problem, M, qacc_smooth, solver="newton", qacc_warmstart=prev)
    v_next = v + time_step * result.qacc     # result.converged / iterations / residual
"""
from .assembler import ConstraintAssembler, ConstraintProblem
from .contact_results import (ContactForces, ContactForcesInWorld, ContactResults,
                              PointPairContactInfo)
from .equality import ConnectRows, DistanceRow, JointCouplerRow
from .parameters import (ClampSolimp, Impedance, MixContactParameters, SolrefStiffnessDamping,
                         ValidateFriction, ValidateSolimp, ValidateSolref)
from .point_contact import (DEFAULT_PENETRATION_ALLOWANCE, DEFAULT_STICTION_TOLERANCE,
                            CalcCompliantPointContactForces, CombineFrictionCoefficients,
                            CombinePointContactParameters, DefaultPointContactParameters,
                            GeneralizedContactForces, StribeckFrictionCoefficient)
from .sap import (DEFAULT_RELAXATION_TIME, CombineRelaxationTimes, DelassusDiagonal,
                  SapContactProblem)
from .solver import ConstraintSolverResult, SolveConstraints

__all__ = [
    "ConstraintAssembler", "ConstraintProblem", "ConstraintSolverResult", "SolveConstraints",
    "Impedance", "SolrefStiffnessDamping", "MixContactParameters", "ClampSolimp",
    "ValidateSolref", "ValidateSolimp", "ValidateFriction",
    "JointCouplerRow", "ConnectRows", "DistanceRow",
    "ContactForces", "ContactForcesInWorld", "ContactResults", "PointPairContactInfo",
    "CalcCompliantPointContactForces", "CombineFrictionCoefficients", "CombinePointContactParameters",
    "DefaultPointContactParameters", "GeneralizedContactForces", "StribeckFrictionCoefficient",
    "DEFAULT_PENETRATION_ALLOWANCE", "DEFAULT_STICTION_TOLERANCE", "DEFAULT_RELAXATION_TIME",
    "CombineRelaxationTimes", "DelassusDiagonal", "SapContactProblem",
]
