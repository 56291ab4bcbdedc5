"""SimulatorStatus: why and when `Simulator.AdvanceTo` returned."""
from __future__ import annotations

from mallard.common.cpp_enum import CppEnum

__all__ = ["SimulatorStatus"]


class SimulatorStatus:
    """The outcome of AdvanceTo: reached the boundary, reached a termination condition, or a handler failed."""

    class ReturnReason(CppEnum):
        kReachedBoundaryTime = 0
        kReachedTerminationCondition = 1
        kEventHandlerFailed = 2

    def __init__(self, boundary_time: float, return_time: float, reason: "SimulatorStatus.ReturnReason",
                 system=None, message: str = "") -> None:
        self._boundary_time = boundary_time
        self._return_time = return_time
        self._reason = reason
        self._system = system
        self._message = message

    def succeeded(self) -> bool:
        return self._reason != SimulatorStatus.ReturnReason.kEventHandlerFailed

    def reason(self) -> "SimulatorStatus.ReturnReason":
        return self._reason

    def boundary_time(self) -> float:
        return self._boundary_time

    def return_time(self) -> float:
        return self._return_time

    def system(self):
        return self._system

    def message(self) -> str:
        return self._message

    def FormatMessage(self) -> str:
        R = SimulatorStatus.ReturnReason
        if self._reason == R.kReachedBoundaryTime:
            return f"Simulator successfully reached the boundary time ({self._boundary_time})."
        who = self._system.GetSystemPathname() if self._system is not None else "a system"
        if self._reason == R.kReachedTerminationCondition:
            return (f"Simulator returned early at time {self._return_time} because {who} requested termination "
                    f"with message: \"{self._message}\"")
        return f"Simulator stopped at time {self._return_time} because {who} failed with message: \"{self._message}\""

    def IsIdenticalStatus(self, other: "SimulatorStatus") -> bool:
        return (self._boundary_time, self._return_time, self._reason, self._system, self._message) == (
            other._boundary_time, other._return_time, other._reason, other._system, other._message)

    def __repr__(self) -> str:  # pydrake binds no repr: Python's default, so notebooks print the same text
        return f"<{type(self).__module__.replace('.simulator_status', '')}.SimulatorStatus object at {id(self):#x}>"
