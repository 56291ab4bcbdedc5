"""mallard.systems.drawing — block-diagram plots (pydrake.systems.drawing) and plots of logged signals."""
from .graphviz_plot import diagram_graph, plot_graphviz, plot_system_graphviz
from .log_plot import plot_logged_signals, plot_vector_log
from .signal_names import (RegisterSignalNamer, SignalGroup, SignalNames, logged_signal_names,
                           port_signal_names)

__all__ = ["diagram_graph", "plot_graphviz", "plot_system_graphviz", "plot_logged_signals", "plot_vector_log",
           "RegisterSignalNamer", "SignalGroup", "SignalNames", "logged_signal_names", "port_signal_names"]
